"""``python -m bench.games``: computer players play rule games through the server.

For each game (``--games spades,gin_rummy``) one server is started (``cardtable serve`` with the
computer players' pause at 0, see :mod:`bench.gameserver`), ``--rooms`` game rooms are created,
and in each a watcher joins as a spectator (so it is the host and holds no seat), seats a
computer in every seat (``host {action: "bot"}``) and starts the game. From then on the server
plays every seat: each engine action is one commit, sent to the watcher as one ``delta``. When a
deal or the game is over (the engines' computers never start the next deal: a person does) the
watcher chooses the game again and starts it, so the rooms keep playing.

Figures, over ``--seconds`` after ``--warmup``: engine actions per second (commits the server
made on its own; the watcher's host actions are not counted), the server's CPU ms per action
(from ``/proc``, robust to other load on the machine) and the store's.

    .venv/bin/python -m bench.games                        # spades and gin_rummy, 10 rooms each
    .venv/bin/python -m bench.games --games spades --rooms 20 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import socketio

from bench import use_uvloop
from bench.report import cpu_ticks
from bench.targets import Launch

TICK_MS = 10.0  # CLK_TCK is 100 on Linux
ENDS = {"deal_over", "hand_over", "game_over"}
STALL = 3.0  # seconds without a commit: start again (counted; Spades pauses 1 s per trick)


class Watcher:
    def __init__(self, url: str, code: str, game: str) -> None:
        self.url, self.code, self.game = url, code, game
        self.sio = socketio.AsyncClient(reconnection=False)
        self.refs = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any] | None]] = {}
        self.phase: str | None = None
        self.seats = 0
        self.version = 0
        self.last = time.monotonic()
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.commits = 0  # deltas received inside the window
        self.ours = 0  # of which our own host actions
        self.restarts = 0
        self.stalls = 0
        self.errors: list[str] = []
        self.sio.on("snapshot", self._snapshot)
        self.sio.on("delta", self._delta)
        self.sio.on("ack", lambda d: self._done(d.get("ref"), d))
        self.sio.on("joined", lambda d: self._done(d.get("ref"), d))
        self.sio.on("error", self._error)

    def _snapshot(self, d: dict[str, Any]) -> None:
        self.seats = int(d["seats"])
        self.version = int(d["v"])
        self._game(d.get("game"))

    def _delta(self, d: dict[str, Any]) -> None:
        t = self.last = time.monotonic()
        self.version = max(self.version, int(d["v"]))
        if self.window[0] <= t < self.window[1]:
            self.commits += 1
        if "game" in d:
            self._game(d["game"])

    def _game(self, g: dict[str, Any] | None) -> None:
        if g is not None:
            self.phase = g.get("phase")

    def _error(self, d: dict[str, Any]) -> None:
        self.errors.append(str(d.get("code")))
        self._done(d.get("ref"), None)

    def _done(self, ref: Any, d: dict[str, Any] | None) -> None:
        fut = self.waiting.pop(ref, None)
        if fut is not None and not fut.done():
            fut.set_result(d)

    async def request(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        ref = next(self.refs)
        fut = self.waiting[ref] = asyncio.get_running_loop().create_future()
        await self.sio.emit(event, {**payload, "ref": ref})
        return await asyncio.wait_for(fut, 10)

    async def host(self, **fields: Any) -> None:
        if await self.request("host", fields) is None:
            raise RuntimeError(f"host {fields} refused: {self.errors[-1:]}")
        if self.window[0] <= time.monotonic() < self.window[1]:
            self.ours += 1

    async def setup(self) -> None:
        await self.sio.connect(self.url, transports=["websocket"])
        if await self.request("join", {"code": self.code, "name": "watcher", "seat": None}) \
                is None:
            raise RuntimeError(f"join refused: {self.errors}")
        for _ in range(100):  # the snapshot follows the join
            if self.seats:
                break
            await asyncio.sleep(0.01)
        for seat in range(self.seats):
            await self.host(action="bot", seat=seat)
        if self.phase == "waiting":
            await self.host(action="start")

    async def keep_playing(self, until: float) -> None:
        while (t := time.monotonic()) < until:
            await asyncio.sleep(0.02)
            over = self.phase in ENDS
            if over or t - self.last > STALL:
                if not over:
                    self.stalls += 1
                self.restarts += 1
                self.phase = None
                self.last = time.monotonic()
                await self.host(action="game", game=self.game)
                if self.phase == "waiting":  # (the ack comes after our view of the change)
                    await self.host(action="start")


async def one_game(game: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-games-") as tmp:
        launch = Launch(Path(tmp))
        watchers: list[Watcher] = []
        try:
            redis_url = launch.redis() if args.store == "redis" else None
            url = launch.cardtable(redis_url=redis_url, bot_delay=0.0)
            roles = {p.popen.pid: p.role for p in launch.procs}
            async with aiohttp.ClientSession() as http:
                codes = []
                for _ in range(args.rooms):
                    async with http.post(f"{url}/api/rooms", json={"game": game}) as resp:
                        body = await resp.json()
                        if resp.status != 201:
                            raise RuntimeError(f"POST /api/rooms: {resp.status} {body}")
                        codes.append(body["code"])
            watchers = [Watcher(url, code, game) for code in codes]
            await asyncio.gather(*(w.setup() for w in watchers))
            start = time.monotonic() + args.warmup
            end = start + args.seconds
            for w in watchers:
                w.window = (start, end)
            play = asyncio.gather(*(w.keep_playing(end + 0.5) for w in watchers))
            await asyncio.sleep(max(0.0, start - time.monotonic()))
            ticks0 = {pid: cpu_ticks(pid) or 0 for pid in roles}
            await asyncio.sleep(max(0.0, end - time.monotonic()))
            ticks1 = {pid: cpu_ticks(pid) or 0 for pid in roles}
            await play
            for w in watchers:
                await w.sio.disconnect()
        finally:
            launch.close()
    actions = sum(w.commits - w.ours for w in watchers)
    cpu = {"server": 0.0, "store": 0.0}
    for pid, role in roles.items():
        cpu[role] = cpu.get(role, 0.0) + (ticks1[pid] - ticks0[pid]) * TICK_MS
    return {
        "game": game, "rooms": args.rooms, "actions_s": actions / args.seconds,
        "server_ms": cpu["server"] / actions if actions else None,
        # (the embedded store's redis-server is the server's child: not measured apart)
        "store_ms": cpu["store"] / actions if actions and "store" in roles.values() else None,
        "server_cpu_pct": cpu["server"] / args.seconds / 10,
        "restarts": sum(w.restarts for w in watchers), "stalls": sum(w.stalls for w in watchers),
        "errors": sum(len(w.errors) for w in watchers),
    }


async def run(args: argparse.Namespace) -> int:
    rows = [await one_game(g, args) for g in args.games]
    print(f"{args.rooms} rooms per game, every seat a computer (no pause), {args.seconds:g} s "
          f"after {args.warmup:g} s; store: {args.store}")
    print(f"{'game':<10}  {'actions/s':>9}  {'CPU% server':>11}  {'server ms/action':>16}  "
          f"{'store ms/action':>15}  {'deals restarted':>15}  {'stalls':>6}  {'errors':>6}")
    for r in rows:
        sm = "-" if r["server_ms"] is None else f"{r['server_ms']:.3f}"
        st = "-" if r["store_ms"] is None else f"{r['store_ms']:.3f}"
        print(f"{r['game']:<10}  {r['actions_s']:>9,.0f}  {r['server_cpu_pct']:>11.0f}  "
              f"{sm:>16}  {st:>15}  {r['restarts']:>15}  {r['stalls']:>6}  {r['errors']:>6}")
    return 1 if any(r["errors"] for r in rows) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.games",
                                 description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--games", default="spades,gin_rummy",
                    help="comma-separated game names (default spades,gin_rummy)")
    ap.add_argument("--rooms", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--store", choices=["embedded", "redis"], default="embedded")
    args = ap.parse_args(argv)
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    use_uvloop()
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
