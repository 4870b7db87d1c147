"""The room service: load, serialise, apply, commit, and build per-seat deltas.

Every change to a room goes through :meth:`RoomService._mutate`: under a per-room lock it takes
a fresh copy of the latest state, lets the pure table model (or a seat/player change) mutate it,
builds the filtered delta for every view (each seat, and spectators), and commits state plus
op-log entry in one versioned Redis transaction. A version mismatch (another server process
committed first) reloads and retries; a rejection raises before anything is written.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from plugins.registry import GAMES
from server import codes
from server.errors import (
    BAD_REQUEST,
    BAD_TOKEN,
    CONFLICT,
    FORBIDDEN,
    NOT_JOINED,
    REMOVED,
    ROOM_FULL,
    ROOM_LOCKED,
    ROOM_NOT_FOUND,
    RULES,
    SEAT_TAKEN,
    UNAVAILABLE,
    CardtableError,
)
from server.fanout import CatchUp
from server.games import apply_game_op, bot_move, game_view, run_action, start_game, stop_game
from server.limits import SlidingLimiter, Window
from server.store.redis_store import RedisStore, RoomGone, StoreUnavailable, VersionMismatch
from server.table.apply import Actor, Change, Limits, apply_op, new_id
from server.table.objects import Player, Table, decode_table, encode_table
from server.table.ops import Op
from server.table.templates import new_table
from server.table.view import players_view, snapshot, view_delta, views_differ

SPEC = "spec"
LOG_LINES = 50  # public log lines kept in the room, sent with every snapshot
_pack = msgspec.msgpack.Encoder().encode
_unpack = msgspec.msgpack.Decoder().decode


def view_key(seat: int | None) -> str:
    return SPEC if seat is None else f"s{seat}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    if not isinstance(raw, str):
        raise CardtableError(BAD_REQUEST, "A name must be text.")
    name = "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C").strip()
    if not 1 <= len(name) <= 32:
        raise CardtableError(BAD_REQUEST, "A name must be 1 to 32 characters.")
    return name


@dataclass
class Commit:
    """A committed change: the new version and the delta each view receives."""

    code: str
    version: int
    deltas: dict[str, dict[str, Any]]
    log: str = ""
    bot_turn: bool = False  # a computer player has a move to make now


@dataclass
class Joined:
    player: Player
    token: str
    snapshot: dict[str, Any]
    commit: Commit | None


@dataclass
class _Cached:
    version: int
    blob: bytes


OnCommit = Callable[[str, int, dict[str, Any]], None]


async def _no_wait(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass
class RoomService:
    """``on_commit(code, version, entry)`` is called, in commit order, for every commit this
    process makes (the socket layer's feeds deliver it). ``rng`` drives the retry jitter and the
    computer players' tie-breaks; ``pause`` is how a busy room backs off between retries."""

    store: RedisStore
    limits: Limits = field(default_factory=Limits)
    retries: int = 60
    on_commit: OnCommit | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    pause: Callable[[float], Awaitable[None]] = _no_wait
    _cache: dict[str, _Cached] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    # --- reading ---------------------------------------------------------------------------

    async def _load(self, code: str) -> _Cached:
        try:
            got = await self.store.load(code)
        except StoreUnavailable:
            raise _unavailable() from None
        if got is None:
            self._cache.pop(code, None)
            raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")
        cached = _Cached(*got)
        self._cache[code] = cached
        return cached

    async def load_table(self, code: str) -> Table:
        """The latest committed table, read from the store."""
        return decode_table((await self._load(code)).blob)

    async def exists(self, code: str) -> bool:
        try:
            return await self.store.exists(code)
        except StoreUnavailable:
            raise _unavailable() from None

    async def count_attempt(self, kind: str, addr: str, per_minute: int,
                            clock: Callable[[], float] = time.time) -> None:
        """Rate-limit joins and room creations per client address, across all processes: at most
        ``per_minute`` in any 60 seconds (a sliding window in Redis), else ``rate_limited``."""
        await SlidingLimiter(self.store, kind, [Window(60, per_minute)], f"{kind} attempts",
                             clock).take(addr)

    # --- creating ---------------------------------------------------------------------------

    async def create_room(self, template: str = "standard", seats: int = 4,
                          game: object = None, options: object = None) -> Table:
        if not isinstance(seats, int) or not 1 <= seats <= self.limits.max_seats:
            raise CardtableError(BAD_REQUEST, f"A room has 1 to {self.limits.max_seats} seats.")
        if game is not None:
            binding = GAMES.get(game) if isinstance(game, str) else None
            if binding is None:
                raise CardtableError(BAD_REQUEST, f"Unknown game {game!r}; games: "
                                     f"{', '.join(GAMES)}.")
            template, seats = "blank", binding.info.max_players
        for _ in range(10):
            code = codes.new_code()
            table = new_table(code, template, seats, time.time())
            if game is not None:
                start_game(table, game, options)
            try:
                if await self.store.create(code, encode_table(table)):
                    return table
            except StoreUnavailable:
                raise _unavailable() from None
        raise CardtableError(CONFLICT, "Could not find a free room code; try again.")

    # --- mutating ---------------------------------------------------------------------------

    def _lock(self, code: str) -> asyncio.Lock:
        lock = self._locks.get(code)
        if lock is None:
            lock = self._locks[code] = asyncio.Lock()
        return lock

    async def _mutate(self, code: str, fn: Callable[[Table], Change], by: str,
                      reason: str = "away") -> Commit:
        commit = await self._maybe_mutate(code, fn, by, reason)
        assert commit is not None
        return commit

    async def _maybe_mutate(
        self, code: str, fn: Callable[[Table], Change | None], by: str, reason: str = "away"
    ) -> Commit | None:
        """Run ``fn`` on a fresh copy and commit its change; ``None`` from ``fn``: no change.

        Another process committing first makes the commit fail its version check; the change is
        then re-run on the newer state after a jittered, growing pause, so a busy room
        serialises its writers instead of refusing them. ``reason`` is recorded for players the
        change removes ("away", "host").
        """
        async with self._lock(code):
            for attempt in range(self.retries):
                if attempt:
                    await self.pause(backoff(attempt, self.rng))
                cached = self._cache.get(code) or await self._load(code)
                table = decode_table(cached.blob)  # a private copy: rejections touch nothing
                before = set(table.players)
                change = fn(table)
                if change is None:
                    return None
                if change.log:
                    table.log = [*table.log[-(LOG_LINES - 1):], change.log]
                deltas = build_deltas(table, change, by)
                blob = encode_table(table)
                entry: dict[str, Any] = {
                    "v": table.version, "d": deltas,
                    "p": {p.id: p.seat for p in table.players.values()},
                }
                gone = before - set(table.players)
                if gone:
                    entry["x"] = dict.fromkeys(sorted(gone), reason)
                try:
                    await self.store.commit(code, cached.version, table.version, blob,
                                            _pack(entry))
                except VersionMismatch:
                    self._cache.pop(code, None)
                    continue
                except RoomGone:
                    self._cache.pop(code, None)
                    raise CardtableError(ROOM_NOT_FOUND, "This room has expired.") from None
                except StoreUnavailable:
                    self._cache.pop(code, None)
                    raise _unavailable() from None
                self._cache[code] = _Cached(table.version, blob)
                if self.on_commit is not None:
                    self.on_commit(code, table.version, entry)
                return Commit(code, table.version, deltas, change.log,
                              bot_turn=bot_move(table, self.rng) is not None)
            raise CardtableError(CONFLICT, "The room is busy; try again.", retryable=True)

    async def apply(self, code: str, player_id: str, op: Op) -> Commit:
        def run(table: Table) -> Change:
            player = _player(table, player_id)
            actor = Actor(player.id, player.name, player.seat)
            if table.game is not None:
                return apply_game_op(table, actor, op, self.limits)
            return apply_op(table, actor, op, self.limits)

        return await self._mutate(code, run, player_id)

    async def bot_step(self, code: str) -> Commit | None:
        """Let one computer player make its move, if one has something to do."""
        table = await self.load_table(code)
        move = bot_move(table, self.rng)
        if move is None:
            return None
        pid, action = move
        try:
            return await self.game_command(code, pid, action)
        except CardtableError as err:
            if err.code in (CONFLICT, RULES):  # someone else moved first; look again later
                return None
            raise

    async def game_command(self, code: str, player_id: str, action: object) -> Commit:
        """A rule plugin's command with no drag (knock, pass the upcard, next hand...)."""

        def run(table: Table) -> Change:
            player = _player(table, player_id)
            return run_action(table, Actor(player.id, player.name, player.seat), action)

        return await self._mutate(code, run, player_id)

    async def join(self, code: str, name: object, token: object = None,
                   seat: object = "auto") -> Joined:
        """Join as a new player, or reclaim a player (seat and hand) by presenting its token."""
        if token is not None:
            if not isinstance(token, str) or len(token) > 100:
                raise CardtableError(BAD_TOKEN, "That player token is not valid here.")
            table = await self.load_table(code)
            wanted = hash_token(token)
            for p in table.players.values():
                if secrets.compare_digest(p.token_hash, wanted):
                    return Joined(p, token, room_snapshot(table, p.seat), None)
            if wanted in table.removed:
                raise CardtableError(REMOVED, "You were removed from this room (away too long, "
                                     "or by the host). Join again as a new player.")
            raise CardtableError(BAD_TOKEN, "That player token is not valid in this room.")
        clean = clean_name(name)
        new_token = secrets.token_urlsafe(24)
        pid = new_id("p")

        def run(table: Table) -> Change:
            if table.locked:
                raise CardtableError(ROOM_LOCKED, "The host has locked this room: no new players.")
            if len(table.players) >= self.limits.max_players:
                raise CardtableError(ROOM_FULL, "This room is full.")
            taken = table.seated()
            chosen: int | None
            if seat == "auto":
                chosen = next((s for s in range(table.seats) if s not in taken), None)
            elif seat is None:
                chosen = None
            else:
                chosen = _check_seat(table, seat)
            table.version += 1
            table.players[pid] = Player(id=pid, name=clean, token_hash=hash_token(new_token),
                                        seat=chosen, seat_since=table.version,
                                        host=not table.players)
            where = f"seat {chosen + 1}" if chosen is not None else "as a spectator"
            return Change(players_changed=True, log=f"{clean} joined {where}")

        commit = await self._mutate(code, run, pid)
        table = await self.load_table(code)
        player = table.players[pid]
        return Joined(player, new_token, room_snapshot(table, player.seat), commit)

    async def take_seat(self, code: str, player_id: str, seat: object) -> Commit:
        def run(table: Table) -> Change:
            player = _player(table, player_id)
            chosen = None if seat is None else _check_seat(table, seat, player_id)
            if chosen == player.seat:
                raise CardtableError(BAD_REQUEST, "You are already there.")
            table.version += 1
            player.seat = chosen
            player.seat_since = table.version
            where = f"took seat {chosen + 1}" if chosen is not None else "left their seat"
            return Change(players_changed=True, log=f"{player.name} {where}")

        return await self._mutate(code, run, player_id)

    async def rename(self, code: str, player_id: str, name: object) -> Commit:
        clean = clean_name(name)

        def run(table: Table) -> Change:
            player = _player(table, player_id)
            old, player.name = player.name, clean
            table.version += 1
            return Change(players_changed=True, log=f"{old} is now {clean}")

        return await self._mutate(code, run, player_id)

    # --- presence and host actions -----------------------------------------------------------

    async def refresh_presence(self, code: str, live: set[str], now: float,
                               grace: float) -> tuple[Commit | None, list[str]]:
        """Bring players' status in line with which of them have a live connection.

        A player with no live connection is marked ``reconnecting``; once away longer than
        ``grace`` seconds they are removed: their seat is free again (its hand stays where it
        is, hidden, for whoever sits down) and their token no longer joins. Returns the commit,
        if anything changed, and the ids of removed players.
        """
        removed: list[str] = []

        def run(table: Table) -> Change | None:
            removed.clear()
            logs = []
            for p in list(table.players.values()):
                if p.bot:
                    continue
                if p.id in live:
                    if p.status != "online":
                        p.status, p.away_since = "online", 0.0
                        logs.append(f"{p.name} is back")
                elif p.status == "online":
                    p.status, p.away_since = "reconnecting", now
                    logs.append(f"{p.name} lost connection")
                elif now - p.away_since >= grace:
                    _remove_player(table, p)
                    removed.append(p.id)
                    logs.append(f"{p.name} was removed after being away too long")
            if not logs:
                return None
            table.version += 1
            return Change(players_changed=True, log="; ".join(logs))

        commit = await self._maybe_mutate(code, run, "server")
        return commit, list(removed) if commit else []

    async def host_action(self, code: str, player_id: str, action: object,
                          target: object = None) -> Commit:
        """The host locks/unlocks the room to new players, or removes a player."""
        if action not in ("lock", "unlock", "remove", "game", "bot"):
            raise CardtableError(BAD_REQUEST, "Host actions are lock, unlock, remove, game "
                                 "and bot.")

        def run(table: Table) -> Change:
            me = _player(table, player_id)
            if not me.host:
                raise CardtableError(FORBIDDEN, "Only the host can do that.")
            if action == "bot":
                if table.game is None:
                    raise CardtableError(BAD_REQUEST, "Computer players need a game's rules: "
                                         "start a game first.")
                seat = _check_seat(table, target.get("seat") if isinstance(target, dict)
                                   else None)
                table.version += 1
                bot = Player(id=new_id("p"), name=f"Computer {seat + 1}", seat=seat,
                             token_hash=hash_token(secrets.token_urlsafe(24)), bot=True,
                             seat_since=table.version)
                table.players[bot.id] = bot
                return Change(players_changed=True, log=f"{me.name} seated {bot.name}")
            if action == "game":
                game = target.get("game") if isinstance(target, dict) else None
                options = target.get("options") if isinstance(target, dict) else None
                if game is None:
                    return stop_game(table)
                change = start_game(table, game, options)
                change.log = f"{me.name} started a game of {GAMES[str(game)].info.title}"
                return change
            table.version += 1
            if action == "remove":
                victim = table.players.get(target) if isinstance(target, str) else None
                if victim is None or victim.id == me.id:
                    raise CardtableError(BAD_REQUEST, "Name another player to remove.")
                _remove_player(table, victim)
                return Change(players_changed=True, log=f"{me.name} removed {victim.name}")
            table.locked = action == "lock"
            state = "locked the room" if table.locked else "opened the room to new players"
            return Change(players_changed=True, log=f"{me.name} {state}")

        return await self._mutate(code, run, player_id, reason="host")

    # --- resync -----------------------------------------------------------------------------

    async def catch_up(self, code: str, player_id: str, since: int | None) -> CatchUp:
        """What this player's connection needs to be current, read from the store: the deltas
        of its view after ``since`` when the log still has them and the player held the same
        seat all along, otherwise a snapshot."""
        table = await self.load_table(code)
        player = _player(table, player_id)
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
        try:
            raw = await self.store.log_since(code, after, upto)
        except StoreUnavailable:
            raise _unavailable() from None
        if raw is None:
            return None
        return [_unpack(r) for r in raw]

    async def version(self, code: str) -> int:
        try:
            got = await self.store.version(code)
        except StoreUnavailable:
            raise _unavailable() from None
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
    snap["game"] = game_view(table, seat)
    return snap


ALL = "all"


def build_deltas(table: Table, change: Change, by: str) -> dict[str, dict[str, Any]]:
    """The delta each view receives: ``{"all": delta}`` when every view gets the same one.

    Views differ when the change touches a hand or a card that is or was in one (only its seat
    holds that card, and sees the hand's ``cards``; the others see the count and get the ids of
    cards entering the hand in ``del``) or the game view changed; otherwise one delta, encoded
    and sent once, serves the whole room.
    """
    private = views_differ(table, change)
    players = players_view(table) if change.players_changed else None
    seats: list[int | None] = [None, *range(table.seats)] if private else [None]
    out = {}
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
        if players is not None:
            delta["players"] = players
            delta["locked"] = table.locked
        if change.game_changed:
            delta["game"] = game_view(table, seat)
        out[view_key(seat) if private else ALL] = delta
    return out


def _remove_player(table: Table, player: Player) -> None:
    del table.players[player.id]
    table.undo.pop(player.id, None)
    table.removed = [*table.removed[-199:], player.token_hash]
    if player.host and table.players:
        next(iter(table.players.values())).host = True


def _player(table: Table, player_id: str) -> Player:
    player = table.players.get(player_id)
    if player is None:
        raise CardtableError(NOT_JOINED, "You are not a player in this room; join first.")
    return player


def _check_seat(table: Table, seat: object, player_id: str | None = None) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.seats:
        raise CardtableError(BAD_REQUEST, f"Seats are numbered 0 to {table.seats - 1}.")
    holder = table.seated().get(seat)
    if holder is not None and holder.id != player_id:
        raise CardtableError(SEAT_TAKEN, f"Seat {seat + 1} is taken by {holder.name}.")
    return seat


def _unavailable() -> CardtableError:
    return CardtableError(UNAVAILABLE, "The game store is unreachable right now; try again in a "
                          "moment.", retryable=True)
