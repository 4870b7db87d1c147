"""``cardtable serve`` as a process of its own, the way an operator (or the image) starts it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

RUNNING = re.compile(r"Running on http://[^:]+:(\d+)")


def cardtable_command() -> list[str]:
    """The installed ``cardtable`` script beside this Python, or ``python -m server``."""
    script = Path(sys.executable).with_name("cardtable")
    return [str(script)] if script.exists() else [sys.executable, "-m", "server"]


@contextmanager
def serving(
    args: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> Iterator[tuple[str, list[str]]]:
    """Run ``args`` until it says where it listens; yield its base URL and the stderr lines read
    so far (the list grows while it runs, and holds everything once the block has ended)."""
    proc = subprocess.Popen(
        list(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    assert proc.stdout is not None and proc.stderr is not None
    err_lines: list[str] = []

    def read_stderr() -> None:
        for line in proc.stderr or []:
            err_lines.append(line)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        port = None
        for line in proc.stdout:  # blocks until the server prints where it listens (or exits)
            found = RUNNING.search(line)
            if found:
                port = found.group(1)
                break
        assert port is not None, f"the server never listened: {''.join(err_lines)}"
        yield f"http://127.0.0.1:{port}", err_lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
