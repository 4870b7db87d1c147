"""Real ``cardtable serve`` processes for tests that kill, restart and scale them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp

from server.store.embedded import free_port


class ServerProcess:
    def __init__(
        self,
        *,
        redis_url: str | None = None,
        data_dir: Path | None = None,
        port: int | None = None,
        grace: float = 120.0,
        heartbeat: float = 0.5,
        log_path: Path | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.data_dir = data_dir
        self.port = port or free_port()
        self.grace = grace
        self.heartbeat = heartbeat
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, timeout: float = 20.0) -> ServerProcess:
        args = [
            sys.executable,
            "-m",
            "server",
            "serve",
            "--port",
            str(self.port),
            "--grace",
            str(self.grace),
            "--heartbeat",
            str(self.heartbeat),
            "--log-level",
            "warning",
            # Every test client is 127.0.0.1 and the limits are counted in the shared Redis;
            # the limits have tests of their own.
            "--joins-per-minute",
            "100000",
            "--ops-per-second",
            "100000",
            "--ops-burst",
            "100000",
        ]
        if self.redis_url:
            args += ["--redis-url", self.redis_url]
        if self.data_dir:
            args += ["--data-dir", str(self.data_dir)]
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            args, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL
        )
        deadline = asyncio.get_running_loop().time() + timeout
        async with aiohttp.ClientSession() as http:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited with {self.proc.returncode}")
                try:
                    async with http.get(f"{self.url}/healthz") as r:
                        if r.status == 200:
                            return self
                except aiohttp.ClientError:
                    pass
                if asyncio.get_running_loop().time() > deadline:
                    raise RuntimeError("server did not come up")
                await asyncio.sleep(0.1)

    def kill(self) -> None:
        """kill -9, what a crash looks like."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


async def create_room(url: str, template: str = "standard") -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"template": template}) as r,
    ):
        assert r.status == 201, await r.text()
        return str((await r.json())["code"])


async def health(url: str) -> tuple[int, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(f"{url}/healthz") as r:
        return r.status, await r.json()
