"""The room service: load, reduce, commit, and build per-seat deltas.

Every change to a room goes through :meth:`RoomService._mutate`: under a per-room lock it takes
a fresh copy of the latest state, runs the room's one transition function
(:func:`server.room.reducer.reduce`) on it with the clock and randomness injected, builds the
filtered delta for every view (each seat, and spectators), and commits state plus op-log entry
in one versioned Redis transaction. A version mismatch (another server process committed first)
reloads and retries; a rejection raises before anything is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from plugins.registry import GAMES
from server import metrics
from server.errors import (
    ALREADY_REFUSED,
    BAD_REQUEST,
    BAD_TOKEN,
    CONFLICT,
    HAND_NOT_OVER,
    NO_SUCH_HAND,
    REMOVED,
    ROOM_NOT_FOUND,
    UNCONFIRMED,
    CardtableError,
)
from server.game import fairness
from server.game import rules as games
from server.game import session as game_session
from server.game.patch import diff
from server.room import codes, host
from server.room.fanout import CatchUp
from server.room.players import clean_name, find_returning, hash_token, player_of
from server.room.reducer import (
    Auto,
    ComeBack,
    Edit,
    Env,
    FairValue,
    GameCommand,
    GameState,
    Host,
    Intent,
    Join,
    Presence,
    Rename,
    SetUpGame,
    TableOp,
    TakeSeat,
    reduce,
)
from server.store.base import (
    Repeated,
    RoomGone,
    Seen,
    Store,
    StoreUnavailable,
    VersionMismatch,
    unavailable,
    unreachable_is_unavailable,
)
from server.store.rate_limits import SlidingLimiter, Window
from server.table import fairplay
from server.table.apply import SYSTEM_RNG, Change, Limits, new_id
from server.table.encoding import Pieces, encode_room
from server.table.objects import Former, Player, Table, decode_table, encode_table
from server.table.ops import Op
from server.table.templates import new_table
from server.table.view import former_view, players_view, snapshot, view_delta, views_differ

SPEC = "spec"
_pack = msgspec.msgpack.Encoder().encode
_unpack = msgspec.msgpack.Decoder().decode


def view_key(seat: int | None) -> str:
    return SPEC if seat is None else f"s{seat}"


@dataclass
class Commit:
    """A committed change: the new version and the delta each view receives."""

    code: str
    version: int
    deltas: dict[str, dict[str, Any]]
    log: str = ""
    wake: float | None = None  # when the server should make its own move in this room
    # The operation's id had been committed before (an earlier attempt, whose answer was lost):
    # ``version`` is that first commit's, and nothing was committed now.
    repeated: bool = False


@dataclass
class Joined:
    player: Player
    token: str
    commit: Commit | None
    # A returning person whose old seat was taken while they were away: that seat (they watch
    # now, and the page offers the free seats).
    was_seat: int | None = None


@dataclass
class _Cached:
    """The last committed state of a room this process knows: its version, its blob, and (after
    this process's own commit) the decoded table itself, which the next operation takes over
    instead of decoding the blob again. Whoever takes ``table`` sets it to ``None``: a change
    that fails or is refused leaves the blob, and the next operation decodes a clean copy.
    ``session`` is the room's game state decoded at this version (:mod:`server.game.session`):
    engine states are never changed in place, so it stays when the table is taken, and a fresh
    decode of the blob gets it back instead of loading the engine state again. ``pieces`` are
    ``table``'s blob in pieces (:mod:`server.table.encoding`), taken with it: the next commit
    encodes only what it changes."""

    version: int
    blob: bytes
    table: Table | None = None
    session: game_session.Session | None = None
    pieces: Pieces | None = None

    def decoded(self) -> Table:
        """A fresh copy of the table from the blob, with the game's session."""
        table = decode_table(self.blob)
        game_session.adopt(table, self.session)
        return table


OnCommit = Callable[[str, int, dict[str, Any]], None]


@dataclass
class _RoomLock:
    """A room's lock, and how many operations hold it or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


async def _no_wait(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass
class RoomService:
    """``on_commit(code, version, entry)`` is called, in commit order, for every commit this
    process makes (the socket layer's feeds deliver it); ``on_wake(code, when)`` with the time
    the room next wants the server's own move (a game's timed action, a computer player), or
    ``None``. ``rng`` drives every random thing (shuffles, deals, ids, retry jitter: the
    system's secure source by default), ``clock`` the time, ``pause`` how a busy room backs off
    between retries; ``bot_delay`` is how long a computer player waits before it moves."""

    store: Store
    limits: Limits = field(default_factory=Limits)
    retries: int = 60
    on_commit: OnCommit | None = None
    on_wake: Callable[[str, float | None], None] | None = None
    # Called with a room's code when this process may have missed one of its own commits there
    # (one whose answer never came, found later by its operation id): the feed reads the log.
    on_stale: Callable[[str], None] | None = None
    rng: random.Random = SYSTEM_RNG
    clock: Callable[[], float] = time.time
    pause: Callable[[float], Awaitable[None]] = _no_wait
    bot_delay: float = 0.8
    _cache: dict[str, _Cached] = field(default_factory=dict)
    _locks: dict[str, _RoomLock] = field(default_factory=dict)

    # --- reading ---------------------------------------------------------------------------

    async def _load(self, code: str) -> _Cached:
        with unreachable_is_unavailable():
            got = await self.store.load(code)
        if got is None:
            self._cache.pop(code, None)
            raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")
        cached = _Cached(*got)
        known = self._cache.get(code)
        if known is not None and known.version >= cached.version:
            # The same state (keeping its decoded table, if any), or one this process committed
            # while the read was on its way: never go back to an older one.
            return known
        self._cache[code] = cached
        return cached

    def cached_rooms(self) -> set[str]:
        """The rooms whose last committed state this process keeps in memory."""
        return set(self._cache)

    def forget(self, code: str) -> None:
        """Drop the room's cached state (the next use reads it from the store): the heartbeat
        does this for rooms no connection of this process is in, so they don't stay in memory."""
        self._cache.pop(code, None)

    def moved_on(self, code: str, version: int) -> None:
        """Another process committed ``version``: forget an older cached state now, so the next
        operation here reads the new one instead of losing a version race (a wasted commit and
        a back-off pause) to find out."""
        cached = self._cache.get(code)
        if cached is not None and cached.version < version:
            del self._cache[code]

    async def load_table(self, code: str) -> Table:
        """The latest committed table, read from the store."""
        return (await self._load(code)).decoded()

    async def exists(self, code: str) -> bool:
        with unreachable_is_unavailable():
            return await self.store.exists(code)

    async def count_attempt(
        self, kind: str, addr: str, per_minute: int, clock: Callable[[], float] = time.time
    ) -> None:
        """Rate-limit joins and room creations per client address, across all processes: at most
        ``per_minute`` in any 60 seconds (a sliding window in Redis), else ``rate_limited``."""
        await SlidingLimiter(
            self.store, kind, [Window(60, per_minute)], f"{kind} attempts", clock
        ).take(addr)

    # --- creating ---------------------------------------------------------------------------

    async def create_room(
        self,
        template: str = "standard",
        seats: int = 4,
        game: object = None,
        options: object = None,
        computers: str | None = None,
    ) -> Table:
        """A new room. With ``game``, a room for that game (its options checked); with
        ``computers`` too, a computer at that level in every seat but seat 0, so the game
        starts once one person sits there."""
        if not isinstance(seats, int) or not 1 <= seats <= self.limits.max_seats:
            raise CardtableError(BAD_REQUEST, f"A room has 1 to {self.limits.max_seats} seats.")
        if game is not None:
            binding = GAMES.get(game) if isinstance(game, str) else None
            if binding is None:
                raise CardtableError(
                    BAD_REQUEST, f"Unknown game {game!r}; games: {', '.join(GAMES)}."
                )
            template, seats = "blank", min(binding.info.max_players, self.limits.max_seats)
        for _ in range(10):
            code = codes.new_code()
            table = new_table(code, template, seats, self.clock(), self.rng)
            if game is not None:
                reduce(table, SetUpGame(str(game), options, computers), self._env())
            with unreachable_is_unavailable():
                if await self.store.create(code, encode_table(table), table.version):
                    return table
        raise CardtableError(CONFLICT, "Could not find a free room code; try again.")

    # --- mutating ---------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _lock(self, code: str) -> AsyncIterator[None]:
        """Hold the room's lock. The table of locks keeps a room only while an operation holds
        or waits for its lock, so it follows the rooms in use: an entry dropped while someone
        waited on it would let a second lock run beside the first."""
        entry = self._locks.get(code)
        if entry is None:
            entry = self._locks[code] = _RoomLock()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0 and self._locks.get(code) is entry:
                del self._locks[code]

    def locked_rooms(self) -> set[str]:
        """The rooms whose lock an operation holds or waits for now."""
        return set(self._locks)

    def _env(self) -> Env:
        return Env(now=self.clock(), rng=self.rng, limits=self.limits, bot_delay=self.bot_delay)

    async def _mutate(
        self, code: str, intent: Intent, by: str, reason: str = "away", once: str | None = None
    ) -> Commit:
        commit = await self._maybe_mutate(code, intent, by, reason, once)
        assert commit is not None
        return commit

    async def _maybe_mutate(
        self, code: str, intent: Intent, by: str, reason: str = "away", once: str | None = None
    ) -> Commit | None:
        """Reduce ``intent`` on a fresh copy and commit it; ``None``: nothing to do.

        Another process committing first makes the commit fail its version check; the intent
        is then reduced again on the newer state after a jittered, growing pause, so a busy
        room serialises its writers instead of refusing them. ``reason`` is recorded for
        players the change removes ("away", "host").

        ``once`` is the client's id for the operation (player ``by``'s): the commit script
        applies it at most once and answers a repeat with the first outcome, and a refusal of
        it is recorded before it is answered (:meth:`_refused`). A commit whose answer never
        came is ``unconfirmed``, not ``unavailable``: it may have landed, or land later.
        """
        async with self._lock(code):
            for attempt in range(self.retries):
                if attempt:
                    await self.pause(backoff(attempt, self.rng))
                cached = self._cache.get(code) or await self._load(code)
                # A private copy: the table this process committed last (nobody else holds
                # it), or a fresh decode. Either way it is taken, so a rejection or a lost race
                # below can't leave a half-changed table for the next operation.
                table = cached.table
                cached.table = None
                pieces, cached.pieces = cached.pieces, None
                if table is None or table.version != cached.version:
                    table = cached.decoded()
                    pieces = None  # a blob's pieces are not always its decoded table's
                pieces = pieces or Pieces()
                before = set(table.players)
                env = self._env()
                try:
                    change = reduce(table, intent, env)
                except CardtableError as err:
                    if err.retryable:
                        raise
                    # Judged on the state this process has: another process may have committed
                    # since (its feed message not here yet). A refusal stands only for the
                    # room as it is; otherwise the intent is judged again on the newer state.
                    if once is None:
                        if await self._behind(code, cached.version):
                            self._cache.pop(code, None)
                            continue
                        raise
                    try:
                        first = await self._refused(code, by, once, cached.version)
                    except VersionMismatch:
                        self._cache.pop(code, None)
                        continue
                    if first is None:
                        raise
                    return first
                if change is None:  # nothing to do, nothing changed (a heartbeat, a timer)
                    if cached.table is None and self._cache.get(code) is cached:
                        cached.table, cached.pieces = table, pieces
                        cached.session = cached.session or game_session.kept(table)
                    return None
                deltas = build_deltas(table, change, by)
                hands = fairness.take_records(table)  # finished hands, written with the commit
                # Only what changed is encoded; the edit of an operator or a test may have
                # changed anything.
                spliced = encode_room(pieces, table, change, not isinstance(intent, Edit))
                blob = spliced.blob
                entry: dict[str, Any] = {
                    "v": table.version,
                    "d": deltas,
                    "p": {p.id: p.seat for p in table.players.values()},
                }
                gone = before - set(table.players)
                if gone:
                    entry["x"] = dict.fromkeys(sorted(gone), reason)
                try:
                    await self.store.commit(
                        code,
                        cached.version,
                        table.version,
                        blob,
                        _pack(entry),
                        None if once is None else (by, once),
                        hands,
                    )
                except Repeated as rep:
                    self._cache.pop(code, None)
                    return self._repeated(code, rep.seen)
                except VersionMismatch:
                    self._cache.pop(code, None)
                    metrics.COMMIT_RETRIES.inc()
                    continue
                except RoomGone:
                    self._cache.pop(code, None)
                    raise CardtableError(ROOM_NOT_FOUND, "This room has expired.") from None
                except StoreUnavailable as exc:
                    self._cache.pop(code, None)
                    raise (_unconfirmed() if exc.maybe_applied else unavailable()) from None
                metrics.COMMITS.inc()
                pieces.keep(spliced)  # only a commit that landed seeds the pieces
                game_session.remember(table)
                kept = game_session.kept(table)
                self._cache[code] = _Cached(table.version, blob, table, kept, pieces)
                if self.on_commit is not None:
                    self.on_commit(code, table.version, entry)
                wake = games.next_wake(table)
                if self.on_wake is not None:
                    self.on_wake(code, wake)
                return Commit(code, table.version, deltas, change.log, wake)
            raise CardtableError(CONFLICT, "The room is busy; try again.", retryable=True)

    async def _behind(self, code: str, version: int) -> bool:
        """Whether the room in the store is past ``version`` (unknown when the store does not
        answer: then the state at hand is all there is)."""
        try:
            current = await self.store.version(code)
        except StoreUnavailable:
            return False
        return current is not None and current != version

    async def _refused(self, code: str, player: str, once: str, version: int) -> Commit | None:
        """Operation ``once`` was refused on the table at ``version``: record that in the store
        before the refusal is answered, so an earlier attempt of it still on its way to Redis
        can never land afterwards. ``None``: the refusal stands; a commit: an earlier attempt
        had landed already (the refusal came from the state it made), and that is the answer.
        """
        try:
            seen = await self.store.refuse(code, player, once, version)
        except StoreUnavailable:
            raise _unconfirmed() from None
        if seen is None or seen.refused:
            return None
        self._cache.pop(code, None)
        return self._repeated(code, seen)

    def _repeated(self, code: str, seen: Seen) -> Commit:
        """The answer to an operation id that has an outcome already: its first commit, or
        ``already_refused``. Nothing was written now."""
        if seen.refused:
            raise CardtableError(
                ALREADY_REFUSED,
                "This operation was refused before, and was "
                "not applied; send a new operation (with a new id).",
            )
        if self.on_stale is not None:
            self.on_stale(code)
        return Commit(code, seen.version, {}, repeated=True)

    async def apply(self, code: str, player_id: str, op: Op, once: str | None = None) -> Commit:
        return await self._mutate(code, TableOp(player_id, op), player_id, once=once)

    async def game_command(
        self, code: str, player_id: str, action: object, once: str | None = None
    ) -> Commit:
        """A rule plugin's command with no drag (knock, bid, next hand...)."""
        return await self._mutate(code, GameCommand(player_id, action), player_id, once=once)

    async def fair_value(
        self, code: str, player_id: str, deal: int, value: str, once: str | None = None
    ) -> Commit:
        """A seated person's page adds its random value to the deal waiting for values."""
        return await self._mutate(code, FairValue(player_id, deal, value), player_id, once=once)

    async def hand_records(self, code: str) -> list[bytes]:
        """The records (JSON) of the room's finished hands, oldest first."""
        with unreachable_is_unavailable():
            if not await self.store.exists(code):
                raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")
            return await self.store.hand_records(code)

    async def hand_record(self, code: str, n: int) -> bytes:
        """The record (JSON) of the room's ``n``-th finished hand (from 1): ``hand_not_over``
        for the hand being played, ``no_such_hand`` past it."""
        records = await self.hand_records(code)
        if 1 <= n <= len(records):
            return records[n - 1]
        if n == len(records) + 1:
            table = await self.load_table(code)
            if table.game is not None and table.game.fair_now is not None:
                raise CardtableError(
                    HAND_NOT_OVER,
                    f"Hand {n} is still being played: its record is kept once it is over.",
                )
        raise CardtableError(
            NO_SUCH_HAND, f"This room has {len(records)} finished hand(s); there is no hand {n}."
        )

    async def auto_step(self, code: str) -> tuple[Commit | None, float | None]:
        """The server's own move in this room, if one is due (a game's timed action, a
        computer player); and when the room's state says to look again. A step that finds
        nothing to do though the recorded time has come answers ``None``: nothing will happen
        by itself, so nothing polls the room."""
        commit = await self._maybe_mutate(code, Auto(), "server")
        if commit is not None:
            return commit, commit.wake
        when = await self.next_wake(code)
        return None, when if when is not None and when > self.clock() else None

    async def next_wake(self, code: str) -> float | None:
        """When the room next wants the server's own move, as its state records it
        (:func:`server.game.rules.next_wake`); ``None``: nothing will happen by itself."""
        return games.next_wake(await self.known_table(code))

    async def known_table(self, code: str) -> Table:
        """The room's state as this process knows it, to read only: the cached one if any (it
        may be older than the store's while another process's commit is on its way here),
        else read from the store."""
        cached = self._cache.get(code) or await self._load(code)
        table = cached.table
        if table is None or table.version != cached.version:
            table = cached.decoded()
        return table

    async def join(
        self,
        code: str,
        name: object,
        token: object = None,
        seat: object = "auto",
        identity: str | None = None,
    ) -> Joined:
        """Join as a new player, or come back as the player this browser was: by presenting its
        token (reclaiming seat and hand; after leaving, the seat if nobody took it), or, without
        a token, by ``identity`` (the browser identity the connection said ``hello`` with, if
        any) when the room remembers it."""
        if token is not None:
            if not isinstance(token, str) or len(token) > 100:
                raise CardtableError(BAD_TOKEN, "That player token is not valid here.")
            table = await self.load_table(code)
            wanted = hash_token(token)
            for p in table.players.values():
                if secrets.compare_digest(p.token_hash, wanted):
                    return Joined(p, token, None)
            if find_returning(table, wanted, None) is not None:
                return await self._come_back(code, table, wanted, None, token)
            if wanted in table.removed:
                raise CardtableError(
                    REMOVED, "The host removed you from this room. Join again as a new player."
                )
            raise CardtableError(BAD_TOKEN, "That player token is not valid in this room.")
        if identity is not None:
            table = await self.load_table(code)
            if find_returning(table, None, identity) is not None:
                return await self._come_back(code, table, None, identity, secrets.token_urlsafe(24))
        clean = clean_name(name)
        new_token = secrets.token_urlsafe(24)
        pid = new_id("p", self.rng)
        commit = await self._mutate(
            code, Join(pid, clean, hash_token(new_token), seat, identity), pid
        )
        table = await self.load_table(code)
        return Joined(table.players[pid], new_token, commit)

    async def _come_back(
        self, code: str, seen: Table, token_hash: str | None, identity: str | None, token: str
    ) -> Joined:
        found = find_returning(seen, token_hash, identity)
        assert found is not None
        commit = await self._maybe_mutate(
            code, ComeBack(token_hash, identity, hash_token(token)), found.id
        )
        table = await self.load_table(code)
        player = table.players.get(found.id)
        if player is None:  # forgotten, or removed by the host, between the two reads
            raise CardtableError(BAD_TOKEN, "That player token is not valid in this room.")
        was = found.seat if isinstance(found, Former) and player.seat != found.seat else None
        return Joined(player, token, commit, was_seat=was)

    async def take_seat(
        self, code: str, player_id: str, seat: object, once: str | None = None
    ) -> Commit:
        return await self._mutate(code, TakeSeat(player_id, seat), player_id, once=once)

    async def rename(
        self, code: str, player_id: str, name: object, once: str | None = None
    ) -> Commit:
        return await self._mutate(code, Rename(player_id, clean_name(name)), player_id, once=once)

    async def refresh_presence(
        self, code: str, live: set[str], now: float, grace: float
    ) -> Commit | None:
        """Bring players' status in line with which of them have a live connection (see
        :mod:`server.room.presence`)."""
        return await self._maybe_mutate(code, Presence(frozenset(live), grace, now), "server")

    async def edit(self, code: str, fn: Callable[[Table], None]) -> Commit:
        """Change a room's table directly (an operator's repair, a test's set-up); the edit
        is committed and sent like any change."""
        return await self._mutate(code, Edit(fn), "server")

    async def set_game_state(self, code: str, state: dict[str, Any]) -> Commit:
        """Put a room's running game in a given state (an engine dump), checked by the engine:
        tests and operators set up a position this way."""
        return await self._mutate(code, GameState(state), "server")

    async def host_action(
        self,
        code: str,
        player_id: str,
        action: object,
        target: object = None,
        once: str | None = None,
    ) -> Commit:
        """Host only: lock/unlock, remove a player, game rules on/off, computers, start."""
        if action not in host.ACTIONS:
            raise CardtableError(
                BAD_REQUEST,
                f"Host actions are {', '.join(host.ACTIONS[:-1])} and {host.ACTIONS[-1]}.",
            )
        return await self._mutate(
            code, Host(player_id, str(action), target), player_id, reason="host", once=once
        )

    # --- resync -----------------------------------------------------------------------------

    async def catch_up(self, code: str, player_id: str, since: int | None) -> CatchUp:
        """What this player's connection needs to be current, read from the store: the deltas
        of its view after ``since`` when the log still has them and the player held the same
        seat all along, otherwise a snapshot."""
        table = await self.load_table(code)
        player = player_of(table, player_id)
        here = CatchUp(table.version, player.seat)
        if since is None or since > table.version or since < player.seat_since:
            here.snapshot = room_snapshot(table, player.seat)
            return here
        got = await self.entries(code, since, table.version)
        key = view_key(player.seat)
        if got is None or any(e.get("p", {}).get(player_id, -1) != player.seat for e in got):
            here.snapshot = room_snapshot(table, player.seat)
            return here
        here.deltas = [e["d"].get(ALL) or e["d"][key] for e in got]
        return here

    async def entries(self, code: str, after: int, upto: int) -> list[dict[str, Any]] | None:
        """Op-log entries of versions ``after+1 .. upto``, or None if the log lost some."""
        with unreachable_is_unavailable():
            raw = await self.store.log_since(code, after, upto)
        if raw is None:
            return None
        return [_unpack(r) for r in raw]

    async def version(self, code: str) -> int:
        with unreachable_is_unavailable():
            got = await self.store.version(code)
        if got is None:
            raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")
        return got


def backoff(attempt: int, rng: random.Random) -> float:
    """The pause before retry ``attempt`` (1, 2, ...) of a commit that lost the version race:
    uniform jitter under a cap that doubles from 4 ms up to 200 ms."""
    return rng.uniform(0, min(0.2, 0.002 * 2 ** min(attempt, 7)))


def room_snapshot(table: Table, seat: int | None) -> dict[str, Any]:
    """The table as ``seat`` sees it, with the rule plugin's view for that seat."""
    snap = snapshot(table, seat)
    snap["game"] = games.game_view(table, seat)
    return snap


ALL = "all"


def build_deltas(table: Table, change: Change, by: str) -> dict[str, dict[str, Any]]:
    """The delta each view receives: ``{"all": delta}`` when every view gets the same one.

    Views differ when the change touches a hand or a card that is or was in one (only its seat
    holds that card, and sees the hand's ``cards``; the others see the count and get the ids of
    cards entering the hand in ``del``) or the game view changed; otherwise one delta, encoded
    and sent once, serves the whole room. A computer's seat gets no delta: no connection holds
    it, and nobody can catch up on it later (a person who sits there changed seat, and is sent
    a snapshot).
    """
    private = views_differ(table, change)
    players = players_view(table) if change.players_changed else None
    computers = {p.seat for p in table.players.values() if p.bot}
    seats: list[int | None] = (
        [None, *(s for s in range(table.seats) if s not in computers)] if private else [None]
    )
    out = {}
    before = game_session.sent_before(table) if change.game_changed else None
    sent: dict[str, Any] = {}
    for seat in seats:
        shown, gone = view_delta(table, change, seat)
        delta: dict[str, Any] = {
            "v": table.version,
            "set": shown,
            "del": gone,
            "by": by,
        }
        if change.log:
            delta["log"] = change.log
            if change.log_replaces:  # a burst of counter clicks: one line, the latest
                delta["log_replaces"] = True
        if players is not None:
            delta["players"] = players
            delta["former"] = former_view(table)
            delta["locked"] = table.locked
            delta["public"] = table.public
            delta["fair"] = fairplay.view(table)
        key = view_key(seat) if private else ALL
        if change.game_changed:
            view = games.game_view(table, seat)
            base = before.get(key) if before is not None else None
            if base is None or view is None:
                delta["game"] = view
            else:
                patch = diff(base, view)
                if patch:
                    delta["game_patch"] = patch
            sent[key] = view
        out[key] = delta
    if change.game_changed:
        game_session.sending(table, sent)
    return out


def _unconfirmed() -> CardtableError:
    """A commit was sent and its answer never came: it may have landed, or may still land."""
    return CardtableError(
        UNCONFIRMED, "We could not confirm your move; it will be sent again.", retryable=True
    )
