"""Socket.IO handlers: parse every event against its schema, call the room service, answer.

Handlers only translate: a payload becomes a typed message (:mod:`server.net.messages`), the room
service commits the change, and the connection is answered with ``ack`` once its own view of
that version has been sent. What each connection receives is decided by the room's feed
(:mod:`server.room.fanout`), in version order and by the seat its player holds at each version.
Handlers never raise: every failure becomes one ``error {code, message, ref}`` event and the
connection stays.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from server import logs, metrics
from server.config import Config
from server.errors import (
    BAD_REQUEST,
    INTERNAL,
    NOT_JOINED,
    ROOM_NOT_FOUND,
    CardtableError,
)
from server.net.addresses import request_address
from server.net.events import Ack
from server.net.events import Joined as JoinedEvent
from server.net.limits import TokenBucket, check_payload, count_misses, miss_limiter
from server.net.messages import (
    Drag,
    Fair,
    Game,
    Host,
    Join,
    OpRef,
    Rename,
    Seat,
    Sync,
    parse,
    safe_ref,
)
from server.net.session import Handler, Session
from server.net.sio import GuardedServer
from server.net.social_events import SocialHandlers, out_of_date
from server.room import codes, host
from server.room.fanout import Conn, Feeds, Subscriber
from server.room.scheduling import Scheduler
from server.room.service import ALL, Joined, RoomService
from server.store.base import StoreUnavailable
from server.store.rate_limits import SlidingLimiter
from server.table.ops import parse_op

log = logging.getLogger("cardtable.sockets")
DRAG_RATE = 20.0  # drag updates relayed per connection per second; the rest are dropped
REMOVED_MESSAGES = {
    "away": "You were removed after being away too long.",
    "host": "The host removed you from this room.",
}


class SocketHandlers:
    """Registers the event handlers on ``sio``; :meth:`start` once the store is up."""

    def __init__(self, sio: GuardedServer, config: Config) -> None:
        self.sio = sio
        self.config = config
        self.rooms: RoomService | None = None
        self.feeds: Feeds | None = None
        self.misses: SlidingLimiter | None = None
        self.sessions: dict[str, Session] = {}
        # Rooms this process has served whose presence it settles, until no person is left in
        # them (everyone left or was removed after the grace period).
        self.hosted_rooms: set[str] = set()
        self.scheduler: Scheduler | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        sio.on("connect", self.connect)
        sio.on("disconnect", self.disconnect)
        for name, fn in (
            ("join", self.on_join),
            ("op", self.on_op),
            ("seat", self.on_seat),
            ("rename", self.on_rename),
            ("sync", self.on_sync),
            ("host", self.on_host),
            ("game", self.on_game),
            ("fair", self.on_fair),
        ):
            sio.on(name, self.guard(name, fn))
        sio.on("drag", self.on_drag)
        self.social = SocialHandlers(self)

    def start(self, rooms: RoomService, follow_others: bool) -> None:
        """Use ``rooms``; with ``follow_others`` (several processes share the store), follow
        other processes' commits through a subscription to the store."""
        self.rooms = rooms
        self.social.start(rooms)
        self.misses = miss_limiter(rooms.store, self.config)
        subscriber = (
            Subscriber(rooms.store.subscription(), lambda: feeds) if follow_others else None
        )
        feeds = Feeds(rooms, self._send, self._gone, subscriber)
        self.feeds = feeds
        rooms.on_commit = feeds.committed
        rooms.on_stale = feeds.stale
        # Timers only for rooms with a connection here: a room nobody here is in isn't read.
        self.scheduler = Scheduler(rooms.auto_step, follows=lambda code: code in feeds.rooms)
        rooms.on_wake = self.scheduler.wake

    def feed_alive(self) -> bool:
        """Other processes' commits reach this process's rooms (for /readyz)."""
        return self.feeds is not None and self.feeds.alive()

    async def stop(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.close()
        if self.feeds is not None:
            await self.feeds.close()
        for task in list(self.tasks):
            task.cancel()

    # --- plumbing ---------------------------------------------------------------------------

    def guard(self, name: str, fn: Handler) -> Callable[..., Awaitable[None]]:
        timer = metrics.ACTION_SECONDS.labels(name)

        async def handler(sid: str, data: Any = None) -> None:
            ref = safe_ref(data)
            started = time.perf_counter()
            try:
                session = self.sessions.get(sid)
                if session is None:
                    return
                logs.bind(session.code, session.player_id)
                if session.out_of_date:
                    raise out_of_date()
                session.bucket.take()
                check_payload(data, self.config.max_payload_bytes)
                if not isinstance(data, dict):
                    raise CardtableError(BAD_REQUEST, f"'{name}' takes an object.")
                if self.rooms is None:
                    raise CardtableError(
                        INTERNAL, "The server is starting; try again.", retryable=True
                    )
                await fn(sid, session, data)
            except CardtableError as err:
                await self.reply("error", err.payload(ref), sid)
            except Exception:  # never let input crash the server or drop the connection
                log.exception("unexpected error in %s", name)
                bug = CardtableError(INTERNAL, "Something went wrong on the server.")
                await self.reply("error", bug.payload(ref), sid)
            finally:
                timer.observe(time.perf_counter() - started)

        return handler

    async def _send(self, event: str, data: Any, sids: list[str]) -> None:
        self.sio.send_to(event, data, sids)

    async def _gone(self, conn: Conn, reason: str) -> None:
        """The feed saw this connection's player leave the room (removed): tell it, detach."""
        session = self.sessions.get(conn.sid)
        code = conn.code
        await self.reply(
            "removed",
            {
                "reason": reason,
                "message": REMOVED_MESSAGES.get(reason, "You are no longer in this room."),
            },
            conn.sid,
        )
        if session is not None and code is not None:
            await self._leave(session)

    async def _leave(self, s: Session) -> None:
        """Take this connection out of its room (the player stays, for a reclaim)."""
        code = s.code
        if code is None:
            return
        member = s.member
        await self.sio.leave_room(s.sid, f"{code}/{ALL}")
        s.code = s.player_id = None
        s.seat, s.last_v = None, -1
        if self.feeds is not None:
            feed = self.feeds.rooms.get(code)
            if feed is not None:
                feed.detach(s.sid)
            await self.feeds.drop_if_idle(code)
            if self.scheduler is not None and code not in self.feeds.rooms:
                self.scheduler.wake(code, None)  # nobody here follows the room any more
        if self.rooms is not None:
            try:
                await self.rooms.store.drop_presence(code, member)
            except Exception:
                log.warning("presence: could not drop %s in %s", member, code)

    async def reply(self, event: str, data: Any, sid: str) -> None:
        """Answer the connection that asked: it is on this process, so skip the fan-out."""
        self.sio.send_to(event, data, (sid,))

    def joined(self, session: Session) -> tuple[str, str]:
        if session.code is None or session.player_id is None:
            raise CardtableError(NOT_JOINED, "Join a room first.")
        return session.code, session.player_id

    async def _answer(self, sid: str, s: Session, ref: Any, version: int) -> None:
        """``ack`` once this connection has been sent its view of ``version``."""
        assert self.feeds is not None
        feed = self.feeds.rooms.get(s.code or "")
        if feed is not None:
            await feed.delivered(sid, version)
        await self.reply("ack", Ack(ref=ref, v=version), sid)

    # --- connection lifecycle ----------------------------------------------------------------

    async def connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        req = environ.get("aiohttp.request")
        # The transport's peer (or, behind a declared proxy, its X-Forwarded-For): never data
        # the client sent in an event.
        addr = request_address(req, self.config.trusted_proxies) if req is not None else ""
        cfg = self.config
        self.sessions[sid] = Session(
            addr=addr, sid=sid, bucket=TokenBucket(cfg.ops_per_second, cfg.ops_burst)
        )
        metrics.CONNECTS.inc()
        metrics.CONNECTIONS.inc()

    async def disconnect(self, sid: str, *args: Any) -> None:
        s = self.sessions.pop(sid, None)
        if s is not None:
            metrics.CONNECTIONS.dec()
            try:
                await self.social.disconnected(sid, s)
            except Exception:
                log.warning("online list: could not drop %s", sid)
        if s is None or s.code is None:
            return
        code = s.code
        try:
            await self._leave(s)
            await self.refresh_presence(code)
        except (CardtableError, StoreUnavailable):
            pass  # the store is down or swamped; the heartbeat catches up when it is back
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
        try:
            await self.social.heartbeat(list(self.sessions.values()))
        except Exception:
            log.warning("online heartbeat failed: store unreachable")
        if self.feeds is not None:
            await self.feeds.prune()
            if self.scheduler is not None:
                self.scheduler.retain(self.feeds.rooms)
        for code in members.keys() | self.hosted_rooms:
            try:
                await self.refresh_presence(code)
                if (
                    self.scheduler is not None
                    and code in members
                    and self.scheduler.pending(code) is None
                ):
                    # A timer lost with another process (or never set) is picked up here, at
                    # the time the room records (read from the state just settled, not Redis);
                    # a room where nothing can happen by itself gets none.
                    self.scheduler.stand_by(code, await self.rooms.next_wake(code))
                if code not in members and not any(
                    not p.bot for p in (await self.rooms.known_table(code)).players.values()
                ):
                    self.hosted_rooms.discard(code)  # nobody left whose presence to settle
            except CardtableError as err:
                if err.code == ROOM_NOT_FOUND:
                    self.hosted_rooms.discard(code)
            except StoreUnavailable:
                log.warning("presence refresh for %s: store unreachable", code)
            except Exception:
                log.exception("presence refresh failed for %s", code)
        if self.feeds is not None:
            # Rooms this process no longer follows (no connection here): their cached state
            # would only go stale and hold memory; the next use reads them from the store.
            for code in self.rooms.cached_rooms() - self.feeds.rooms.keys():
                self.rooms.forget(code)

    async def refresh_presence(self, code: str) -> None:
        """Mark players away or back, and remove those away past the grace period (their
        connections, on any process, are told by the room's feed)."""
        assert self.rooms is not None
        cfg = self.config
        now = time.time()
        alive = await self.rooms.store.live_members(code, now - 3 * cfg.heartbeat_seconds)
        live = {m.split("|", 1)[0] for m in alive}
        self.hosted_rooms.add(code)
        await self.rooms.refresh_presence(code, live, now, cfg.grace_seconds)

    # --- events -----------------------------------------------------------------------------

    async def on_drag(self, sid: str, data: Any = None) -> None:
        """Relay a drag in progress to the room, so others see it move before it is dropped.

        Drags are volatile: nothing is stored, over-rate ones are dropped without a word, and
        only ids and coordinates travel (never faces). Malformed ones get an error.
        """
        s = self.sessions.get(sid)
        if s is None:
            return
        try:
            msg = parse(Drag, data, "drag")
            if s.code is None or s.seat is None:
                return
        except CardtableError as err:
            await self.reply("error", err.payload(safe_ref(data)), sid)
            return
        now = time.monotonic()
        if now - s.last_drag < 1 / DRAG_RATE:
            return
        s.last_drag = now
        items = [{"id": i.id, "x": i.x, "y": i.y} for i in msg.items]
        await self.sio.emit(
            "drag", {"by": s.player_id, "items": items}, room=f"{s.code}/{ALL}", skip_sid=sid
        )

    async def on_join(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None and self.feeds is not None and self.misses is not None
        rooms = self.rooms
        msg = parse(Join, data, "join")
        if msg.token is None:  # a player reclaiming its own seat is not a new join attempt
            await rooms.count_attempt(
                "join", s.addr, self.config.joins_per_minute, self.config.clock
            )
        code = codes.normalize(msg.code)

        async def attempt() -> Joined:
            if code is None:
                raise CardtableError(ROOM_NOT_FOUND, "That is not a room code.")
            social = await self.social.join(s, code, msg)
            if social is not None:
                return social
            return await rooms.join(code, msg.name, msg.token, msg.seat, s.identity)

        # Unknown codes count as guesses, token or not; the old room is left only once the new
        # join has succeeded.
        joined = await count_misses(self.misses, s.addr, code, attempt)
        assert code is not None
        if s.code is not None:
            await self._leave(s)
        s.code, s.player_id, s.seat = code, joined.player.id, joined.player.seat
        logs.bind(code, s.player_id)
        log.info("joined (seat %s)", s.seat)
        await self.sio.enter_room(sid, f"{code}/{ALL}")
        await self.rooms.store.touch_presence({code: [s.member]}, time.time())
        await self.reply(
            "joined",
            JoinedEvent(
                code=code,
                player=joined.player.id,
                token=joined.token,
                seat=joined.player.seat,
                name=joined.player.name,
                ref=msg.ref,
                was_seat=joined.was_seat,
            ),
            sid,
        )
        await self.feeds.join(code, s, msg.since if msg.token is not None else None)
        await self.refresh_presence(code)
        if self.scheduler is not None:  # follow the room's own moves from here too
            self.scheduler.stand_by(code, await self.rooms.next_wake(code))
        await self.social.joined(sid, s, code)

    async def on_op(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        head = parse(OpRef, data, "op")
        code, pid = self.joined(s)
        op = parse_op(data)
        commit = await self.rooms.apply(code, pid, op, head.opid)
        await self._answer(sid, s, head.ref, commit.version)

    async def on_seat(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        msg = parse(Seat, data, "seat")
        code, pid = self.joined(s)
        await self.social.may_sit(code, pid, msg.seat)
        commit = await self.rooms.take_seat(code, pid, msg.seat, msg.opid)
        await self._answer(sid, s, msg.ref, commit.version)

    async def on_rename(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        msg = parse(Rename, data, "rename")
        code, pid = self.joined(s)
        commit = await self.rooms.rename(code, pid, msg.name, msg.opid)
        await self._answer(sid, s, msg.ref, commit.version)

    async def on_game(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        msg = parse(Game, data, "game")
        code, pid = self.joined(s)
        commit = await self.rooms.game_command(code, pid, msg.action, msg.opid)
        await self._answer(sid, s, msg.ref, commit.version)

    async def on_fair(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        msg = parse(Fair, data, "fair")
        code, pid = self.joined(s)
        commit = await self.rooms.fair_value(code, pid, msg.deal, msg.value, msg.opid)
        await self._answer(sid, s, msg.ref, commit.version)

    async def on_host(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.rooms is not None
        msg = parse(Host, data, "host")
        code, pid = self.joined(s)
        given = {k for k in host.FIELDS if k in data}
        allowed = host.TAKES[msg.action]
        if given - allowed:
            raise CardtableError(
                BAD_REQUEST, f"'host' {msg.action} takes no {sorted(given - allowed)[0]!r}."
            )
        target: object
        if msg.action == "public":
            commit = await self.social.public(code, pid, msg.public, msg.opid)
            await self._answer(sid, s, msg.ref, commit.version)
            return
        if msg.action == "remove":
            target = msg.player
        elif msg.action == "game":
            target = {"game": msg.game, "options": msg.options}
        elif msg.action == "bot":
            target = {"seat": msg.seat, "level": msg.level}
        elif msg.action == "edit":
            target = {"who": msg.who}
        else:
            target = None
        commit = await self.rooms.host_action(code, pid, msg.action, target, msg.opid)
        await self._answer(sid, s, msg.ref, commit.version)

    async def on_sync(self, sid: str, s: Session, data: dict[str, Any]) -> None:
        assert self.feeds is not None
        msg = parse(Sync, data, "sync")
        code, _ = self.joined(s)
        feed = await self.feeds.feed(code)
        await feed.resync(s, msg.since)
        await self.reply("ack", Ack(ref=msg.ref, v=None), sid)
