"""A client process: many lean Socket.IO clients driven by the orchestrator over stdin/stdout.

The orchestrator (``python -m bench``) writes one JSON line per command and reads one JSON line
per answer:

* ``{"rooms": [{"code", "players": [{"url", "name"}]}], "wire", "protocol"}`` — connect every
  player (websocket; Socket.IO packets in ``wire``: ``json`` or ``msgpack``), ``join`` its room
  and ``create`` one loose face-up card it will move; answers ``{"ready": n}`` (or
  ``{"fatal": "..."}``). With ``protocol: "bgio"`` the players speak boardgame.io's events to
  its server instead (:class:`BgioClient`): ``sync`` joins the match (``code``) as player ``j``,
  whose card is ``card{j}``; a move is an ``update`` (``MAKE_MOVE moveCard [x, y]``); every
  ``update`` carries the match's whole state, and a move's "ack" is the first one in which the
  mover's card stands where it was sent, its "delta" for the others the same.
* ``{"cmd": "throughput" | "latency", "start", "warmup", "seconds", "grace", "rate"}`` — run a
  phase; ``start`` is a ``time.monotonic()`` instant (CLOCK_MONOTONIC is system-wide on Linux, so
  every process starts together); only what happens in ``[start + warmup, + seconds)`` counts.
  Answers ``{"moves", "sent", "deltas", "delta_bytes", "errors": {code: n}, "late": {...},
  "delta_us": [...], "ack_us": [...]}`` (``delta_bytes``: the websocket message bytes of the
  deltas counted in ``deltas``; ``late``: paced moves whose ack, or deltas to the other
  players, had not arrived ``grace`` seconds after the phase).
* ``{"cmd": "quit"}`` — disconnect everyone and exit.

All players of a room live in the same process, so the time a move was sent and the time the
room's other players receive its ``delta`` are read from the same clock and matched exactly: a
move is recognised in a delta by (card id, x, y), with x, y drawn at random.

The clients are deliberately leaner than :class:`cardtable_client.TableClient` (which records every
message and keeps the table): here a delta is counted and matched, nothing else, so client CPU
stays low next to the server's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import socketio
from socketio.msgpack_packet import MsgPackPacket

from bench import use_uvloop

MAX_OUTSTANDING = 10  # paced: a client with this many unacknowledged moves skips its next one
OP_TIMEOUT = 5.0  # an unpaced client gives up on an ack after this long (counted as an error)
SETUP_TIMEOUT = 20.0
now = time.monotonic


@dataclass
class Phase:
    name: str
    start: float
    ws: float  # window start
    we: float  # window end
    moves: int = 0  # acks received in the window
    sent: int = 0  # moves sent in the window
    deltas: int = 0  # delta events received in the window, every client
    delta_bytes: int = 0  # their size as websocket messages
    errors: Counter[str] = field(default_factory=Counter)
    late: Counter[str] = field(default_factory=Counter)  # paced: still unanswered after grace
    delta_lat: list[float] = field(default_factory=list)  # send -> another player's delta
    ack_lat: list[float] = field(default_factory=list)  # send -> the sender's ack

    def result(self) -> dict[str, Any]:
        return {
            "phase": self.name,
            "moves": self.moves,
            "sent": self.sent,
            "deltas": self.deltas,
            "delta_bytes": self.delta_bytes,
            "errors": dict(self.errors),
            "late": dict(self.late),
            "delta_us": [round(x * 1e6) for x in self.delta_lat],
            "ack_us": [round(x * 1e6) for x in self.ack_lat],
        }


class Room:
    def __init__(self, code: str, rng: random.Random) -> None:
        self.code = code
        self.rng = rng
        self.clients: list[Client] = []
        # (card id, x, y) -> [send time, deltas received by the other players]
        self.sent: dict[tuple[str, float, float], list[float]] = {}

    def point(self) -> tuple[float, float]:
        r = self.rng
        return round(r.uniform(0, 1490), 2), round(r.uniform(0, 850), 2)


class SizedClient(socketio.AsyncClient):
    """python-socketio's client, which remembers the size of the message being handled."""

    frame_bytes = 0

    async def _handle_eio_message(self, data: Any) -> None:
        # A text message is Engine.IO's "4" and the packet; a binary one the packet alone.
        self.frame_bytes = len(data) if isinstance(data, bytes) else len(data.encode()) + 1
        await super()._handle_eio_message(data)


class Client:
    def __init__(
        self, worker: Worker, room: Room, url: str, name: str, face: str, wire: str = "json"
    ) -> None:
        self.worker = worker
        self.face = face
        self.room = room
        self.url = url
        self.name = name
        self.sio = SizedClient(reconnection=False)
        if wire == "msgpack":
            self.sio.packet_class = MsgPackPacket
        self.player: str | None = None
        self.card: str | None = None
        self.snapshot = asyncio.Event()
        self.refs = itertools.count(1)
        # ref -> (send time, future resolved with True on ack / False on error, or None)
        self.pending: dict[int, tuple[float, asyncio.Future[bool] | None]] = {}
        for event in ("joined", "snapshot", "delta", "ack", "error", "disconnect"):
            self.sio.on(event, getattr(self, f"_on_{event}"))

    # --- incoming (plain functions: python-socketio calls them without a task) -------------

    def _on_joined(self, data: dict[str, Any]) -> None:
        self.player = data["player"]
        self._resolve(data.get("ref"), True)

    def _on_snapshot(self, data: dict[str, Any]) -> None:
        self.snapshot.set()

    def _on_delta(self, d: dict[str, Any]) -> None:
        t = now()
        ph = self.worker.phase
        if ph is None:  # setup: learn the id of the card we created
            if d.get("by") == self.player and self.card is None:
                for obj in d["set"]:
                    if obj.get("t") == "card":
                        self.card = obj["id"]
            return
        if ph.ws <= t < ph.we:
            ph.deltas += 1
            ph.delta_bytes += self.sio.frame_bytes
        if ph.name == "latency" and d.get("by") != self.player:
            sent = self.room.sent
            for obj in d["set"]:
                entry = sent.get((obj["id"], obj.get("x"), obj.get("y")))
                if entry is not None:
                    entry[1] += 1
                    if ph.ws <= entry[0] < ph.we:
                        ph.delta_lat.append(t - entry[0])

    def _on_ack(self, data: dict[str, Any]) -> None:
        t = now()
        entry = self.pending.pop(data.get("ref"), None)  # type: ignore[arg-type]
        if entry is None:
            return
        t_sent, fut = entry
        ph = self.worker.phase
        if ph is not None:
            if ph.ws <= t < ph.we:
                ph.moves += 1
            if ph.name == "latency" and ph.ws <= t_sent < ph.we:
                ph.ack_lat.append(t - t_sent)
        if fut is not None and not fut.done():
            fut.set_result(True)

    def _on_error(self, data: dict[str, Any]) -> None:
        code = str(data.get("code"))
        ph = self.worker.phase
        if ph is not None:
            ph.errors[code] += 1
        else:
            self.worker.setup_errors[code] += 1
        entry = self.pending.pop(data.get("ref"), None)  # type: ignore[arg-type]
        if entry is not None and entry[1] is not None and not entry[1].done():
            entry[1].set_result(False)

    def _on_disconnect(self, *args: Any) -> None:
        if not self.worker.quitting:
            ph = self.worker.phase
            (ph.errors if ph is not None else self.worker.setup_errors)["disconnected"] += 1

    def _resolve(self, ref: Any, ok: bool) -> None:
        entry = self.pending.pop(ref, None)
        if entry is not None and entry[1] is not None and not entry[1].done():
            entry[1].set_result(ok)

    # --- outgoing ---------------------------------------------------------------------------

    async def _request(self, event: str, payload: dict[str, Any]) -> bool:
        ref = next(self.refs)
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.pending[ref] = (now(), fut)
        await self.sio.emit(event, {**payload, "ref": ref})
        return await asyncio.wait_for(fut, SETUP_TIMEOUT)

    async def setup(self) -> None:
        x, y = self.room.point()
        await self.sio.connect(self.url, transports=["websocket"], wait_timeout=SETUP_TIMEOUT)
        if not await self._request("join", {"code": self.room.code, "name": self.name}):
            raise RuntimeError(f"{self.name}: join refused {dict(self.worker.setup_errors)}")
        await asyncio.wait_for(self.snapshot.wait(), SETUP_TIMEOUT)
        if not await self._request(
            "op", {"op": "create", "kind": "card", "faces": [self.face], "up": True, "x": x, "y": y}
        ):
            raise RuntimeError(f"{self.name}: create refused {dict(self.worker.setup_errors)}")
        # The delta is broadcast before the ack, on the same connection: it is here already.
        if self.card is None:
            raise RuntimeError(f"{self.name}: no delta for the card it created")

    async def _send_move(self, ref: int, x: float, y: float) -> None:
        await self.sio.emit("op", {"op": "move", "id": self.card, "x": x, "y": y, "ref": ref})

    async def unpaced(self, ph: Phase) -> None:
        """One move in flight: send the next as soon as the previous one is acknowledged."""
        loop = asyncio.get_running_loop()
        while (t := now()) < ph.we:
            ref = next(self.refs)
            x, y = self.room.point()
            fut: asyncio.Future[bool] = loop.create_future()
            self.pending[ref] = (t, fut)
            if t >= ph.ws:
                ph.sent += 1
            await self._send_move(ref, x, y)
            try:
                ok = await asyncio.wait_for(fut, OP_TIMEOUT)
            except TimeoutError:
                self.pending.pop(ref, None)
                ph.errors["timeout"] += 1
                continue
            if not ok:
                await asyncio.sleep(0.01)  # e.g. rate_limited: don't spin

    async def paced(self, ph: Phase, interval: float, offset: float) -> None:
        """Open loop: a move every ``interval`` seconds whatever the acks do (up to a bound on
        unacknowledged moves, so an overloaded server's backlog stays finite)."""
        due = ph.start + offset
        while due < ph.we:
            delay = due - now()
            if delay > 0:
                await asyncio.sleep(delay)
            t = now()
            due += interval
            if len(self.pending) >= MAX_OUTSTANDING:
                if t >= ph.ws:
                    ph.late["skipped"] += 1
                continue
            ref = next(self.refs)
            x, y = self.room.point()
            self.room.sent[(self.card or "", x, y)] = [t, 0]
            self.pending[ref] = (t, None)
            if t >= ph.ws:
                ph.sent += 1
            await self._send_move(ref, x, y)


BGIO_NSP = "/cardbench"  # boardgame.io's namespace: the game's name (bench/bgio/server.js)


class BgioClient(Client):
    """A player of the boardgame.io anchor: the same moves and measurements as :class:`Client`,
    in boardgame.io's events. Every ``update`` holds the match's whole state: each card whose
    place changed since this client's last one is a move arriving (the mover's own: its ack)."""

    def __init__(self, worker: Worker, room: Room, url: str, name: str, seat: int) -> None:
        super().__init__(worker, room, url, name, "")
        self.sio = SizedClient(reconnection=False)
        self.seat = str(seat)
        self.card = f"card{seat}"
        self.state_id = 0
        self.synced = asyncio.Event()
        self.places: dict[str, tuple[float, float]] = {}  # card -> where the last update had it
        self.by_place: dict[tuple[float, float], int] = {}  # a sent move's x, y -> its ref
        self.sio.on("sync", self._on_sync, namespace=BGIO_NSP)
        self.sio.on("update", self._on_update, namespace=BGIO_NSP)
        self.sio.on("disconnect", self._on_disconnect, namespace=BGIO_NSP)

    def _on_sync(self, match_id: str, info: dict[str, Any]) -> None:
        state = info["state"]
        self.state_id = state["_stateID"]
        self.places = {c: (o["x"], o["y"]) for c, o in state["G"]["cards"].items()}
        self.synced.set()

    def _on_update(self, match_id: str, state: dict[str, Any], *rest: Any) -> None:
        t = now()
        self.state_id = state["_stateID"]
        ph = self.worker.phase
        if ph is not None and ph.ws <= t < ph.we:
            ph.deltas += 1
            ph.delta_bytes += self.sio.frame_bytes
        for cid, obj in state["G"]["cards"].items():
            place = (obj["x"], obj["y"])
            if self.places.get(cid) == place:
                continue
            self.places[cid] = place
            if cid == self.card:
                ref = self.by_place.pop(place, None)
                if ref is not None:
                    self._on_ack({"ref": ref})
            elif ph is not None and ph.name == "latency":
                entry = self.room.sent.get((cid, *place))
                if entry is not None:
                    entry[1] += 1
                    if ph.ws <= entry[0] < ph.we:
                        ph.delta_lat.append(t - entry[0])

    async def setup(self) -> None:
        await self.sio.connect(
            self.url, namespaces=[BGIO_NSP], transports=["websocket"], wait_timeout=SETUP_TIMEOUT
        )
        players = len(self.room.clients)
        await self.sio.emit("sync", (self.room.code, self.seat, None, players), namespace=BGIO_NSP)
        await asyncio.wait_for(self.synced.wait(), SETUP_TIMEOUT)

    async def _send_move(self, ref: int, x: float, y: float) -> None:
        self.by_place[(x, y)] = ref
        action = {
            "type": "MAKE_MOVE",
            "payload": {"type": "moveCard", "args": [x, y], "playerID": self.seat},
        }
        await self.sio.emit(
            "update", (action, self.state_id, self.room.code, self.seat), namespace=BGIO_NSP
        )


class Worker:
    def __init__(self) -> None:
        self.rooms: list[Room] = []
        self.clients: list[Client] = []
        self.phase: Phase | None = None
        self.setup_errors: Counter[str] = Counter()
        self.quitting = False

    async def setup(self, spec: dict[str, Any]) -> None:
        rng = random.Random(spec.get("seed"))
        wire, bgio = spec.get("wire", "json"), spec.get("protocol") == "bgio"
        for room_spec in spec["rooms"]:
            room = Room(room_spec["code"], random.Random(rng.random()))
            for k, p in enumerate(room_spec["players"]):
                face = f"{'HSDC'[k % 4]}{k // 4 % 13 + 1}"
                client: Client = (
                    BgioClient(self, room, p["url"], p["name"], k)
                    if bgio
                    else Client(self, room, p["url"], p["name"], face, wire)
                )
                room.clients.append(client)
                self.clients.append(client)
            self.rooms.append(room)
        # Thousands of players: a few joins at a time. A join in flight holds a place in the
        # server's per-address window of unknown-code lookups (10 at once by default), and
        # every bench client is 127.0.0.1: the orchestrator splits 8 places between processes.
        gate = asyncio.Semaphore(int(spec.get("joins_at_once", 64)))

        async def one(c: Client) -> None:
            async with gate:
                await c.setup()

        await asyncio.gather(*(one(c) for c in self.clients))

    async def run(self, cmd: dict[str, Any]) -> dict[str, Any]:
        start = float(cmd["start"])
        ws = start + float(cmd["warmup"])
        ph = Phase(cmd["cmd"], start, ws, ws + float(cmd["seconds"]))
        for room in self.rooms:
            room.sent.clear()
        for c in self.clients:
            c.pending.clear()
        delay = start - now()
        if delay > 0:
            await asyncio.sleep(delay)
        self.phase = ph
        if ph.name == "throughput":
            await asyncio.gather(*(c.unpaced(ph) for c in self.clients))
        else:
            rate = float(cmd["rate"])  # moves per second per room
            tasks = []
            for room in self.rooms:
                n = len(room.clients)
                interval = n / rate
                base = room.rng.random()
                for k, c in enumerate(room.clients):
                    tasks.append(c.paced(ph, interval, ((base + k / n) % 1.0) * interval))
            await asyncio.gather(*tasks)
            deadline = now() + float(cmd["grace"])
            while any(c.pending for c in self.clients) and now() < deadline:
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.2)  # the last deltas to the other players
            for c in self.clients:
                lost = sum(1 for t, _ in c.pending.values() if ph.ws <= t < ph.we)
                if lost:
                    ph.late["no_ack"] += lost
            for room in self.rooms:
                others = len(room.clients) - 1
                missing = sum(
                    others - got
                    for t, got in room.sent.values()
                    if ph.ws <= t < ph.we and got < others
                )
                if missing:
                    ph.late["no_delta"] += int(missing)
        self.phase = None
        return ph.result()

    async def close(self) -> None:
        self.quitting = True
        await asyncio.gather(
            *(asyncio.wait_for(c.sio.disconnect(), 5) for c in self.clients), return_exceptions=True
        )


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def serve() -> int:
    loop = asyncio.get_running_loop()

    async def read() -> dict[str, Any]:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return {"cmd": "quit"}
        got: dict[str, Any] = json.loads(line)
        return got

    worker = Worker()
    try:
        try:
            spec = await read()
            await asyncio.wait_for(
                worker.setup(spec), float(spec.get("setup_timeout", SETUP_TIMEOUT * 2))
            )
        except Exception as exc:  # report, then clean up below
            emit(
                {
                    "fatal": f"setup failed: {type(exc).__name__}: {exc}",
                    "errors": dict(worker.setup_errors),
                }
            )
            return 1
        emit({"ready": len(worker.clients), "errors": dict(worker.setup_errors)})
        while True:
            cmd = await read()
            if cmd.get("cmd") == "quit":
                return 0
            emit(await worker.run(cmd))
    finally:
        await worker.close()


def main() -> int:
    use_uvloop()
    return asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
