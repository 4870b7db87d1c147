"""Computers' pace across server processes, and the reads of a room where nothing can happen.

``python -m bench.pace [--processes N] [--code DIR] [--heartbeat S] [--idle S] [--grace S]``

Starts a private redis-server and N ``cardtable serve`` processes sharing it (run from ``DIR``,
default this checkout: point it at an unpacked older commit to measure "before"), creates a
Gin Rummy room on the first process, and seats a person there (Ana, who plays at once whenever
it is her turn: draws from the stock, discards at random, never knocks, deals the next hand)
against a computer, with a spectator on the last process (so every process follows the room).
Until the computer has made ``--moves`` moves and a hand is over it reads the room's log and
the time the server wrote each line (``log_at``), and reports the pause before each computer
move: the time since the room's previous line (the server's own clock).

Then the room where nothing can happen (the hand is over; only a person deals on) is watched
with Redis ``MONITOR`` for the room's reads (``HMGET`` of ``ct:{CODE}:room``, what
``RedisStore.load`` sends), three windows of ``--idle`` seconds each: people still connected;
everyone left, within the grace period; everyone left, after it (``--grace``). Reads are
reported per minute. The game phase also counts commit attempts (scripts on the room's key)
against versions made: the difference is commits lost to another process's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis

from cardtable_client import TableClient
from server.store.embedded import EmbeddedRedis, free_port
from server.store.redis_store import room_key
from server.table.objects import decode_table

ROOT = Path(__file__).resolve().parent.parent


class Counter:
    """Counts the room's reads and commit attempts seen on a Redis ``MONITOR``."""

    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key
        self.reads = 0
        self.scripts = 0
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        r = aioredis.from_url(self.url)
        async with r.monitor() as m:
            while True:
                cmd = (await m.next_command())["command"]
                if self.key not in cmd:
                    continue
                verb = cmd.split(" ", 1)[0].upper()
                if verb == "HMGET":
                    self.reads += 1
                elif verb in ("EVALSHA", "EVAL"):
                    self.scripts += 1

    async def start(self) -> None:
        self.task = asyncio.create_task(self._run())
        await asyncio.sleep(0.3)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


def start_server(
    code_dir: Path, redis_url: str, heartbeat: float, grace: float
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PYTHONPATH"] = str(code_dir)
    args = [
        sys.executable,
        "-m",
        "server",
        "serve",
        "--port",
        str(port),
        "--redis-url",
        redis_url,
        "--heartbeat",
        str(heartbeat),
        "--grace",
        str(grace),
        "--log-level",
        "warning",
        "--joins-per-minute",
        "100000",
    ]
    proc = subprocess.Popen(args, cwd=code_dir, env=env, stdin=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


async def wait_up(url: str) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(200):
            try:
                async with http.get(f"{url}/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Ana's move: never knock, draw from the stock, discard at random."""
    plain = [a for a in legal if a["type"] not in ("knock", "gin", "next_hand")]
    for kind in ("pass", "finish_layoff"):
        if any(a["type"] == kind for a in plain):
            return {"type": kind}
    draw = [a for a in plain if a["type"] == "draw" and a.get("source") == "stock"]
    if draw:
        return draw[0]
    return rng.choice(plain or legal)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="pace-"))
    store = EmbeddedRedis(tmp / "redis", port=free_port(), fsync="everysec").start()
    procs = [
        start_server(args.code, store.url, args.heartbeat, args.grace)
        for _ in range(args.processes)
    ]
    redis = aioredis.from_url(store.url)
    counter: Counter | None = None
    try:
        for _, url in procs:
            await wait_up(url)
        first, last = procs[0][1], procs[-1][1]
        room = {"game": "gin_rummy", "options": {"target": 500}}  # no game over soon
        async with aiohttp.ClientSession() as http, http.post(f"{first}/api/rooms", json=room) as r:
            code = str((await r.json())["code"])
        counter = Counter(store.url, room_key(code))
        await counter.start()
        ana = await TableClient(first).connect()
        await ana.join(code, "Ana")
        spec = await TableClient(last).connect()
        await spec.join(code, "Spec", seat=None)
        await ana.request("host", {"action": "bot", "seat": 1})
        start_v = ana.version
        lines: dict[tuple[float, str], None] = {}
        rng = random.Random(1)

        async def read_log() -> None:
            blob = await redis.hget(room_key(code), "s")
            table = decode_table(bytes(blob))
            for at, line in zip(table.log_times(), table.log, strict=True):
                lines[(at, line)] = None

        while True:
            await ana.wait_for(
                lambda: (
                    ana.game is not None
                    and not ana.game["waiting"]
                    and (bool(ana.game["legal"]) or ana.game["phase"] in ("hand_over", "game_over"))
                ),
                timeout=60,
            )
            await read_log()
            game = ana.game
            assert game is not None
            if (
                game["phase"] == "game_over"
                or game["phase"] == "hand_over"
                and sum(line.startswith("Computer") for _, line in lines) >= args.moves
            ):
                break
            if game["phase"] == "hand_over":  # Ana deals on until enough computer moves
                await ana.request("game", {"action": {"type": "next_hand"}})
                await ana.wait_for(
                    lambda: ana.game is not None and ana.game["phase"] != "hand_over"
                )
                continue
            await ana.request("game", {"action": pick(game["legal"], rng)})
        await read_log()
        end_v = int(await redis.hget(room_key(code), "v"))
        attempts = counter.scripts
        ordered = sorted(lines)
        pauses = [
            at - ordered[i - 1][0]
            for i, (at, line) in enumerate(ordered)
            if i and line.startswith("Computer")
        ]
        # The room where nothing can happen: connected, then left within and after the grace.
        ana_phase = ana.game["phase"] if ana.game is not None else None
        windows = {}
        counter.reads = 0
        await asyncio.sleep(args.idle)
        windows["connected"] = counter.reads
        await ana.close()
        await spec.close()
        counter.reads = 0
        await asyncio.sleep(args.idle)
        windows["left, within grace"] = counter.reads
        await asyncio.sleep(max(0.0, args.grace + 2 * args.heartbeat - args.idle))
        counter.reads = 0
        await asyncio.sleep(args.idle)
        windows["left, after grace"] = counter.reads
        return {
            "idle_phase": ana_phase,
            "processes": args.processes,
            "code": str(args.code),
            "heartbeat": args.heartbeat,
            "computer_moves": len(pauses),
            "pause_min": min(pauses),
            "pause_median": statistics.median(pauses),
            "under_0.6": sum(p < 0.6 for p in pauses),
            "commit_attempts": attempts,
            "versions": end_v - start_v,
            "reads_per_minute": {k: round(v * 60 / args.idle, 1) for k, v in windows.items()},
        }
    finally:
        if counter is not None:
            await counter.stop()
        await redis.aclose()
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        store.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.pace", description=__doc__.split("\n")[0])
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--code", type=Path, default=ROOT, help="checkout the servers run from")
    p.add_argument("--heartbeat", type=float, default=5.0)
    p.add_argument("--moves", type=int, default=40, help="computer moves to play, at least")
    p.add_argument("--grace", type=float, default=20.0)
    p.add_argument("--idle", type=float, default=30.0, help="seconds per idle window")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    out = asyncio.run(run(args))
    print(
        f"{out['processes']} process(es), {out['code']}: {out['computer_moves']} computer "
        f"moves, pause min {out['pause_min'] * 1000:.0f} ms, median "
        f"{out['pause_median'] * 1000:.0f} ms, {out['under_0.6']} under 0.6 s; "
        f"{out['commit_attempts']} commit attempts for {out['versions']} versions; "
        f"idle room ({out['idle_phase']}) reads/min: {out['reads_per_minute']}"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
