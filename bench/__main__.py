"""``python -m bench``: cardtable against a bare python-socketio server, side by side.

For each target (see :mod:`bench.targets`), one after the other: start its servers, create R
rooms over HTTP, start the client processes (:mod:`bench.worker`; each joins its rooms with P real
Socket.IO clients over websocket and creates one loose card per player), then run two phases:

* **throughput** — unpaced: every client keeps one ``move`` in flight (the next is sent on the
  ``ack``). Moves/s = acks received per second; events/s = ``delta`` events received per second by
  all clients (each move reaches its room's P players, the mover included).
* **latency** — paced, open loop: ``--rate`` moves/s per room spread evenly over its players.
  p50/p99 from sending a move to another player of the room receiving its ``delta``; ack p50/p99
  from sending to the mover's ``ack``.

Then everything is stopped and the next target starts. Loopback only, free ports, temp dirs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from bench import profile, use_uvloop
from bench.report import CpuSample, Row, percentile, render, rss_kb
from bench.targets import REPO, TARGETS, Launch, Target, Unavailable, tail

START_DELAY = 0.3  # seconds between sending a phase command and the phase starting
GRACE = 3.0  # paced phase: how long to wait for the last acks (at most half the phase)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    names = [t.name for t in TARGETS]
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Load-test cardtable next to a bare python-socketio server: real Socket.IO "
        "clients, throughput and paced latency, one table (see bench/README.md).",
    )
    p.add_argument("--rooms", type=int, default=10, help="rooms per target (default 10)")
    p.add_argument(
        "--players", type=int, default=4, help="players (seats) per room, 1..8 (default 4)"
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="measured seconds per phase (default 10; 2 with --quick)",
    )
    p.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="unmeasured seconds before each phase (default 1.5; 0.5 with --quick)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=50.0,
        help="latency phase: moves per second per room, spread over its players (default 50)",
    )
    p.add_argument("--clients", type=int, default=2, help="client processes (default 2)")
    p.add_argument(
        "--targets",
        default=",".join(names),
        help=f"comma-separated, from: {', '.join(names)} (default all)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="short run (~25 s): --seconds 2 --warmup 0.5 unless given",
    )
    p.add_argument(
        "--stock",
        action="store_true",
        help="run the installed `cardtable serve` with its production rate limits "
        "(20 ops/s per connection, 30 joins/min per address) instead of "
        "lifting them with --ops-per-second/--ops-burst/--joins-per-minute",
    )
    p.add_argument(
        "--redis-fsync",
        default="everysec",
        choices=["always", "everysec", "no", "off"],
        help="appendfsync of the redis-server the bench starts ('off': no AOF; default everysec)",
    )
    p.add_argument("--json", type=Path, default=None, help="also write the results here")
    p.add_argument(
        "--paced-only",
        action="store_true",
        help="skip the unpaced throughput phase (for many players: thousands of "
        "closed loops only measure a queue); CPU per move from the paced phase",
    )
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="DIR",
        help="py-spy the server processes during the throughput window (the paced "
        "one with --paced-only); collapsed "
        "stacks go to DIR, a summary is printed (needs py-spy; adds load)",
    )
    args = p.parse_args(argv)
    if args.seconds is None:
        args.seconds = 2.0 if args.quick else 10.0
    if args.warmup is None:
        args.warmup = 0.5 if args.quick else 1.5
    if not 1 <= args.players <= 8:
        p.error("--players must be 1..8 (a room has at most 8 seats; spectators can't move)")
    if (
        args.rooms < 1
        or args.seconds <= 0
        or args.warmup < 0
        or args.rate <= 0
        or (args.clients < 1)
    ):
        p.error("--rooms, --seconds, --rate and --clients must be positive")
    chosen = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        p.error(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(names)}")
    args.targets = chosen
    if args.profile is not None:
        if profile.py_spy() is None:
            p.error("--profile needs py-spy: .venv/bin/pip install py-spy")
        args.profile.mkdir(parents=True, exist_ok=True)
    return args


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- client processes ---------------------------------------------------------------------------


class WorkerProc:
    def __init__(self, proc: asyncio.subprocess.Process, log_path: Path) -> None:
        self.proc = proc
        self.log_path = log_path

    @classmethod
    async def start(cls, log_path: Path) -> WorkerProc:
        with open(log_path, "wb") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.worker",
                cwd=REPO,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                limit=256 * 1024 * 1024,
            )
        return cls(proc, log_path)

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())

    async def answer(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("client process exited:\n" + tail(self.log_path))
        got: dict[str, Any] = json.loads(line)
        if "fatal" in got:
            raise RuntimeError(f"client process: {got['fatal']}\n" + tail(self.log_path))
        return got

    async def stop(self) -> None:
        if self.proc.returncode is None:
            try:
                self.send({"cmd": "quit"})
                await asyncio.wait_for(self.proc.wait(), 10)
            except (OSError, TimeoutError, ConnectionError):
                pass
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


# --- one target ---------------------------------------------------------------------------------


async def create_rooms(url: str, n: int, seats: int) -> list[str]:
    """Rooms from the built-in standard deck, in which every player may add objects (each bench
    player creates the card it moves)."""
    layout = json.loads((REPO / "server" / "homemade" / "library" / "standard.json").read_text())
    layout.update(seats=seats, edit="all")
    gate = asyncio.Semaphore(16)

    async def one(http: aiohttp.ClientSession) -> str:
        async with gate, http.post(f"{url}/api/rooms", json={"game_file": layout}) as resp:
            body = await resp.json()
            if resp.status != 201:
                raise RuntimeError(f"POST /api/rooms: {resp.status} {body}")
            code: str = body["code"]
            return code

    async with aiohttp.ClientSession() as http:
        return list(await asyncio.gather(*(one(http) for _ in range(n))))


async def run_phase(
    workers: list[WorkerProc],
    roles: dict[int, str],
    args: argparse.Namespace,
    name: str,
    on_window: Callable[[], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Run one phase in every client process; CPU use is sampled over the measured window."""
    start = time.monotonic() + START_DELAY
    cmd = {
        "cmd": name,
        "start": start,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "grace": min(GRACE, args.seconds / 2),
        "rate": args.rate,
    }
    for w in workers:
        w.send(cmd)
    answers = [
        asyncio.ensure_future(w.answer(START_DELAY + args.warmup + args.seconds + 30))
        for w in workers
    ]
    try:
        ws = start + args.warmup
        await asyncio.sleep(max(0.0, ws - time.monotonic()))
        before = CpuSample.take(roles)
        if on_window is not None:
            on_window()
        await asyncio.sleep(max(0.0, ws + args.seconds - time.monotonic()))
        cpu = before.percent_until_now(args.seconds)
        return list(await asyncio.gather(*answers)), cpu
    finally:
        for a in answers:
            a.cancel()


def _merge_errors(into: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + int(v)


async def run_target(target: Target, args: argparse.Namespace, workdir: Path) -> Row:
    row = Row(target.name, target.description, players=args.players)
    began = time.monotonic()
    launch = Launch(workdir / target.name, stock=args.stock, redis_fsync=args.redis_fsync)
    launch.workdir.mkdir(parents=True)
    workers: list[WorkerProc] = []
    spies: list[subprocess.Popen[bytes]] = []
    try:
        # The client processes import python-socketio while the servers start.
        n_workers = min(args.clients, args.rooms)
        for k in range(n_workers):
            workers.append(await WorkerProc.start(launch.workdir / f"clients{k}.log"))
        urls = await asyncio.to_thread(target.start, launch)
        t_started = time.monotonic()
        if target.protocol == "bgio":  # a match is made by its first player's sync
            codes = [f"bench{i}" for i in range(args.rooms)]
        else:
            codes = await create_rooms(urls[0], args.rooms, args.players)
        specs: list[dict[str, Any]] = [
            {"rooms": [], "seed": k, "wire": target.wire, "protocol": target.protocol}
            for k in range(n_workers)
        ]
        for i, code in enumerate(codes):
            players = [
                {
                    "url": urls[(i + j if target.placement == "spread" else i) % len(urls)],
                    "name": f"r{i}p{j}",
                }
                for j in range(args.players)
            ]
            specs[i % n_workers]["rooms"].append({"code": code, "players": players})
        servers = [p.popen.pid for p in launch.procs if p.role == "server"]
        rss_idle = sum(rss_kb(pid) or 0 for pid in servers)
        n_players = args.rooms * args.players
        setup_timeout = max(40.0, n_players / 25)
        at_once = max(1, 8 // n_workers)  # under the server's 10 code lookups per address
        for w, spec in zip(workers, specs, strict=True):
            w.send({**spec, "setup_timeout": setup_timeout, "joins_at_once": at_once})
        for w in workers:
            ready = await w.answer(setup_timeout + 20)
            _merge_errors(row.errors, ready.get("errors", {}))
        log(
            f"  servers up in {t_started - began:.1f} s, {n_players} clients "
            f"joined in {time.monotonic() - t_started:.1f} s"
        )
        rss_full = sum(rss_kb(pid) or 0 for pid in servers)
        row.rss_mb = rss_full / 1024
        row.kb_per_conn = (rss_full - rss_idle) / n_players
        log(
            f"  server memory: {rss_idle / 1024:.0f} MB before the rooms, {row.rss_mb:.0f} MB "
            f"with {n_players} players joined: {row.kb_per_conn:.1f} KB per connection "
            "(room and presence included)"
        )
        roles = {os.getpid(): "bench"}
        roles.update({p.popen.pid: p.role for p in launch.procs})
        roles.update({w.proc.pid: "clients" for w in workers})

        def start_profiles() -> None:
            for p in launch.procs:
                if p.role == "server":
                    out = args.profile / f"{target.name}-{p.name}.txt"
                    spies.append(profile.record(p.popen.pid, args.seconds, out))
                    row.profiles.append(str(out))

        if not args.paced_only:
            tp, row.cpu = await run_phase(
                workers, roles, args, "throughput", start_profiles if args.profile else None
            )
            for spy in spies:
                await asyncio.to_thread(spy.wait, args.seconds + 20)
            row.moves_s = sum(r["moves"] for r in tp) / args.seconds
            row.events_s = sum(r["deltas"] for r in tp) / args.seconds
            row.set_bytes_per_delta(tp)
            for r in tp:
                _merge_errors(row.errors, r["errors"])

        lat, row.cpu_paced = await run_phase(
            workers,
            roles,
            args,
            "latency",
            start_profiles if args.profile and args.paced_only else None,
        )
        for spy in spies:
            await asyncio.to_thread(spy.wait, args.seconds + 20)
        row.paced_s = sum(r["moves"] for r in lat) / args.seconds
        row.paced_goal = args.rate * args.rooms
        if row.bytes_per_delta is None:
            row.set_bytes_per_delta(lat)
        delta = sorted(x / 1000 for r in lat for x in r["delta_us"])
        ack = sorted(x / 1000 for r in lat for x in r["ack_us"])
        row.samples = len(delta)
        row.delta_p50, row.delta_p99 = percentile(delta, 50), percentile(delta, 99)
        row.ack_p50, row.ack_p99 = percentile(ack, 50), percentile(ack, 99)
        for r in lat:
            _merge_errors(row.errors, r["errors"])
            _merge_errors(row.late, r.get("late", {}))
        if row.paced_s:
            server_ms = row.cpu_paced.get("server", 0.0) * 10 / row.paced_s
            log(
                f"  paced phase: {row.paced_s:,.0f} moves/s, server CPU "
                f"{row.cpu_paced.get('server', 0.0):.0f}% of a core = {server_ms:.3f} ms/move "
                f"(heartbeats and pings included), store {row.cpu_paced.get('store', 0.0):.0f}%"
                f", clients {row.cpu_paced.get('clients', 0.0):.0f}%, other "
                f"{row.cpu_paced.get('other', 0.0):.0f}%"
            )
    except Unavailable as exc:  # not on this machine (no Node): say how, count no failure
        row.skipped = str(exc)
        log(f"  {target.name} skipped: {exc}")
    except Exception as exc:  # one target failing must not lose the others' figures
        row.failed = f"{type(exc).__name__}: {exc}"
        log(f"  {target.name} FAILED: {row.failed}")
        for p in launch.procs:
            log(f"  --- {p.name} log, last lines:\n{tail(p.log, 3000)}")
    finally:
        t_stop = time.monotonic()
        for spy in spies:
            if spy.poll() is None:
                spy.kill()
                spy.wait()
        await asyncio.gather(*(w.stop() for w in workers), return_exceptions=True)
        t_clients = time.monotonic() - t_stop
        await asyncio.to_thread(launch.close)
        log(
            f"  stopped: clients in {t_clients:.1f} s, servers in "
            f"{time.monotonic() - t_stop - t_clients:.1f} s"
        )
    row.seconds = time.monotonic() - began
    return row


async def amain(args: argparse.Namespace) -> list[Row]:
    # SIGTERM cancels the run like Ctrl-C does, so every `finally` stops its processes.
    task = asyncio.current_task()
    if task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    rows = []
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
        for target in (t for t in TARGETS if t.name in args.targets):
            log(f"- {target.name}: {target.description}")
            row = await run_target(target, args, Path(tmp))
            if not row.failed and not row.skipped:
                log(
                    f"  {row.moves_s or 0:,.0f} moves/s; paced: p50 {row.delta_p50 or 0:.2f} ms,"
                    f" p99 {row.delta_p99 or 0:.2f} ms ({row.seconds:.1f} s)"
                )
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    loop_name = use_uvloop()
    began = time.monotonic()
    header = (
        f"{args.rooms} rooms x {args.players} players, {args.seconds:g} s per phase "
        f"(+{args.warmup:g} s warm-up), paced {args.rate:g} moves/s per room, "
        f"{args.clients} client process(es); Python {platform.python_version()}, "
        f"{loop_name}, {os.cpu_count()} CPUs"
    )
    log(header)
    try:
        rows = asyncio.run(amain(args))
    except (KeyboardInterrupt, asyncio.CancelledError):
        log("interrupted: every process the bench started has been stopped")
        return 130
    print()
    print(header)
    print(render(rows))
    print(f"\ntotal {time.monotonic() - began:.0f} s")
    for row in rows:
        for path in row.profiles:
            if Path(path).exists():
                print()
                print(profile.summarize(Path(path)))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {
                        k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                    },
                    "rows": [r.as_json() for r in rows],
                },
                indent=2,
            )
        )
    return 1 if any(r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
