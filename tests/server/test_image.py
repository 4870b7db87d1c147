"""The Docker image's entry point serves: with a Docker daemon, the image is built and run and
its /healthz and /readyz answer; without one, the very command line of the Dockerfile's CMD
(with its ENV, the port and data directory made local) is run from the installed package.
Either way the test runs: CI=true never turns a missing Docker into a skip or a failure."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from server.config import ROOT
from tests.server.serving import serving

DOCKERFILE = ROOT / "Dockerfile"


def dockerfile_cmd() -> list[str]:
    found = re.search(r"^CMD (\[.*\])$", DOCKERFILE.read_text(), re.M)
    assert found, "the Dockerfile has an exec-form CMD"
    return list(json.loads(found.group(1)))


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for line in re.findall(r"^ENV (.*)$", DOCKERFILE.read_text(), re.M):
        env.update(dict(pair.split("=", 1) for pair in line.split()))
    return env


def docker_works() -> bool:
    if shutil.which("docker") is None:
        return False
    done = subprocess.run(["docker", "info"], capture_output=True, timeout=30, check=False)
    return done.returncode == 0


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def get(url: str) -> tuple[int, dict[str, object]]:
    status, body = fetch(url)
    return status, json.loads(body)


def test_the_image_runs_as_a_non_root_user_on_all_interfaces():
    text = DOCKERFILE.read_text()
    assert dockerfile_cmd() == ["cardtable", "serve", "--host", "0.0.0.0"]
    assert re.search(r"^USER (?!root)\w+", text, re.M)
    assert "npm ci" in text and "npm run build" in text and "python:3.11-slim" in text


def test_the_image_installs_the_lock_then_the_package_alone():
    """The image's Python packages are the lock's (pinned, hashed: tests/layout/test_lock.py
    holds requirements.txt to pyproject.toml and to the dev lock); the package itself is
    installed without resolving anything again."""
    text = DOCKERFILE.read_text()
    assert re.search(r"^COPY requirements\.txt ", text, re.M)
    installs = [
        " ".join(i.split()) for i in re.findall(r"pip install ([^&]*?)\s*(?:\\|$)", text, re.M)
    ]
    assert installs == [
        "--no-cache-dir --require-hashes -r requirements.txt",
        "--no-cache-dir --no-deps --no-build-isolation .",
    ]


async def test_the_entry_point_serves_healthz(tmp_path: Path):
    if docker_works():
        _in_docker()
        return
    # No Docker here: the same command line, from the installed package.
    env = {**dockerfile_env(), "PORT": "0", "CARDTABLE_DATA_DIR": str(tmp_path / "data")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with serving(dockerfile_cmd(), env=env, cwd=tmp_path) as (url, lines):
        assert get(f"{url}/healthz") == (200, {"status": "ok", "store": "ok"})
        assert get(f"{url}/readyz")[0] == 200
        status, page = fetch(f"{url}/")  # the page is served too (from server/web)
        if (ROOT / "web" / "dist" / "app.js").exists():  # built (make test builds it first)
            assert fetch(f"{url}/assets/app.js")[0] == 200
    assert status == 200 and b"<html" in page.lower()
    assert all(json.loads(line)["level"] for line in lines)  # the image logs JSON


def _in_docker() -> None:  # pragma: no cover - needs a Docker daemon
    tag = "cardtable-smoke:test"
    subprocess.run(["docker", "build", "-q", "-t", tag, str(ROOT)], check=True, timeout=1200)
    cid = subprocess.run(
        ["docker", "run", "-d", "-p", "127.0.0.1::8080", tag],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        port = (
            subprocess.run(
                ["docker", "port", cid, "8080/tcp"], check=True, capture_output=True, text=True
            )
            .stdout.split(":")[-1]
            .strip()
        )
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):  # until the server inside says it listens
            logs = subprocess.run(["docker", "logs", cid], capture_output=True, text=True)
            if "Running on" in logs.stdout:
                break
            subprocess.run(["sleep", "0.1"], check=True)
        else:
            pytest.fail(f"the container never listened: {logs.stdout} {logs.stderr}")
        assert get(f"{url}/healthz") == (200, {"status": "ok", "store": "ok"})
        assert fetch(f"{url}/")[0] == 200
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True, check=False)
