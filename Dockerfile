# cardtable: the web client built by node, then a slim Python image with the package installed.
# docker build -t cardtable . && docker run -p 8080:8080 cardtable
# (docs/architecture.md, "Operating it"; compose.yaml runs two of these behind nginx, with Redis.)

FROM node:20-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY web/ ./
RUN npm run build

FROM python:3.11-slim
WORKDIR /src
# The lock first (its own layer, rebuilt only when it changes): every package pinned and hashed,
# the versions the suite passed on (`make lock` writes requirements.txt beside the dev lock).
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
COPY pyproject.toml README.md ./
COPY server/ server/
COPY plugins/ plugins/
# server/web is a link to ../web/dist in the checkout: the image holds the built files instead,
# and a non-editable install ships them as package data.
RUN rm -rf server/web
COPY --from=web /src/web/dist/ server/web/
# Then the package alone: nothing resolved again; built with the lock's setuptools.
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
    && useradd --system --create-home --home-dir /home/cardtable cardtable \
    && mkdir /data && chown cardtable /data \
    && rm -rf /src
WORKDIR /home/cardtable
USER cardtable
ENV PORT=8080 CARDTABLE_DATA_DIR=/data CARDTABLE_LOG_FORMAT=json PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/readyz' % os.environ['PORT'])"
CMD ["cardtable", "serve", "--host", "0.0.0.0"]
