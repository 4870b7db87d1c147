"""``python -m bench.lobby``: the lobby with 10,000 players online, measured with real sockets.

Starts a redis-server and one ``cardtable serve`` on loopback (as :mod:`bench.targets` does), then:

* **fill** — ``--online`` identities online in all. ``--pollers`` of them are real Socket.IO
  clients that say ``hello`` and ``online {on: true}`` as the web page does; the rest are put online
  through the server's own online script (:class:`server.social.lobby.Lobby`), as if their sockets
  were on other server processes, and this process refreshes them every heartbeat (5 s) the way
  those processes would. ``--tables`` of the pollers host a room made public.
* **polling** — paced like the web client: every poller asks ``lobby {page: 0}`` every 5 s
  (``REFRESH_MS`` in web/src/home/lobby.ts), starts spread over the first
  period; one ask in four is a
  name search (``q``: a 2-3 letter prefix) and one in ten is a later page, as people do.
  Latency = sending ``lobby`` to receiving its answer.
* **saturation** — ``--busy`` of the pollers each keep one ``lobby`` in flight (the next is sent on
  the answer): queries per second the server answers, and their latency.

Prints the figures (and ``--json``). Everything listens on 127.0.0.1; each phase is bounded by
``--seconds``, and the run stops itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis

from bench.report import cpu_ticks, percentile
from bench.targets import Launch
from cardtable_client import TableClient
from server.config import default_build
from server.social.lobby import Lobby
from server.store.social_store import RedisSocialStore, identity_key

HEARTBEAT = 5.0  # the server's default heartbeat; the lobby's online timeout is 3 of them
POLL = 5.0  # the web client's lobby refresh (REFRESH_MS)
CONNECT_TIMEOUT = 60.0


class LobbyClient(TableClient):
    """A table client that also gets the social answers it asks for."""

    def __init__(self, url: str) -> None:
        super().__init__(url, record=False)
        for name in ("hello_ok", "lobby", "challenge_sent"):
            self.sio.on(name, self._answer())

    def _answer(self) -> Any:
        async def handler(data: Any) -> None:
            self._resolve(data.get("ref"), data)

        return handler


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.lobby", description=__doc__.split("\n")[0])
    p.add_argument("--online", type=int, default=10_000, help="identities online (10000)")
    p.add_argument(
        "--pollers",
        type=int,
        default=300,
        help="of them, real socket clients polling the lobby (300)",
    )
    p.add_argument(
        "--busy",
        type=int,
        default=16,
        help="saturation phase: pollers keeping one query in flight (16)",
    )
    p.add_argument("--tables", type=int, default=10, help="public tables listed (10)")
    p.add_argument("--seconds", type=float, default=15.0, help="measured seconds per phase (15)")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    return p.parse_args(argv)


def summary(samples: list[float]) -> dict[str, float | int | None]:
    ordered = sorted(samples)
    ms = [x * 1000 for x in ordered]
    return {
        "n": len(ms),
        "p50_ms": percentile(ms, 50),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else None,
    }


async def fill(redis: aioredis.Redis, count: int, tag: str) -> list[tuple[str, str, str]]:
    """``count`` identities online through the server's own script; their (id, sid, name)."""
    lobby = Lobby(RedisSocialStore(redis), 3 * HEARTBEAT)
    online = [(f"b{tag}{i:06d}", f"sid{i}", name(i)) for i in range(count)]
    for start in range(0, count, 1000):
        chunk = online[start : start + 1000]
        pipe = redis.pipeline(transaction=False)
        for ident, _, n in chunk:
            pipe.hset(identity_key(ident), "n", n)
        await pipe.execute()
        await lobby.refresh(chunk, time.time())
    return online


def name(i: int) -> str:
    """Names that spread over the alphabet, as people's do: "Kelo 123"."""
    rnd = random.Random(i)
    syl = "".join(rnd.choice("bcdfghjklmnprstvz") + rnd.choice("aeiou") for _ in range(2))
    return f"{syl.capitalize()} {i}"


async def heartbeat(
    redis: aioredis.Redis,
    online: list[tuple[str, str, str]],
    stop: asyncio.Event,
    took: list[float],
) -> None:
    """Refresh the filled identities as their processes' heartbeats would (``took``: how long
    each whole refresh took)."""
    lobby = Lobby(RedisSocialStore(redis), 3 * HEARTBEAT)
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), HEARTBEAT)
        except TimeoutError:
            t0 = time.perf_counter()
            for start in range(0, len(online), 1000):
                await lobby.refresh(online[start : start + 1000], time.time())
            took.append(time.perf_counter() - t0)


def query(rnd: random.Random) -> dict[str, Any]:
    """What a person's page asks: mostly page 0, sometimes a search or a later page."""
    roll = rnd.random()
    if roll < 0.25:
        return {
            "page": 0,
            "q": "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.choice((2, 3)))),
        }
    if roll < 0.35:
        return {"page": rnd.randrange(1, 100)}
    return {"page": 0}


async def timed(c: LobbyClient, payload: dict[str, Any], out: list[float]) -> None:
    t0 = time.perf_counter()
    await c.request("lobby", payload, timeout=30.0)
    out.append(time.perf_counter() - t0)


async def paced(clients: list[LobbyClient], seconds: float) -> tuple[list[float], int]:
    samples: list[float] = []
    end = time.monotonic() + seconds

    async def poll(i: int, c: LobbyClient) -> None:
        rnd = random.Random(i)
        await asyncio.sleep(rnd.uniform(0, POLL))
        while time.monotonic() < end:
            started = time.monotonic()
            await timed(c, query(rnd), samples)
            await asyncio.sleep(max(0.0, POLL - (time.monotonic() - started)))

    await asyncio.gather(*(poll(i, c) for i, c in enumerate(clients)))
    return samples, len(samples)


async def unpaced(clients: list[LobbyClient], seconds: float) -> tuple[list[float], float]:
    samples: list[float] = []
    end = time.monotonic() + seconds

    async def loop(i: int, c: LobbyClient) -> None:
        rnd = random.Random(1000 + i)
        while time.monotonic() < end:
            await timed(c, query(rnd), samples)

    t0 = time.perf_counter()
    await asyncio.gather(*(loop(i, c) for i, c in enumerate(clients)))
    return samples, len(samples) / (time.perf_counter() - t0)


async def connect_all(url: str, n: int, build: str) -> list[LobbyClient]:
    clients: list[LobbyClient] = []
    sem = asyncio.Semaphore(20)

    async def one(i: int) -> None:
        async with sem:
            c = LobbyClient(url)
            await c.connect()
            await c.request("hello", {"name": f"Poller {i}", "build": build})
            await c.request("online", {"on": True})
            clients.append(c)

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(n))), CONNECT_TIMEOUT)
    return clients


async def public_tables(url: str, hosts: list[LobbyClient]) -> None:
    async with aiohttp.ClientSession() as http:
        for c in hosts:
            async with http.post(f"{url}/api/rooms", json={"game": "gin_rummy"}) as r:
                code = (await r.json())["code"]
            await c.join(code, "Host", seat=0)
            await c.request("host", {"action": "public", "public": True})


async def run(
    args: argparse.Namespace, url: str, redis_url: str, pids: dict[str, int]
) -> dict[str, Any]:
    redis = aioredis.from_url(redis_url)
    out: dict[str, Any] = {
        "online": args.online,
        "pollers": args.pollers,
        "busy": args.busy,
        "tables": args.tables,
        "seconds": args.seconds,
    }
    stop = asyncio.Event()
    try:
        t0 = time.perf_counter()
        filled = await fill(redis, max(0, args.online - args.pollers), "x")
        out["fill_s"] = time.perf_counter() - t0
        beats: list[float] = []
        beat = asyncio.create_task(heartbeat(redis, filled, stop, beats))
        t0 = time.perf_counter()
        clients = await connect_all(url, args.pollers, default_build())
        out["connect_s"] = time.perf_counter() - t0
        await public_tables(url, clients[: args.tables])
        first = await clients[-1].request("lobby", {"page": 0})
        out["listed_total"] = first["total"]
        out["listed_tables"] = len(first["tables"])

        cpu0 = _cpu(pids)
        t0 = time.perf_counter()
        samples, n = await paced(clients, args.seconds)
        wall = time.perf_counter() - t0
        out["polling"] = {
            **summary(samples),
            "per_s": n / wall,
            "cpu": _shares(cpu0, _cpu(pids), wall),
        }

        cpu0 = _cpu(pids)
        t0 = time.perf_counter()
        samples, rate = await unpaced(clients[: args.busy], args.seconds)
        wall = time.perf_counter() - t0
        out["saturation"] = {
            **summary(samples),
            "per_s": rate,
            "cpu": _shares(cpu0, _cpu(pids), wall),
        }
        stop.set()
        await beat
        out["heartbeat"] = {**summary(beats), "identities": len(filled)}
        for c in clients:
            await c.close()
    finally:
        stop.set()
        await redis.aclose()
    return out


def _cpu(pids: dict[str, int]) -> dict[str, int | None]:
    return {role: cpu_ticks(pid) for role, pid in pids.items()}


def _shares(
    before: dict[str, int | None], after: dict[str, int | None], wall: float
) -> dict[str, float | None]:
    """Each process's CPU use over ``wall`` seconds, as a share of one core."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float | None] = {}
    for role, b in before.items():
        a = after.get(role)
        out[role] = None if a is None or b is None else (a - b) / tick / wall
    return out


def report(r: dict[str, Any]) -> str:
    def line(label: str, m: dict[str, Any]) -> str:
        cpu = ", CPU (% of a core): " + ", ".join(
            f"{role} {share * 100:.0f}" for role, share in m["cpu"].items() if share is not None
        )
        if m["cpu"].get("server") and m["per_s"]:
            cpu += f"; server CPU per query {m['cpu']['server'] / m['per_s'] * 1000:.2f} ms"
        return (
            f"{label}: {m['n']} queries, {m['per_s']:.1f}/s; latency p50 "
            f"{m['p50_ms']:.1f} ms, p99 {m['p99_ms']:.1f} ms, max {m['max_ms']:.1f} ms{cpu}"
        )

    return "\n".join(
        [
            f"lobby with {r['listed_total']} online ({r['pollers']} real sockets, "
            f"the rest filled in "
            f"{r['fill_s']:.1f} s), {r['listed_tables']} public tables; sockets connected in "
            f"{r['connect_s']:.1f} s",
            line(
                f"polling ({r['pollers']} pages, one lobby query each every {POLL:g} s)",
                r["polling"],
            ),
            line(f"saturation ({r['busy']} clients, one query in flight each)", r["saturation"]),
            f"heartbeat refresh of {r['heartbeat']['identities']} online identities (every "
            f"{HEARTBEAT:g} s, as their processes would): p50 {r['heartbeat']['p50_ms']:.0f} ms, "
            f"max {r['heartbeat']['max_ms']:.0f} ms over {r['heartbeat']['n']} beats",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not 1 <= args.pollers <= args.online or not 1 <= args.busy <= args.pollers:
        print("need 1 <= --busy <= --pollers <= --online", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-lobby-") as tmp:
        launch = Launch(Path(tmp), redis_fsync="everysec")
        try:
            redis_url = launch.redis()
            url = launch.cardtable(redis_url=redis_url)
            pids = {p.role: p.popen.pid for p in launch.procs}
            pids["bench"] = os.getpid()
            result = asyncio.run(run(args, url, redis_url, pids))
        finally:
            launch.close()
    print(report(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
