"""``--profile DIR``: sample the server processes with py-spy during the throughput window.

py-spy is not a dependency: ``.venv/bin/pip install py-spy``. Each Python server process gets a
``<target>-<process>.txt`` file of collapsed stacks (py-spy's ``raw`` format: one
``frame;frame;...;frame count`` line per distinct stack; ``flamegraph.pl`` or speedscope.app
render it), and :func:`summarize` prints where the samples landed.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^():]+)(?::\d+)?\)$")


def py_spy() -> str | None:
    return shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")


def record(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    exe = py_spy()
    if exe is None:
        raise RuntimeError("--profile needs py-spy: .venv/bin/pip install py-spy")
    return subprocess.Popen(
        [
            exe,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(max(1, math.ceil(seconds))),
            "--rate",
            "200",
            "--nonblocking",
            "--format",
            "raw",
            "--output",
            str(out),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _short(frame: str) -> str:
    m = _FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    path = m["file"]
    for marker in ("site-packages/", "/work/main/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{m['func']} ({path})"


def summarize(path: Path, top: int = 20) -> str:
    """The functions with the most samples on-CPU (self) and on the stack (inclusive)."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [_short(f) for f in stack.split(";") if f and not f.startswith("process ")]
        if not frames:
            continue
        total += n
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    if not total:
        return f"{path.name}: no samples"
    lines = [f"{path.name}: {total} samples (idle excluded)", "  self:"]
    lines += [f"    {n / total:6.1%}  {f}" for f, n in own.most_common(top)]
    lines.append("  inclusive:")
    lines += [f"    {n / total:6.1%}  {f}" for f, n in incl.most_common(top)]
    return "\n".join(lines)
