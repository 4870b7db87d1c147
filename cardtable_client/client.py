"""A Python client for the table protocol, used by bots, the benchmark and the tests.

It speaks Socket.IO like the web page does, keeps the room as this seat sees it (applying deltas
strictly in version order, holding early ones, resyncing on a gap), and records every message it
receives so tests can check that nothing forbidden ever arrived. Every mutating event carries an
operation id (``opid``), and :meth:`TableClient.retrying` sends a refused-but-retryable one
again with the same id, as docs/protocol.md says, so it is never applied twice.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
from typing import Any

import socketio

from cardtable_client.patch import apply_patch

EVENTS = ("joined", "snapshot", "delta", "ack", "error")
MUTATING = frozenset({"op", "seat", "rename", "game", "host"})  # the events that take an opid


def new_opid() -> str:
    """A fresh operation id: 16 random characters of ``A-Za-z0-9_-``."""
    return secrets.token_urlsafe(12)


class OpFailed(Exception):
    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(f"{payload.get('code')}: {payload.get('message')}")
        self.code: str = payload.get("code", "")
        self.payload = payload


class TableClient:
    def __init__(self, url: str, *, record: bool = True, reconnect: bool = False) -> None:
        self.url = url
        # With ``reconnect``, a dropped connection retries by itself and, once back, rejoins
        # with the player token and the last version seen, like the web page does.
        self.sio = socketio.AsyncClient(
            reconnection=reconnect, reconnection_delay=0.2, reconnection_delay_max=1.0
        )
        self.reconnects = 0
        self.removed: dict[str, Any] | None = None
        self.sio.on("connect", self._on_connect)
        self.sio.on("removed", self._on_removed)
        self.record = record
        self.received: list[tuple[str, Any]] = []
        self.objects: dict[str, dict[str, Any]] = {}
        self.players: list[dict[str, Any]] = []
        self.former: list[dict[str, Any]] = []  # people who left and may come back
        self.game: dict[str, Any] | None = None  # the rule game's view for this seat
        self.version = -1
        self.code: str | None = None
        self.player: str | None = None
        self.token: str | None = None
        self.seat: int | None = None
        self.log: list[str] = []
        self._held: dict[int, dict[str, Any]] = {}
        self._refs = itertools.count(1)
        self._waiters: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Event()
        self._gap_task: asyncio.Future[None] | None = None
        self.errors: list[dict[str, Any]] = []
        for name in EVENTS:
            self.sio.on(name, self._make_handler(name))

    def _make_handler(self, name: str) -> Any:
        async def handler(data: Any) -> None:
            if self.record:
                self.received.append((name, data))
            getattr(self, f"_on_{name}")(data)
            self._changed.set()

        return handler

    # --- incoming ---------------------------------------------------------------------------

    def _on_joined(self, data: dict[str, Any]) -> None:
        self.code, self.player, self.token = data["code"], data["player"], data["token"]
        self.seat = data["seat"]
        self._resolve(data.get("ref"), data)

    def _on_snapshot(self, data: dict[str, Any]) -> None:
        self.objects = {o["id"]: o for o in data["objects"]}
        self.game = data.get("game")
        self._set_players(data["players"])
        self.former = data.get("former", [])
        self.version = data["v"]
        self._drain()

    def _set_players(self, players: list[dict[str, Any]]) -> None:
        self.players = players
        me = next((p for p in players if p["id"] == self.player), None)
        if me is not None:
            self.seat = me["seat"]

    def _on_delta(self, data: dict[str, Any]) -> None:
        v = data["v"]
        if v <= self.version:
            return
        self._held[v] = data
        self._drain()

    def _drain(self) -> None:
        if self.version < 0:
            return
        for v in [v for v in self._held if v <= self.version]:
            del self._held[v]
        while self.version + 1 in self._held:
            d = self._held.pop(self.version + 1)
            for obj in d["set"]:
                self.objects[obj["id"]] = obj
            for oid in d["del"]:
                self.objects.pop(oid, None)
            if "players" in d:
                self._set_players(d["players"])
                self.former = d.get("former", self.former)
            if "game" in d:
                self.game = d["game"]
            elif "game_patch" in d and self.game is not None:
                self.game = apply_patch(self.game, d["game_patch"])
            if d.get("log"):
                self.log.append(d["log"])
            self.version = d["v"]
        if self._held and self._gap_task is None:
            self._gap_task = asyncio.ensure_future(self._fill_gap(self.version))

    async def _fill_gap(self, stuck_at: int) -> None:
        """A delta is missing (it can race a seat change across processes): ask for it."""
        try:
            await asyncio.sleep(1.0)
            if self._held and self.version == stuck_at and self.sio.connected:
                await self.sio.emit("sync", {"since": self.version})
        finally:
            self._gap_task = None

    async def _on_connect(self) -> None:
        if self.token is not None and self.code is not None:
            self.reconnects += 1
            await self.sio.emit(
                "join", {"code": self.code, "token": self.token, "since": self.version}
            )

    def _on_removed(self, data: dict[str, Any]) -> None:
        if self.record:
            self.received.append(("removed", data))
        self.removed = data
        self._changed.set()

    def _on_ack(self, data: dict[str, Any]) -> None:
        self._resolve(data.get("ref"), data)

    def _on_error(self, data: dict[str, Any]) -> None:
        self.errors.append(data)
        fut = self._waiters.pop(data.get("ref"), None)
        if fut is not None and not fut.done():
            fut.set_exception(OpFailed(data))

    def _resolve(self, ref: Any, data: dict[str, Any]) -> None:
        fut = self._waiters.pop(ref, None)
        if fut is not None and not fut.done():
            fut.set_result(data)

    # --- outgoing ---------------------------------------------------------------------------

    async def connect(self) -> TableClient:
        await self.sio.connect(self.url, transports=["websocket"])
        return self

    async def request(
        self, event: str, payload: dict[str, Any], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Send one event and wait for its answer; a mutating event gets an ``opid`` unless the
        payload has one."""
        if event in MUTATING and "opid" not in payload:
            payload = {**payload, "opid": new_opid()}
        ref = next(self._refs)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[ref] = fut
        await self.sio.emit(event, {**payload, "ref": ref})
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._waiters.pop(ref, None)

    async def retrying(
        self, event: str, payload: dict[str, Any], tries: int = 10, rng: random.Random | None = None
    ) -> dict[str, Any]:
        """Send a mutating event until it is answered for good: after a ``retryable`` refusal
        (``unconfirmed``, ``unavailable``, a busy room, the rate limit) send the very same event,
        same ``opid``, again after a growing, jittered pause, up to ``tries`` times in all."""
        payload = {**payload, "opid": payload.get("opid") or new_opid()}
        rng = rng or random.Random()
        for attempt in range(1, tries + 1):
            try:
                return await self.request(event, payload)
            except OpFailed as err:
                if not err.payload.get("retryable") or attempt == tries:
                    raise
            await asyncio.sleep(rng.uniform(0, min(1.0, 0.05 * 2**attempt)))
        raise AssertionError("unreachable")

    async def join(self, code: str, name: str = "player", **extra: Any) -> dict[str, Any]:
        got = await self.request("join", {"code": code, "name": name, **extra})
        await self.wait_for(lambda: self.version >= 0)
        return got

    async def op(self, op: str, **fields: Any) -> dict[str, Any]:
        return await self.request("op", {"op": op, **fields})

    async def send_raw(self, event: str, payload: Any) -> None:
        await self.sio.emit(event, payload)

    async def wait_for(self, cond: Any, timeout: float = 10.0) -> None:
        async def loop() -> None:
            while not cond():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def wait_version(self, v: int, timeout: float = 10.0) -> None:
        await self.wait_for(lambda: self.version >= v, timeout)

    async def close(self) -> None:
        await self.sio.disconnect()

    # --- queries ----------------------------------------------------------------------------

    def hand(self, seat: int | None = None) -> list[str]:
        s = self.seat if seat is None else seat
        return list(self.objects[f"hand{s}"]["cards"])

    def hand_faces(self) -> dict[str, str]:
        """Face -> card id for the cards in this seat's hand (one id per face)."""
        return {self.objects[c]["face"]: c for c in self.hand() if "face" in self.objects[c]}

    def faces_seen(self) -> dict[str, str]:
        return {
            o["id"]: o["face"] for o in self.objects.values() if o["t"] == "card" and "face" in o
        }
