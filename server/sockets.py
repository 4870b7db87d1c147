"""Socket.IO handlers: validate every event, call the room service, fan deltas out per view.

Each connection joins exactly one Socket.IO room per table view (``CODE/s0``, ``CODE/spec``...),
so a delta built for a seat only ever reaches that seat's connections. Handlers never raise:
every failure becomes one ``error {code, message, ref}`` event and the connection stays.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import socketio

from server import codes
from server.config import Config
from server.errors import BAD_REQUEST, INTERNAL, NOT_JOINED, ROOM_NOT_FOUND, CardtableError
from server.limits import TokenBucket, check_payload
from server.rooms import ALL, SPEC, Commit, RoomService, room_snapshot, view_key
from server.table.ops import parse_op
from server.wire import MALFORMED

log = logging.getLogger("cardtable.sockets")
DRAG_RATE = 20.0  # drag updates relayed per connection per second; the rest are dropped


def _ref(data: Any) -> int | str | None:
    """The client's ``ref`` to echo, if it is a sane one."""
    ref = data.get("ref") if isinstance(data, dict) else None
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        return None
    if isinstance(ref, str) and len(ref) > 64:
        return None
    return ref


@dataclass
class Session:
    addr: str
    bucket: TokenBucket
    code: str | None = None
    player_id: str | None = None
    seat: int | None = None
    last_drag: float = 0.0

    @property
    def member(self) -> str:
        return f"{self.player_id}|{self.sid}"

    sid: str = ""

    @property
    def view_room(self) -> str:
        assert self.code is not None
        return f"{self.code}/{view_key(self.seat)}"


class SocketHandlers:
    """Registers the event handlers on ``sio``. ``rooms`` is set once the store is up."""

    def __init__(self, sio: socketio.AsyncServer, config: Config) -> None:
        self.sio = sio
        self.config = config
        self.rooms: RoomService | None = None
        self.sessions: dict[str, Session] = {}
        self.hosted_rooms: set[str] = set()  # rooms this process has served: presence is settled
        self.bots_running: set[str] = set()  # rooms whose computer players are moving now
        self.bots_again: set[str] = set()  # rooms that changed while their bots were moving
        self.tasks: set[asyncio.Task[None]] = set()
        sio.on("connect", self.connect)
        sio.on("disconnect", self.disconnect)
        for name, fn in (("join", self.on_join), ("op", self.on_op), ("seat", self.on_seat),
                         ("rename", self.on_rename), ("sync", self.on_sync),
                         ("host", self.on_host), ("game", self.on_game)):
            sio.on(name, self._guard(name, fn))
        sio.on("drag", self.on_drag)
        sio.on("*", self.on_unknown)

    # --- plumbing ---------------------------------------------------------------------------

    def _guard(
        self, name: str, fn: Callable[[str, Session, dict[str, Any]], Awaitable[None]]
    ) -> Callable[..., Awaitable[None]]:
        async def handler(sid: str, data: Any = None, *extra: Any) -> None:
            ref = _ref(data)
            try:
                session = self.sessions.get(sid)
                if session is None:
                    return
                session.bucket.take()
                check_payload(data, self.config.max_payload_bytes)
                if not isinstance(data, dict):
                    raise CardtableError(BAD_REQUEST, f"'{name}' takes an object.")
                if self.rooms is None:
                    raise CardtableError(INTERNAL, "The server is starting; try again.",
                                         retryable=True)
                await fn(sid, session, data)
            except CardtableError as err:
                await self.reply("error", err.payload(ref), sid)
            except Exception:  # never let input crash the server or drop the connection
                log.exception("unexpected error in %s", name)
                bug = CardtableError(INTERNAL, "Something went wrong on the server.")
                await self.reply("error", bug.payload(ref), sid)

        return handler

    async def broadcast(self, commit: Commit) -> None:
        for key, delta in commit.deltas.items():
            await self.sio.emit("delta", delta, room=f"{commit.code}/{key}")
        if commit.bot_turn:
            self._poke_bots(commit.code)

    def _poke_bots(self, code: str) -> None:
        if code in self.bots_running:
            self.bots_again.add(code)  # the running task looks again before it stops
            return
        self.bots_running.add(code)
        task = asyncio.create_task(self._run_bots(code))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run_bots(self, code: str) -> None:
        """Computer players move one at a time, with a pause a person can follow."""
        assert self.rooms is not None
        try:
            for _ in range(500):
                self.bots_again.discard(code)
                await asyncio.sleep(self.config.bot_delay_seconds)
                commit = await self.rooms.bot_step(code)
                if commit is not None:
                    for key, delta in commit.deltas.items():
                        await self.sio.emit("delta", delta, room=f"{code}/{key}")
                elif code not in self.bots_again:
                    return
        except CardtableError as err:
            log.warning("bot in %s stopped: %s", code, err.message)
        except Exception:
            log.exception("bot in %s failed", code)
        finally:
            self.bots_running.discard(code)

    async def reply(self, event: str, data: Any, sid: str) -> None:
        """Answer the connection that asked: it is on this process, so skip the fan-out."""
        await self.sio.emit(event, data, to=sid, ignore_queue=True)

    def _joined(self, session: Session) -> tuple[str, str]:
        if session.code is None or session.player_id is None:
            raise CardtableError(NOT_JOINED, "Join a room first.")
        return session.code, session.player_id

    # --- events -----------------------------------------------------------------------------

    async def connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        addr = environ.get("REMOTE_ADDR") or ""
        req = environ.get("aiohttp.request")
        if req is not None and req.remote:
            addr = req.remote
        cfg = self.config
        self.sessions[sid] = Session(addr=addr, sid=sid,
                                     bucket=TokenBucket(cfg.ops_per_second, cfg.ops_burst))

    async def disconnect(self, sid: str, *args: Any) -> None:
        s = self.sessions.pop(sid, None)
        if s is None or s.code is None or self.rooms is None:
            return
        try:
            await self.rooms.store.drop_presence(s.code, s.member)
            await self.refresh_presence(s.code)
        except CardtableError:
            pass  # the store is down; the heartbeat catches up when it is back
        except Exception:
            log.exception("presence update after disconnect failed")

    # --- presence ---------------------------------------------------------------------------

    async def heartbeat(self) -> None:
        """Mark this process's connections alive, and settle presence in the rooms they use."""
        if self.rooms is None:
            return
        members: dict[str, list[str]] = {}
        for s in self.sessions.values():
            if s.code is not None:
                members.setdefault(s.code, []).append(s.member)
        try:
            await self.rooms.store.touch_presence(members, time.time())
        except Exception:
            log.warning("presence heartbeat failed: store unreachable")
            return
        for code in members.keys() | self.hosted_rooms:
            try:
                await self.refresh_presence(code)
            except CardtableError as err:
                if err.code == "room_not_found":
                    self.hosted_rooms.discard(code)
            except Exception:
                log.exception("presence refresh failed for %s", code)

    async def refresh_presence(self, code: str) -> None:
        assert self.rooms is not None
        cfg = self.config
        now = time.time()
        alive = await self.rooms.store.live_members(code, now - 3 * cfg.heartbeat_seconds)
        live = {m.split("|", 1)[0] for m in alive}
        self.hosted_rooms.add(code)
        commit, removed = await self.rooms.refresh_presence(code, live, now, cfg.grace_seconds)
        if commit is not None:
            await self.broadcast(commit)
        for pid in removed:
            await self.evict(code, pid, "away", "You were removed after being away too long.")

    async def evict(self, code: str, pid: str, reason: str, message: str) -> None:
        """Tell a removed player's connections, on any process, and stop their deltas."""
        assert self.rooms is not None
        await self.sio.emit("removed", {"reason": reason, "message": message},
                            room=f"{code}/p/{pid}")
        alive = await self.rooms.store.live_members(code, 0)
        for member in alive:
            if member.startswith(pid + "|"):
                other_sid = member.split("|", 1)[1]
                for key in [ALL, SPEC, *(f"s{i}" for i in range(self.rooms.limits.max_seats))]:
                    await self.sio.leave_room(other_sid, f"{code}/{key}")
                await self.rooms.store.drop_presence(code, member)
        for other in self.sessions.values():
            if other.code == code and other.player_id == pid:
                other.code = other.player_id = None

    async def on_drag(self, sid: str, data: Any = None, *args: Any) -> None:
        """Relay a drag in progress to the room, so others see it move before it is dropped.

        Drags are volatile: nothing is stored, over-rate ones are dropped without a word, and
        only ids and coordinates travel (never faces). Malformed ones get an error.
        """
        s = self.sessions.get(sid)
        if s is None or s.code is None or s.seat is None:
            return
        now = time.monotonic()
        if now - s.last_drag < 1 / DRAG_RATE:
            return
        s.last_drag = now
        items = data.get("items") if isinstance(data, dict) else None
        ok = isinstance(items, list) and 0 < len(items) <= 20 and all(
            isinstance(i, dict) and set(i) == {"id", "x", "y"} and isinstance(i["id"], str)
            and len(i["id"]) <= 40 and all(
                isinstance(i[k], int | float) and not isinstance(i[k], bool)
                and math.isfinite(i[k]) and abs(i[k]) <= 10000 for k in ("x", "y"))
            for i in items)
        if not ok:
            err = CardtableError(BAD_REQUEST, "'drag' takes {items: [{id, x, y}]}, 1 to 20 items.")
            await self.reply("error", err.payload(_ref(data)), sid)
            return
        await self.sio.emit("drag", {"by": s.player_id, "items": items},
                            room=f"{s.code}/{ALL}", skip_sid=sid)

    async def on_unknown(self, event: Any, sid: str, data: Any = None, *args: Any) -> None:
        if event == MALFORMED:
            err = CardtableError(BAD_REQUEST, "Malformed message: not valid JSON, or too deep.")
        else:
            shown = str(event)[:40]
            err = CardtableError(BAD_REQUEST, f"Unknown event {shown!r}; see docs/protocol.md.")
        await self.reply("error", err.payload(_ref(data)), sid)

    async def on_join(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        await self.rooms.count_attempt("join", s.addr, self.config.joins_per_minute)
        code = codes.normalize(data.get("code"))
        if code is None:
            raise CardtableError(ROOM_NOT_FOUND, "That is not a room code (8 letters/digits).")
        if s.code is not None:
            await self.sio.leave_room(sid, s.view_room)
            await self.sio.leave_room(sid, f"{s.code}/p/{s.player_id}")
            await self.sio.leave_room(sid, f"{s.code}/{ALL}")
            await self.rooms.store.drop_presence(s.code, s.member)
            s.code = s.player_id = None
        joined = await self.rooms.join(code, data.get("name"), data.get("token"),
                                       data.get("seat", "auto"))
        if joined.commit is not None:
            await self.broadcast(joined.commit)
        s.code, s.player_id, s.seat = code, joined.player.id, joined.player.seat
        await self.sio.enter_room(sid, s.view_room)
        await self.sio.enter_room(sid, f"{code}/p/{s.player_id}")
        await self.sio.enter_room(sid, f"{code}/{ALL}")
        await self.rooms.store.touch_presence({code: [s.member]}, time.time())
        await self.reply("joined", {
            "code": code, "player": joined.player.id, "token": joined.token,
            "seat": joined.player.seat, "name": joined.player.name, "ref": data.get("ref"),
        }, sid)
        since = data.get("since")
        if isinstance(since, int) and not isinstance(since, bool) and joined.commit is None:
            await self._resync(sid, s, since)
        else:
            await self.reply("snapshot", joined.snapshot, sid)
        await self.refresh_presence(code)

    async def on_op(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        op = parse_op(data)
        commit = await self.rooms.apply(code, pid, op)
        await self.broadcast(commit)
        await self.reply("ack", {"ref": data.get("ref"), "v": commit.version}, sid)

    async def on_seat(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        commit = await self.rooms.take_seat(code, pid, data.get("seat"))
        await self.broadcast(commit)
        # This player's view changed: move every connection of theirs (on any server process)
        # to the new view's room and resend the table as the new seat sees it.
        table = await self.rooms.load_table(code)
        old_room, new_seat = s.view_room, table.players[pid].seat
        alive = await self.rooms.store.live_members(code, 0)
        sids = {m.split("|", 1)[1] for m in alive if m.startswith(pid + "|")} | {sid}
        for other_sid in sids:
            local = self.sessions.get(other_sid)
            if local is not None:
                local.seat = new_seat
            await self.sio.leave_room(other_sid, old_room)
            await self.sio.enter_room(other_sid, f"{code}/{view_key(new_seat)}")
            await self.sio.emit("snapshot", room_snapshot(table, new_seat), to=other_sid)
        await self.reply("ack", {"ref": data.get("ref"), "v": commit.version}, sid)

    async def on_rename(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        commit = await self.rooms.rename(code, pid, data.get("name"))
        await self.broadcast(commit)
        await self.reply("ack", {"ref": data.get("ref"), "v": commit.version}, sid)

    async def on_game(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        commit = await self.rooms.game_command(code, pid, data.get("action"))
        await self.broadcast(commit)
        await self.reply("ack", {"ref": data.get("ref"), "v": commit.version}, sid)

    async def on_host(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        target = data.get("player") if data.get("action") not in ("game", "bot") else data
        commit = await self.rooms.host_action(code, pid, data.get("action"), target)
        await self.broadcast(commit)
        if data.get("action") == "remove" and isinstance(target, str):
            await self.evict(code, target, "host", "The host removed you from this room.")
        await self.reply("ack", {"ref": data.get("ref"), "v": commit.version}, sid)

    async def on_sync(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        since = data.get("since")
        if not isinstance(since, int) or isinstance(since, bool) or since < 0:
            raise CardtableError(BAD_REQUEST, "'sync' needs 'since', the last version you saw.")
        await self._resync(sid, s, since)
        await self.reply("ack", {"ref": data.get("ref"), "v": None}, sid)

    async def _resync(self, sid: str, s: Session, since: int) -> None:
        assert self.rooms is not None
        code, pid = self._joined(s)
        got = await self.rooms.resync(code, pid, since)
        if isinstance(got, dict):
            await self.reply("snapshot", got, sid)
        else:
            for delta in got:
                await self.reply("delta", delta, sid)
