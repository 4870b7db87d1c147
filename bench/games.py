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
    .venv/bin/python -m bench.games --phases watched      # people watching, beside table moves

The ``watched`` phase (``--phases computers,watched``, the default runs both) is a room as
people use it: in each of ``--rooms`` game rooms a scripted person sits in seat 0 and plays a
random legal action whenever it may act (starting the next deal too), computers play the
other seats and a spectator watches, so every view (each seat's and the spectators') is built
and sent. In the same server, before the game rooms, ``--table-rooms`` free-play rooms of four
players and a spectator move cards (each player one ``op move`` in flight); after the game
rooms, as many fresh free-play rooms move cards again, paced to the game phase's actions a
second (each player one move per ``4 * table_rooms / rate`` seconds), since a table move costs
the server more at a lower load. The server's CPU per game action is printed beside its CPU per
table move, both unpaced and paced, and the ratio to each: the paced one compares like with
like.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import socketio

from bench import use_uvloop
from bench.report import cpu_ticks
from bench.targets import Launch
from cardtable_client import apply_patch

TICK_MS = 10.0  # CLK_TCK is 100 on Linux
ENDS = {"deal_over", "hand_over", "game_over"}
STALL = 3.0


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
        elif "game_patch" in d:
            self._game(d["game_patch"].get("set"))

    def _game(self, g: dict[str, Any] | None) -> None:
        if g is not None and "phase" in g:
            self.phase = g["phase"]

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
        if await self.request("join", {"code": self.code, "name": "watcher", "seat": None}) is None:
            raise RuntimeError(f"join refused: {self.errors}")
        for _ in range(100):  # the snapshot follows the join
            if self.seats:
                break
            await asyncio.sleep(0.01)
        for seat in range(self.seats):
            await self.host(action="bot", seat=seat)
        if self.phase == "waiting":
            await self.host(action="start")

    async def keep_playing(self, until: float, person_deals: bool = False) -> None:
        """Choose the game again when it is over (or stalled); with ``person_deals`` a person
        at the table starts each next deal, so only the game's end restarts it."""
        ends = {"game_over"} if person_deals else ENDS
        self.last = time.monotonic()
        while (t := time.monotonic()) < until:
            await asyncio.sleep(0.02)
            over = self.phase in ends
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
        "game": game,
        "rooms": args.rooms,
        "actions_s": actions / args.seconds,
        "server_ms": cpu["server"] / actions if actions else None,
        # (the embedded store's redis-server is the server's child: not measured apart)
        "store_ms": cpu["store"] / actions if actions and "store" in roles.values() else None,
        "server_cpu_pct": cpu["server"] / args.seconds / 10,
        "restarts": sum(w.restarts for w in watchers),
        "stalls": sum(w.stalls for w in watchers),
        "errors": sum(len(w.errors) for w in watchers),
    }


class Person:
    """A scripted person in seat ``seat``: whenever the game view offers it legal actions and
    nothing of its own is in flight, it sends one of them, chosen at random."""

    def __init__(self, url: str, code: str, seat: int, rng: random.Random) -> None:
        self.url, self.code, self.seat, self.rng = url, code, seat, rng
        self.sio = socketio.AsyncClient(reconnection=False)
        self.refs = itertools.count(1)
        self.legal: list[dict[str, Any]] = []
        self.busy = False
        self.playing = False
        self.actions = 0  # acknowledged inside the window
        self.refused = 0
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.game: dict[str, Any] | None = None
        self.sio.on("snapshot", lambda d: self._game(d.get("game")))
        self.sio.on("delta", self._delta)
        self.sio.on("ack", self._ack)
        self.sio.on("joined", lambda d: None)
        self.sio.on("error", self._error)

    def _delta(self, d: dict[str, Any]) -> None:
        if "game" in d:
            self._game(d["game"])
        elif "game_patch" in d and self.game is not None:
            self._game(apply_patch(self.game, d["game_patch"]))

    def _game(self, g: dict[str, Any] | None) -> None:
        self.game = g
        self.legal = list(g.get("legal") or []) if g is not None else []
        self._next()

    def _next(self) -> None:
        if self.playing and not self.busy and self.legal:
            self.busy = True
            action = self.rng.choice(self.legal)
            asyncio.get_running_loop().create_task(
                self.sio.emit("game", {"action": action, "ref": next(self.refs)})
            )

    def _ack(self, d: dict[str, Any]) -> None:
        if d.get("v") is None:
            return
        if self.window[0] <= time.monotonic() < self.window[1]:
            self.actions += 1
        self.busy = False
        self._next()

    def _error(self, d: dict[str, Any]) -> None:
        self.refused += 1  # a stale choice (the state moved on before it arrived)
        self.busy = False
        self._next()

    async def setup(self) -> None:
        await self.sio.connect(self.url, transports=["websocket"])
        await self.sio.emit("join", {"code": self.code, "name": "person", "seat": self.seat})


class Mover:
    """A free-play player: one loose card of its own, one ``op move`` of it in flight."""

    def __init__(self, url: str, code: str, face: str, rng: random.Random) -> None:
        self.url, self.code, self.face, self.rng = url, code, face, rng
        self.sio = socketio.AsyncClient(reconnection=False)
        self.refs = itertools.count(1)
        self.player: str | None = None
        self.card: str | None = None
        self.made: list[tuple[str, str]] = []  # (by, id) of cards created, during the setup
        self.got: asyncio.Future[bool] | None = None
        self.moves = 0  # acknowledged inside the window
        self.errors: list[str] = []
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.snapshot = asyncio.Event()
        self.sio.on("joined", self._joined)
        self.sio.on("snapshot", lambda d: self.snapshot.set())
        self.sio.on("delta", self._delta)
        self.sio.on("ack", lambda d: self._done(True))
        self.sio.on("error", self._error)

    def _joined(self, d: dict[str, Any]) -> None:
        self.player = d["player"]["id"] if isinstance(d.get("player"), dict) else d.get("player")
        self._done(True)

    def _delta(self, d: dict[str, Any]) -> None:
        if self.card is None:  # (the client may run this before or after the join's handler)
            self.made.extend((str(d.get("by")), o["id"]) for o in d["set"] if o.get("t") == "card")

    def _error(self, d: dict[str, Any]) -> None:
        self.errors.append(str(d.get("code")))
        self._done(False)

    def _done(self, ok: bool) -> None:
        if self.got is not None and not self.got.done():
            self.got.set_result(ok)

    async def request(self, event: str, payload: dict[str, Any]) -> bool:
        self.got = asyncio.get_running_loop().create_future()
        await self.sio.emit(event, {**payload, "ref": next(self.refs)})
        return await asyncio.wait_for(self.got, 10)

    async def setup(self) -> None:
        await self.sio.connect(self.url, transports=["websocket"])
        if not await self.request("join", {"code": self.code, "name": self.face}):
            raise RuntimeError(f"join refused: {self.errors}")
        await asyncio.wait_for(self.snapshot.wait(), 10)  # (else the card may come in it)
        if not await self.request(
            "op",
            {
                "op": "create",
                "kind": "card",
                "faces": [self.face],
                "up": True,
                "x": 100.0,
                "y": 100.0,
            },
        ):
            raise RuntimeError(f"create refused: {self.errors}")
        for _ in range(500):  # (the client may run the delta's handler after the ack's)
            mine = [cid for by, cid in self.made if by == self.player]
            if mine:
                self.card = mine[0]
                return
            await asyncio.sleep(0.01)
        raise RuntimeError(f"no delta for the card it created: {self.player} {self.made}")

    async def keep_moving(self, until: float, every: float | None = None) -> None:
        """Move the card until ``until``: as fast as the acks come back, or (``every``, in
        seconds: a paced run) one move per ``every`` on average, from a random phase; with one
        move in flight, a move whose slot passed while waiting for an ack goes at once."""
        due = time.monotonic() + (self.rng.uniform(0, every) if every else 0.0)
        while time.monotonic() < until:
            if every:
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                due += every  # (a late ack's slot is made up by the next move's)
            ok = await self.request(
                "op",
                {
                    "op": "move",
                    "id": self.card,
                    "x": self.rng.uniform(0, 1500),
                    "y": self.rng.uniform(0, 900),
                },
            )
            if ok and self.window[0] <= time.monotonic() < self.window[1]:
                self.moves += 1


async def _measured(
    roles: dict[int, str],
    args: argparse.Namespace,
    clients: list[Any],
    play: Callable[[float], Awaitable[Any]],
) -> dict[str, float]:
    """Run ``play(until)`` on ``clients`` and return each role's CPU ms over the window."""
    start = time.monotonic() + args.warmup
    end = start + args.seconds
    for c in clients:
        c.window = (start, end)
    task = asyncio.ensure_future(play(end + 0.5))
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    ticks0 = {pid: cpu_ticks(pid) or 0 for pid in roles}
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    ticks1 = {pid: cpu_ticks(pid) or 0 for pid in roles}
    await task
    cpu = {"server": 0.0, "store": 0.0}
    for pid, role in roles.items():
        cpu[role] = cpu.get(role, 0.0) + (ticks1[pid] - ticks0[pid]) * TICK_MS
    return cpu


async def watched(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """Free-play table moves, then a game with a person, computers and a spectator in each
    room, on one server: CPU per table move and per game action, measured in the same run."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="bench-watched-") as tmp:
        launch = Launch(Path(tmp))
        clients: list[Any] = []
        try:
            redis_url = launch.redis() if args.store == "redis" else None
            url = launch.cardtable(redis_url=redis_url, bot_delay=0.0)
            roles = {p.popen.pid: p.role for p in launch.procs}
            async with aiohttp.ClientSession() as http:

                async def room(body: dict[str, Any]) -> str:
                    async with http.post(f"{url}/api/rooms", json=body) as resp:
                        got = await resp.json()
                        if resp.status != 201:
                            raise RuntimeError(f"POST /api/rooms: {resp.status} {got}")
                        return str(got["code"])

                # The main bench's rooms: the standard deck, every player may add objects.
                layout = json.loads(
                    (
                        Path(__file__).parent.parent
                        / "server"
                        / "homemade"
                        / "library"
                        / "standard.json"
                    ).read_text()
                )
                layout.update(seats=4, edit="all")
                table_codes = [await room({"game_file": layout}) for _ in range(args.table_rooms)]
                paced_codes = [await room({"game_file": layout}) for _ in range(args.table_rooms)]
                game_codes = [await room({"game": game}) for _ in range(args.rooms)]
            # Free play, as fast as it goes: four movers and a spectator per room.
            free = await _free_play(url, table_codes, rng, roles, args, None)
            # The game rooms: the spectator is the host; a person in seat 0, computers elsewhere.
            watchers = [Watcher(url, code, game) for code in game_codes]
            people = [Person(url, code, 0, rng) for code in game_codes]
            clients += watchers + people
            for w, p in zip(watchers, people, strict=True):
                await w.sio.connect(url, transports=["websocket"])
                if (
                    await w.request("join", {"code": w.code, "name": "watcher", "seat": None})
                    is None
                ):
                    raise RuntimeError(f"join refused: {w.errors}")
                await p.setup()
            for w in watchers:
                for _ in range(100):
                    if w.seats:
                        break
                    await asyncio.sleep(0.01)
                for seat in range(1, w.seats):
                    await w.host(action="bot", seat=seat)
            for p in people:
                p.playing = True
                p._next()  # (the game may have started as the last computer sat down)
            for w in watchers:
                if w.phase == "waiting":
                    await w.host(action="start")
            cpu_g = await _measured(
                roles,
                args,
                watchers + people,
                lambda until: asyncio.gather(
                    *(w.keep_playing(until, person_deals=True) for w in watchers)
                ),
            )
            for c in clients:
                await c.sio.disconnect()
            clients = []
            actions = sum(w.commits - w.ours for w in watchers)
            # Free play again, paced to the game's actions a second (in fresh rooms): the
            # server's per-event cost depends on its load, so this is the like-for-like move.
            rate = actions / args.seconds
            every = 4 * args.table_rooms / rate if rate else None
            paced = await _free_play(url, paced_codes, rng, roles, args, every)
        finally:
            launch.close()
    action_ms = cpu_g["server"] / actions if actions else None
    move_ms, paced_ms = free["ms"], paced["ms"]
    return {
        "game": game,
        "rooms": args.rooms,
        "table_rooms": args.table_rooms,
        "moves_s": free["moves_s"],
        "move_ms": move_ms,
        "paced_s": paced["moves_s"],
        "paced_ms": paced_ms,
        "actions_s": actions / args.seconds,
        "action_ms": action_ms,
        "person_s": sum(p.actions for p in people) / args.seconds,
        "ratio": action_ms / move_ms if action_ms and move_ms else None,
        "paced_ratio": action_ms / paced_ms if action_ms and paced_ms else None,
        "restarts": sum(w.restarts for w in watchers),
        "stalls": sum(w.stalls for w in watchers),
        "refused": sum(p.refused for p in people),
        "errors": sum(len(w.errors) for w in watchers) + free["errors"] + paced["errors"],
        "codes": sorted(
            {f"game:{c}" for w in watchers for c in w.errors} | free["codes"] | paced["codes"]
        ),
    }


async def _free_play(
    url: str,
    codes: list[str],
    rng: random.Random,
    roles: dict[int, str],
    args: argparse.Namespace,
    every: float | None,
) -> dict[str, Any]:
    """Four movers and a spectator in each free-play room of ``codes``, each mover moving its
    card as fast as the acks come back (``every`` None) or once per ``every`` seconds: the
    moves a second, the server's CPU ms per move, the refusals."""
    movers = [Mover(url, code, face, rng) for code in codes for face in ("AS", "KH", "QD", "JC")]
    spectators = [Watcher(url, code, "") for code in codes]
    try:
        for m in movers:
            await m.setup()
        for w in spectators:
            await w.sio.connect(url, transports=["websocket"])
            await w.request("join", {"code": w.code, "name": "watcher", "seat": None})
        cpu = await _measured(
            roles,
            args,
            movers,
            lambda until: asyncio.gather(*(m.keep_moving(until, every) for m in movers)),
        )
    finally:
        for c in [*movers, *spectators]:
            await c.sio.disconnect()
    moves = sum(m.moves for m in movers)
    return {
        "moves_s": moves / args.seconds,
        "ms": cpu["server"] / moves if moves else None,
        "errors": sum(len(m.errors) for m in movers),
        "codes": {f"table:{c}" for m in movers for c in m.errors},
    }


def _print_watched(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"people watching: {args.table_rooms} free-play rooms (4 players moving cards + a "
        f"spectator), then {args.rooms} game rooms (a person in seat 0, computers elsewhere, "
        f"a spectator), then {args.table_rooms} free-play rooms again, paced to the game's "
        f"actions/s; {args.seconds:g} s each after {args.warmup:g} s; store: {args.store}"
    )
    print(
        f"{'game':<10}  {'table moves/s':>13}  {'server ms/move':>14}  {'paced moves/s':>13}  "
        f"{'paced ms/move':>13}  {'actions/s':>9}  {'person/s':>8}  {'server ms/action':>16}  "
        f"{'action/move':>11}  {'action/paced':>12}  {'restarts':>8}  {'refused':>7}  "
        f"{'stalls':>6}  {'errors':>6}"
    )

    def fig(x: float | None, spec: str, unit: str = "") -> str:
        return "-" if x is None else f"{x:{spec}}{unit}"

    for r in rows:
        print(
            f"{r['game']:<10}  {r['moves_s']:>13,.0f}  {fig(r['move_ms'], '.3f'):>14}  "
            f"{r['paced_s']:>13,.0f}  {fig(r['paced_ms'], '.3f'):>13}  {r['actions_s']:>9,.0f}  "
            f"{r['person_s']:>8,.0f}  {fig(r['action_ms'], '.3f'):>16}  "
            f"{fig(r['ratio'], '.2f', 'x'):>11}  {fig(r['paced_ratio'], '.2f', 'x'):>12}  "
            f"{r['restarts']:>8}  {r['refused']:>7}  {r['stalls']:>6}  {r['errors']:>6}  "
            f"{' '.join(r['codes'])}"
        )


async def run(args: argparse.Namespace) -> int:
    failed = False
    if "watched" in args.phases:
        wrows = [await watched(g, args) for g in args.games]
        _print_watched(wrows, args)
        failed = failed or any(r["errors"] for r in wrows)
    if "computers" not in args.phases:
        return 1 if failed else 0
    rows = [await one_game(g, args) for g in args.games]
    print(
        f"{args.rooms} rooms per game, every seat a computer (no pause), {args.seconds:g} s "
        f"after {args.warmup:g} s; store: {args.store}"
    )
    print(
        f"{'game':<10}  {'actions/s':>9}  {'CPU% server':>11}  {'server ms/action':>16}  "
        f"{'store ms/action':>15}  {'deals restarted':>15}  {'stalls':>6}  {'errors':>6}"
    )
    for r in rows:
        sm = "-" if r["server_ms"] is None else f"{r['server_ms']:.3f}"
        st = "-" if r["store_ms"] is None else f"{r['store_ms']:.3f}"
        print(
            f"{r['game']:<10}  {r['actions_s']:>9,.0f}  {r['server_cpu_pct']:>11.0f}  "
            f"{sm:>16}  {st:>15}  {r['restarts']:>15}  {r['stalls']:>6}  {r['errors']:>6}"
        )
    return 1 if failed or any(r["errors"] for r in rows) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.games", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument(
        "--games",
        default="spades,gin_rummy",
        help="comma-separated game names (default spades,gin_rummy)",
    )
    ap.add_argument("--rooms", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--store", choices=["embedded", "redis"], default="embedded")
    ap.add_argument(
        "--phases",
        default="computers,watched",
        help="computers (every seat a computer), watched (a person, computers and "
        "a spectator, beside free-play table moves); default both",
    )
    ap.add_argument(
        "--table-rooms",
        type=int,
        default=10,
        help="free-play rooms of the watched phase (default 10)",
    )
    args = ap.parse_args(argv)
    args.phases = {p.strip() for p in args.phases.split(",") if p.strip()}
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    use_uvloop()
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
