"""Ordered per-connection delivery: each connection gets its seat's view, in version order.

Every commit writes one op-log entry ``{"v", "d": {view: delta}, "p": {player: seat}, "x":
{player: reason}}``: the delta of every view, the seat each player holds *at that version*, and
why a player left. The commit script publishes the same entry on the room's channel, so every
server process sees the room's commits in commit order.

A process keeps one :class:`RoomFeed` per room it has connections for. The feed is a single
queue worked by one task: commit entries (pushed at once by this process's own commits, or read
from the channel for other processes' commits), and the snapshot/resync jobs of connections
that join or ask to catch up. For each entry, each connection gets the delta of the seat its
player holds at that version - so a seat change is atomic with the commit order: no delta of a
seat reaches a connection before it sat there or after it left. A connection whose player's
seat changed at that version gets a fresh snapshot instead, and one whose player is gone is told
and detached. A gap in versions (an entry published while this process was subscribing) is
filled from the op log before anything later is delivered.

A connection that needs a read from the store (a join, a ``sync``, a seat change) is *pending*:
it is sent nothing until that read goes out. After each job the worker serves the pending
connections one at a time, never nested: read the store (at some version ``G``, at least the
feed's), deliver the entries up to ``G`` to everyone else, and send the read only if nothing past
``G`` went out meanwhile (otherwise read again). So every connection's messages are in version
order: a snapshot is never older than anything the connection was sent, and each delta is one
more than the connection's version.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from server import metrics
from server.errors import NOT_JOINED, CardtableError
from server.store.base import FeedSubscription

log = logging.getLogger("cardtable.fanout")
_unpack = msgspec.msgpack.Decoder().decode
_pack = msgspec.msgpack.Encoder().encode
ALL = "all"
SPEC = "spec"


def view_key(seat: int | None) -> str:
    return SPEC if seat is None else f"s{seat}"


class Conn(Protocol):
    """What the feed needs of a connection (the socket layer's session)."""

    sid: str
    code: str | None
    player_id: str | None
    seat: int | None
    last_v: int


@dataclass
class CatchUp:
    """What a connection needs to be current: a snapshot, or the deltas it missed."""

    version: int
    seat: int | None
    snapshot: dict[str, Any] | None = None
    deltas: list[dict[str, Any]] = field(default_factory=list)


class Source(Protocol):
    """The room service and store calls the feed makes (reads only)."""

    async def catch_up(self, code: str, player_id: str, since: int | None) -> CatchUp: ...

    async def entries(self, code: str, after: int, upto: int) -> list[dict[str, Any]] | None: ...

    async def version(self, code: str) -> int: ...

    def moved_on(self, code: str, version: int) -> None:
        """Another process committed ``version`` of the room (so a cached older state is stale)."""


Send = Callable[[str, Any, list[str]], Awaitable[None]]  # event, data, sids
Gone = Callable[[Conn, str], Awaitable[None]]  # connection, reason ("away" | "host" | ...)


@dataclass
class _Job:
    kind: str  # "entry" | "join" | "catchup"
    version: int = 0
    entry: dict[str, Any] | None = None
    conn: Conn | None = None
    since: int | None = None
    done: asyncio.Future[None] | None = None
    queued: float = 0.0  # time.monotonic() when an entry was queued: the feed lag


class RoomFeed:
    """One room's ordered delivery on this process."""

    def __init__(self, code: str, source: Source, send: Send, gone: Gone) -> None:
        self.code = code
        self.source = source
        self.send = send
        self.gone = gone
        self.conns: dict[str, Conn] = {}
        self.version = -1  # highest entry handled in order; -1 until the first catch-up
        self.queue: asyncio.Queue[_Job] = asyncio.Queue()
        self.held: dict[int, dict[str, Any]] = {}
        self.last: dict[str, Any] | None = None  # the entry of ``version``, as delivered
        # Connections waiting for a read from the store, by sid: the version their deltas may
        # start after, or None for a snapshot. They are sent nothing until it goes out.
        self.pending: dict[str, int | None] = {}
        self.waiters: dict[str, list[tuple[int, asyncio.Future[None]]]] = {}
        self.ready = asyncio.Event()  # set once the room's channel is subscribed
        self.task = asyncio.create_task(self._run(), name=f"feed {code}")

    # --- inputs (never await: order of calls is order of delivery) ----------------------------

    def push(self, version: int, entry: dict[str, Any]) -> None:
        self.queue.put_nowait(_Job("entry", version, entry, queued=time.monotonic()))

    def attach(self, conn: Conn, since: int | None) -> None:
        """Start delivering to ``conn``: a snapshot first (or the deltas since ``since``)."""
        conn.last_v = -1
        self.conns[conn.sid] = conn
        self.queue.put_nowait(_Job("join", conn=conn, since=since))

    async def resync(self, conn: Conn, since: int) -> None:
        """Send ``conn`` what it missed after ``since`` (deltas, or a snapshot); returns once
        that is sent."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(_Job("join", conn=conn, since=since, done=done))
        await done

    def catch_up(self) -> None:
        """Check the store for entries this process may have missed (after a reconnect)."""
        self.queue.put_nowait(_Job("catchup"))

    def detach(self, sid: str) -> None:
        self.conns.pop(sid, None)
        self.pending.pop(sid, None)
        for _, fut in self.waiters.pop(sid, []):
            if not fut.done():
                fut.set_result(None)

    async def delivered(self, sid: str, version: int, timeout: float = 5.0) -> None:
        """Wait until connection ``sid`` has been sent version ``version`` (or is gone)."""
        conn = self.conns.get(sid)
        if conn is None or conn.last_v >= version:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self.waiters.setdefault(sid, []).append((version, fut))
        # A timer rather than ``wait_for``, which costs a task per call: this runs every move.
        timer = loop.call_later(timeout, _settle, fut)
        try:
            await fut
        finally:
            timer.cancel()

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        for sid in list(self.waiters):
            self.detach(sid)

    # --- the one worker ------------------------------------------------------------------------

    async def _run(self) -> None:
        await self.ready.wait()
        while True:
            job = await self.queue.get()
            try:
                if job.kind == "entry":
                    assert job.entry is not None
                    delivered = self.version
                    await self._entry(job.version, job.entry)
                    if self.version > delivered:  # not a copy of an entry already sent
                        metrics.FEED_LAG.observe(time.monotonic() - job.queued)
                elif job.kind == "join":
                    assert job.conn is not None
                    self._want(job.conn, job.since)
                else:
                    await self._catch_up(await self.source.version(self.code))
                await self._settle()
            except asyncio.CancelledError:
                raise
            except Exception:
                # The store may be down; connections catch up on the next entry or resync.
                log.warning("feed %s: %s job failed", self.code, job.kind, exc_info=True)
            finally:
                if job.done is not None and not job.done.done():
                    job.done.set_result(None)

    async def _entry(self, version: int, entry: dict[str, Any]) -> None:
        if version == self.version and entry is not self.last and self.last is not None:
            # The number delivered last, again: a copy (the channel's echo of a local commit),
            # or, after a failover lost the one delivered, the store's next commit numbered as
            # it. A local commit arrives at once, maybe before the subscription is back and has
            # caught up; taken for a copy, the commits after it would go out on the lost one.
            if _pack(entry) != _pack(self.last):
                await self._catch_up(await self.source.version(self.code))
            return
        if version <= self.version:
            return
        if self.version >= 0 and version > self.version + 1:
            self.held[version] = entry
            await self._fill(version - 1)
            return
        await self._deliver(version, entry)
        while self.version + 1 in self.held:
            await self._deliver(self.version + 1, self.held.pop(self.version + 1))

    async def _fill(self, upto: int) -> None:
        """Deliver the entries after ``self.version`` up to ``upto`` from the op log."""
        if self.version < 0 or upto <= self.version:
            return
        got = await self.source.entries(self.code, self.version, upto)
        if got is None:  # the log no longer reaches back: everyone starts again from a snapshot
            self.version = upto
            self.last = None
            for conn in list(self.conns.values()):
                self._want(conn, None)
        else:
            for entry in got:
                await self._deliver(int(entry["v"]), entry)
        while self.version + 1 in self.held:
            await self._deliver(self.version + 1, self.held.pop(self.version + 1))
        self.held = {v: e for v, e in self.held.items() if v > self.version}

    async def _catch_up(self, stored: int) -> None:
        """Deliver what the store has past this feed, up to ``stored``; or, if the store no
        longer has what this feed delivered last, start everyone again from a snapshot.

        That happens after a failover: commits published by a master that died before its
        replica had them are gone (they were never acknowledged: an acknowledgement waits for
        a replica), and the room goes on from the replica's version, numbering the next commits
        as the lost ones were. So the entry at this feed's version is compared with the one
        delivered, not just the version."""
        if self.version >= 0 and self.last is not None:
            if stored < self.version:
                lost = True
            else:
                got = await self.source.entries(self.code, self.version - 1, self.version)
                lost = got is not None and [_pack(e) for e in got] != [_pack(self.last)]
            if lost:
                log.warning("feed %s: version %s is gone from the store", self.code, self.version)
                self.version = stored
                self.last = None
                self.held.clear()
                for conn in list(self.conns.values()):
                    self._want(conn, None)
                return
        await self._fill(stored)

    async def _deliver(self, version: int, entry: dict[str, Any]) -> None:
        self.version = version
        self.last = entry
        deltas: dict[str, dict[str, Any]] = entry["d"]
        seats: dict[str, int | None] = entry.get("p", {})
        reasons: dict[str, str] = entry.get("x", {})
        groups: dict[str, list[str]] = {}
        gone: list[Conn] = []
        for conn in list(self.conns.values()):
            if version <= conn.last_v:
                continue  # what it was sent already covers this
            pid = conn.player_id or ""
            if conn.sid in self.pending or conn.last_v < 0:
                # Waiting for its read from the store: nothing goes out before it. A player who
                # was in the room at the connection's version and has left since is told now.
                if conn.last_v >= 0 and pid not in seats:
                    gone.append(conn)
                continue
            if pid not in seats:
                gone.append(conn)
            elif seats[pid] != conn.seat:
                self._want(conn, None)  # a new view: a snapshot as that seat sees it
            else:
                key = ALL if ALL in deltas else view_key(conn.seat)
                groups.setdefault(key, []).append(conn.sid)
                conn.last_v = version
        for key, sids in groups.items():
            await self.send("delta", deltas[key], sids)
            for sid in sids:
                self._wake(sid)
        for conn in gone:
            self.detach(conn.sid)
            await self.gone(conn, reasons.get(conn.player_id or "", "away"))

    def _want(self, conn: Conn, since: int | None) -> None:
        """Make ``conn`` pending: it needs the deltas after ``since`` (or, with None, a
        snapshot) read from the store. Asked twice, it gets what covers both."""
        if conn.sid not in self.conns:
            return
        if conn.sid in self.pending:
            had = self.pending[conn.sid]
            since = None if had is None or since is None else min(had, since)
        self.pending[conn.sid] = since

    async def _settle(self) -> None:
        """Serve the pending connections, one at a time (a catch-up of the feed may make more
        of them pending: they are served in turn, never from inside another's)."""
        tried: set[str] = set()
        while True:
            sid = next((s for s in self.pending if s not in tried), None)
            if sid is None:
                return
            tried.add(sid)
            await self._serve(sid)

    async def _serve(self, sid: str) -> None:
        """Read what pending connection ``sid`` needs, and send it in order.

        The read is at the store's version ``G``, never older than the feed's. The feed first
        delivers the entries up to ``G`` to every other connection; if that went past ``G`` (an
        entry held for a gap came through), the read would be older than what the others
        have and than the entries this connection will be sent next, so it is read again."""
        for _ in range(5):
            conn = self.conns.get(sid)
            if conn is None or sid not in self.pending:
                return
            if conn.player_id is None:
                self.pending.pop(sid)
                return
            try:
                got = await self.source.catch_up(self.code, conn.player_id, self.pending[sid])
            except CardtableError as err:
                if err.code != NOT_JOINED:
                    raise
                await self._left(conn)
                return
            if self.version < 0:
                self.version = got.version
            elif got.version > self.version:
                await self._fill(got.version)
            if sid not in self.pending:
                return  # gone meanwhile
            if self.version > got.version:
                continue
            del self.pending[sid]
            conn.seat = got.seat
            if got.snapshot is not None:
                await self.send("snapshot", got.snapshot, [sid])
            else:
                # A sync may ask from before what this connection was sent: no step back.
                for delta in got.deltas:
                    if int(delta["v"]) > conn.last_v:
                        await self.send("delta", delta, [sid])
            conn.last_v = got.version
            self._wake(sid)
            return
        log.warning("feed %s: the room kept moving past %s's reads; it waits", self.code, sid)

    async def _left(self, conn: Conn) -> None:
        """The store no longer has ``conn``'s player: deliver the entries up to now (which tell
        a connection that was in the room why its player left); if it is still here, tell it."""
        await self._fill(await self.source.version(self.code))
        if conn.sid in self.conns:
            self.detach(conn.sid)
            await self.gone(conn, "away")

    def _wake(self, sid: str) -> None:
        conn = self.conns.get(sid)
        pending = self.waiters.get(sid)
        if conn is None or not pending:
            return
        keep = []
        for v, fut in pending:
            if conn.last_v >= v:
                if not fut.done():
                    fut.set_result(None)
            else:
                keep.append((v, fut))
        if keep:
            self.waiters[sid] = keep
        else:
            del self.waiters[sid]


def _settle(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class Feeds:
    """Every room feed of this process, and the subscription to other processes' commits."""

    def __init__(
        self, source: Source, send: Send, gone: Gone, subscriber: Subscriber | None = None
    ) -> None:
        self.source = source
        self.send = send
        self.gone = gone
        self.subscriber = subscriber
        self.rooms: dict[str, RoomFeed] = {}

    async def feed(self, code: str) -> RoomFeed:
        """The room's feed, created (and subscribed to the room's channel) if need be."""
        feed = self.rooms.get(code)
        if feed is None:
            feed = self.rooms[code] = RoomFeed(code, self.source, self.send, self.gone)
            if self.subscriber is not None:
                # Subscribed before the first snapshot is read: nothing committed after it is
                # missed. Jobs wait for this (a join's snapshot, the entries pushed meanwhile).
                await self.subscriber.subscribe(code)
            feed.ready.set()
        return feed

    async def join(self, code: str, conn: Conn, since: int | None) -> RoomFeed:
        """Start delivering the room to ``conn``. The connection is attached before anything
        awaits, so a feed being created is never mistaken for an idle one."""
        feed = self.rooms.get(code)
        if feed is not None:
            feed.attach(conn, since)
            return feed
        feed = self.rooms[code] = RoomFeed(code, self.source, self.send, self.gone)
        feed.attach(conn, since)
        if self.subscriber is not None:
            await self.subscriber.subscribe(code)
        feed.ready.set()
        return feed

    def committed(self, code: str, version: int, entry: dict[str, Any]) -> None:
        """This process committed ``version``: deliver it now, without waiting for Redis."""
        feed = self.rooms.get(code)
        if feed is not None:
            feed.push(version, entry)

    def stale(self, code: str) -> None:
        """A commit of this process may have landed unseen (its answer never came): read the
        log up to the room's version before delivering anything later."""
        feed = self.rooms.get(code)
        if feed is not None:
            feed.catch_up()

    def published(self, code: str, raw: bytes) -> None:
        """Another process's commit arrived on the room's channel."""
        feed = self.rooms.get(code)
        if feed is None:
            return
        entry = _unpack(raw)
        version = int(entry["v"])
        self.source.moved_on(code, version)
        feed.push(version, entry)

    async def prune(self) -> None:
        """Close the feeds of rooms this process no longer has connections in."""
        for code in [c for c, f in self.rooms.items() if not f.conns]:
            await self.drop_if_idle(code)

    def reconnected(self) -> None:
        for feed in self.rooms.values():
            feed.catch_up()

    async def drop_if_idle(self, code: str) -> None:
        feed = self.rooms.get(code)
        if feed is not None and not feed.conns and asyncio.current_task() is not feed.task:
            del self.rooms[code]
            await feed.close()
            if self.subscriber is not None:
                await self.subscriber.unsubscribe(code)

    def alive(self) -> bool:
        """Other processes' commits reach this process: no subscriber is needed (one process
        on its own store), or it is reading its channels."""
        return self.subscriber is None or self.subscriber.alive()

    async def close(self) -> None:
        for feed in list(self.rooms.values()):
            await feed.close()
        self.rooms.clear()
        if self.subscriber is not None:
            await self.subscriber.close()


class Subscriber:
    """One store subscription (a Redis pub/sub connection) for the rooms this process has feeds
    for."""

    def __init__(self, source: FeedSubscription, feeds: Callable[[], Feeds]) -> None:
        self.source = source
        self.feeds = feeds
        self.codes: set[str] = set()
        self.confirmed: dict[str, asyncio.Future[None]] = {}
        self.task: asyncio.Task[None] | None = None
        self.broken = False  # the pub/sub connection failed and is not back yet

    def alive(self) -> bool:
        """The reader runs and its connection answers (or nothing was subscribed yet)."""
        return self.task is None or (not self.task.done() and not self.broken)

    async def subscribe(self, code: str) -> None:
        self.codes.add(code)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.confirmed[code] = fut
        try:
            await self.source.subscribe(code)
        except Exception:  # Redis away: local commits still flow; gaps are filled later
            log.warning("could not subscribe to %s; other processes' moves arrive late", code)
            return
        if self.task is None:
            self.task = asyncio.create_task(self._read(), name="feed subscriber")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(fut), 5.0)

    async def unsubscribe(self, code: str) -> None:
        self.codes.discard(code)
        with contextlib.suppress(Exception):
            await self.source.unsubscribe(code)

    async def _read(self) -> None:
        while True:
            try:
                msg = await self.source.next(timeout=1.0)
                if self.broken:
                    self.broken = False
                    self.feeds().reconnected()
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self.broken:
                    log.warning("feed subscription lost; retrying")
                self.broken = True
                await asyncio.sleep(0.5)
                continue
            if msg is None:
                continue
            if msg.kind == "subscribed":
                fut = self.confirmed.pop(msg.code, None)
                if fut is not None and not fut.done():
                    fut.set_result(None)
                elif fut is None and msg.code in self.codes:
                    # Subscribed again (on a cluster, on the replica that took over the room's
                    # shard): what was published before it came back is read from the log.
                    self.feeds().stale(msg.code)
            elif msg.kind == "entry" and msg.code in self.codes:
                self.feeds().published(msg.code, msg.data)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        with contextlib.suppress(Exception):
            await self.source.close()
