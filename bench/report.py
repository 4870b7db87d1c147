"""Figures: percentiles, CPU time from /proc, and the plain-text result table."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

CLK_TCK = os.sysconf("SC_CLK_TCK")


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list (``q`` in 0..100); None when empty."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n * q / 100)
    return sorted_values[int(rank) - 1]


# --- CPU accounting -----------------------------------------------------------------------------


def cpu_ticks(pid: int) -> int | None:
    """utime + stime of one process, in clock ticks (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def rss_kb(pid: int) -> int | None:
    """Resident memory of one process, in KB (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def expand(roles: dict[int, str]) -> dict[int, str]:
    """Add every descendant (same role); a redis-server anywhere counts as ``store``."""
    out = {pid: "store" if "redis" in comm(pid) else role for pid, role in roles.items()}
    todo = [(c, role) for pid, role in roles.items() for c in children(pid)]
    while todo:
        pid, role = todo.pop()
        if pid in out:
            continue
        out[pid] = "store" if "redis" in comm(pid) else role
        todo += [(c, role) for c in children(pid)]
    return out


def machine_busy() -> int:
    """Clock ticks the whole machine spent busy (all CPUs, not idle/iowait/steal)."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, f.readline().split()[1:8])
    return user + nice + system + irq + softirq


@dataclass
class CpuSample:
    roles: dict[int, str]
    ticks: dict[int, int] = field(default_factory=dict)
    busy: int = 0

    @classmethod
    def take(cls, roles: dict[int, str]) -> CpuSample:
        sample = cls(expand(roles), busy=machine_busy())
        for pid in sample.roles:
            t = cpu_ticks(pid)
            if t is not None:
                sample.ticks[pid] = t
        return sample

    def percent_until_now(self, seconds: float) -> dict[str, float]:
        """CPU use per role from this sample until now (``seconds`` later), in % of one core."""
        out: dict[str, float] = {}
        for pid, role in self.roles.items():
            t = cpu_ticks(pid)
            if t is None or pid not in self.ticks:
                continue
            out[role] = out.get(role, 0.0) + (t - self.ticks[pid]) / CLK_TCK / seconds * 100
        busy = (machine_busy() - self.busy) / CLK_TCK / seconds * 100
        out["other"] = max(0.0, busy - sum(out.values()))  # processes that are not the bench
        return out


# --- results ------------------------------------------------------------------------------------


@dataclass
class Row:
    target: str
    description: str
    players: int = 0
    moves_s: float | None = None
    events_s: float | None = None
    paced_s: float | None = None
    paced_goal: float | None = None
    delta_p50: float | None = None  # ms
    delta_p99: float | None = None
    ack_p50: float | None = None
    ack_p99: float | None = None
    samples: int = 0
    errors: dict[str, int] = field(default_factory=dict)  # error events, disconnects, timeouts
    late: dict[str, int] = field(default_factory=dict)  # paced moves unanswered after the grace
    cpu: dict[str, float] = field(default_factory=dict)  # throughput phase, % of one core
    cpu_paced: dict[str, float] = field(default_factory=dict)  # latency phase
    profiles: list[str] = field(default_factory=list)  # py-spy collapsed stacks (--profile)
    failed: str | None = None
    seconds: float = 0.0  # wall time of this target, start to stop
    rss_mb: float | None = None  # server processes' resident memory with every player joined
    kb_per_conn: float | None = None  # its growth from before the rooms, per player
    bytes_per_delta: float | None = None  # websocket message bytes of one delta (update)
    skipped: str | None = None  # could not run here (e.g. no Node.js): how to run it

    def set_bytes_per_delta(self, results: list[dict[str, Any]]) -> None:
        """Mean size of the deltas the client processes counted in one phase."""
        n = sum(r["deltas"] for r in results)
        if n:
            self.bytes_per_delta = sum(r.get("delta_bytes", 0) for r in results) / n

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _n(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def overloaded(r: Row) -> bool:
    """The target did not keep up with the paced rate: its latencies grew with the run."""
    return bool(r.paced_goal and r.paced_s is not None and r.paced_s < 0.95 * r.paced_goal) or (
        bool(r.late)
    )


def cpu_ms_per_move(r: Row, role: str) -> float | None:
    """CPU milliseconds one committed move cost ``role`` in the throughput phase."""
    if not r.moves_s or role not in r.cpu:
        return None
    return r.cpu[role] * 10 / r.moves_s


def render(rows: list[Row], baseline: str = "baseline") -> str:
    base = next((r.moves_s for r in rows if r.target == baseline and r.moves_s), None)
    head = [
        "target",
        "moves/s",
        "events/s",
        "deliv%",
        "vs base",
        "p50 ms",
        "p99 ms",
        "ack p50",
        "ack p99",
        "errors",
    ]
    body: list[list[str]] = []
    for r in rows:
        if r.failed or r.skipped:
            body.append([r.target, "FAILED" if r.failed else "skipped", *[""] * 8])
            continue
        ratio = f"{r.moves_s / base:.2f}x" if base and r.moves_s is not None else "-"
        mark = "*" if overloaded(r) else ""
        deliv = (
            100 * r.events_s / (r.moves_s * r.players)
            if r.moves_s and r.events_s is not None and r.players
            else None
        )
        body.append(
            [
                r.target,
                _n(r.moves_s, ",.0f"),
                _n(r.events_s, ",.0f"),
                _n(deliv, ".0f"),
                ratio,
                _n(r.delta_p50, ".2f") + mark,
                _n(r.delta_p99, ".2f") + mark,
                _n(r.ack_p50, ".2f") + mark,
                _n(r.ack_p99, ".2f") + mark,
                str(sum(r.errors.values())),
            ]
        )
    lines = [_table(head, body)]
    if any(overloaded(r) for r in rows if not r.failed):
        lines.append(
            "* did not keep up with the paced rate: these latencies measure a queue, not the server"
        )

    head2 = [
        "target",
        "paced moves/s",
        "CPU% server",
        "store",
        "clients",
        "other",
        "server ms/move",
        "store ms/move",
        "B/delta",
        "error codes",
    ]
    body2: list[list[str]] = []
    for r in rows:
        if r.failed or r.skipped:
            body2.append([r.target, *[""] * 8, "see below"])
            continue
        paced = f"{_n(r.paced_s, ',.0f')} / {_n(r.paced_goal, ',.0f')}"
        codes = ", ".join(f"{k}={v}" for k, v in sorted(r.errors.items())) or "-"
        if r.late:
            codes += " (late: " + ", ".join(f"{k}={v}" for k, v in sorted(r.late.items())) + ")"
        body2.append(
            [
                r.target,
                paced,
                _n(r.cpu.get("server"), ".0f"),
                _n(r.cpu.get("store"), ".0f"),
                _n(r.cpu.get("clients"), ".0f"),
                _n(r.cpu.get("other"), ".0f"),
                _n(cpu_ms_per_move(r, "server"), ".2f"),
                _n(cpu_ms_per_move(r, "store"), ".3f"),
                _n(r.bytes_per_delta, ",.0f"),
                codes,
            ]
        )
    lines += [
        "",
        _table(head2, body2),
        "CPU%: of one core, over the throughput window; other: processes outside the bench; "
        "B/delta: one delta (boardgame.io: one update) as a websocket message, in bytes",
    ]
    for r in rows:
        if r.failed:
            lines.append(f"{r.target} failed: {r.failed.splitlines()[0]}")
        if r.skipped:
            lines.append(f"{r.target} skipped: {r.skipped}")
    busy = [r.target for r in rows if max(r.cpu.get("other", 0), r.cpu_paced.get("other", 0)) > 25]
    if busy:
        lines.append(
            f"! other processes used over 25% of a core while measuring {', '.join(busy)}"
            ": those figures are disturbed (CPU ms/move much less so)"
        )
    return "\n".join(lines)


def _table(head: list[str], body: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]

    def fmt(row: list[str]) -> str:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), rule, *(fmt(row) for row in body)])
