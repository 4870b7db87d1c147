"""The room's one transition function: every change to a room is ``reduce(table, intent, env)``.

Table operations, joins, seats, names, presence, host actions, game commands and the server's
own timed moves are all intents; each is handled by the module that owns it (the table model,
:mod:`server.room.players`, :mod:`server.room.presence`, :mod:`server.room.host`,
:mod:`server.game.rules`), which changes the private copy of the table it is given and
returns a :class:`Change`. ``reduce`` then lets a waiting game start if the seats now allow
it, and commits the change with
:func:`server.table.apply.stamp` - the one place the room's version goes up. The clock, the
randomness (shuffles, dice, ids, deals) and the limits come in ``env``: the reducer reads
nothing else, so a test can replay any sequence exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.errors import FORBIDDEN, CardtableError
from server.game import fairness
from server.game import rules as games
from server.game import session as game_session
from server.room.host import host_action, may_edit, seat_computer
from server.room.players import add_player, come_back, player_of, rename, take_seat
from server.room.presence import settle
from server.table.apply import Actor, Change, Limits, stamp, table_change
from server.table.change import merge
from server.table.objects import Hand, Table
from server.table.ops import EDIT_OPS, Op


@dataclass(frozen=True)
class Env:
    """What a transition may use besides the table: the time, randomness, the limits and the
    computers' pause."""

    now: float
    rng: random.Random
    limits: Limits = Limits()
    bot_delay: float = 0.8  # a computer player's pause before it moves, counted from a commit


@dataclass(frozen=True)
class TableOp:
    player_id: str
    op: Op


@dataclass(frozen=True)
class Join:
    player_id: str
    name: str
    token_hash: str
    seat: object = "auto"
    identity: str | None = None


@dataclass(frozen=True)
class ComeBack:
    """A person the room remembers comes back (by token, else by identity); see
    :func:`server.room.players.come_back`."""

    token_hash: str | None
    identity: str | None
    new_token_hash: str


@dataclass(frozen=True)
class TakeSeat:
    player_id: str
    seat: object


@dataclass(frozen=True)
class Rename:
    player_id: str
    name: str


@dataclass(frozen=True)
class Presence:
    """Which players have a live connection, as of ``now`` (the heartbeats' clock)."""

    live: frozenset[str]
    grace: float
    now: float


@dataclass(frozen=True)
class Host:
    player_id: str
    action: str
    target: object = None


@dataclass(frozen=True)
class FairValue:
    """A seated person's page adds its random value to the deal waiting for values."""

    player_id: str
    deal: int
    value: str


@dataclass(frozen=True)
class GameCommand:
    player_id: str
    action: Any


@dataclass(frozen=True)
class SetUpGame:
    """A room set up for a game; ``computers``: a level, to seat a computer at it in every
    seat but seat 0 (a room made to play against computers)."""

    name: str
    options: Any = None
    computers: str | None = None


@dataclass(frozen=True)
class Edit:
    """An operator's (or a test's) direct edit of the table, e.g. to set up a position; every
    object and the game view are re-sent."""

    fn: Callable[[Table], None]


@dataclass(frozen=True)
class GameState:
    """Put a running game in a given state (an engine dump): tests and operators set up a
    position; it is checked by the engine's ``load`` and projected like any move."""

    state: dict[str, Any]


@dataclass(frozen=True)
class Auto:
    """The server's own move: a game's scheduled action or a computer player's, if due."""


Intent = (
    TableOp
    | Join
    | ComeBack
    | TakeSeat
    | Rename
    | Presence
    | Host
    | GameCommand
    | FairValue
    | SetUpGame
    | Edit
    | GameState
    | Auto
)
# Intents after which a game may start.
SEATING = (Join, ComeBack, TakeSeat, Host, Presence, SetUpGame)


def _actor(table: Table, player_id: str) -> Actor:
    p = player_of(table, player_id)
    return Actor(p.id, p.name, p.seat)


def _change(table: Table, intent: Intent, env: Env) -> Change | None:
    if isinstance(intent, TableOp):
        actor = _actor(table, intent.player_id)
        if isinstance(intent.op, EDIT_OPS) and not may_edit(table, actor.player_id):
            raise CardtableError(
                FORBIDDEN, "Only the host can edit this table (the host can let everyone edit)."
            )
        if table.game is not None:
            return games.game_op(table, actor, intent.op, env.limits, env.rng, env.now)
        return table_change(table, actor, intent.op, env.limits, env.rng)
    if isinstance(intent, GameCommand):
        return games.game_action(
            table, _actor(table, intent.player_id), intent.action, env.rng, env.now
        )
    if isinstance(intent, FairValue):
        return fairness.contribute(
            table, _actor(table, intent.player_id), intent.deal, intent.value
        )
    if isinstance(intent, Join):
        return add_player(
            table,
            intent.player_id,
            intent.name,
            intent.token_hash,
            intent.seat,
            env.limits.max_players,
            intent.identity,
        )
    if isinstance(intent, ComeBack):
        return come_back(
            table, intent.token_hash, intent.identity, intent.new_token_hash, env.limits.max_players
        )
    if isinstance(intent, TakeSeat):
        return take_seat(table, intent.player_id, intent.seat)
    if isinstance(intent, Rename):
        return rename(table, intent.player_id, intent.name)
    if isinstance(intent, Presence):
        return settle(table, intent.live, intent.now, intent.grace)
    if isinstance(intent, Host):
        return host_action(table, intent.player_id, intent.action, intent.target, env.rng, env.now)
    if isinstance(intent, SetUpGame):
        change = games.set_up(table, intent.name, intent.options)
        if intent.computers is not None:
            said = change.log
            for seat in range(1, table.seats):
                change = merge(change, seat_computer(table, seat, intent.computers, env.rng, ""))
            n = table.seats - 1
            change.log = f"{said}; {n} {intent.computers} computer{'s' * (n != 1)} seated"
            assert table.game is not None
            table.game.value_wait = True  # deal 1 waits for the person's value (fairness.py)
        return change
    if isinstance(intent, Edit):
        before = set(table.objects)
        held = {
            cid: h.seat for h in table.objects.values() if isinstance(h, Hand) for cid in h.cards
        }
        intent.fn(table)
        game_session.drop(table)  # the stored game state is checked again when next used
        after = set(table.objects)
        return Change(
            dirty=after,
            removed=before - after,
            created=after - before,
            held={c: s for c, s in held.items() if c in before},
            players_changed=True,
            game_changed=table.game is not None,
        )
    if isinstance(intent, GameState):
        return games.set_state(table, intent.state, env.rng, env.now)
    return games.auto_step(table, env.rng, env.now)


def reduce(table: Table, intent: Intent, env: Env) -> Change | None:
    """Apply ``intent`` to ``table`` (a private copy) and commit it; ``None``: nothing to do.
    A rejection raises ``CardtableError`` part-way; the caller then drops the copy."""
    change = _change(table, intent, env)
    if change is None:
        return None
    if isinstance(intent, (*SEATING, FairValue)):  # a value for deal 1 may start the game
        begun = games.maybe_start(table, env.rng, env.now)
        if begun is not None:
            change = merge(change, begun)
    if change.players_changed and table.game is not None:
        change.game_changed = True  # names, who plays and how many are seated are in its view
    # Every commit restarts the computers' pause: the room records when one may next move, so
    # every process's timer honours the same time.
    table.bot_due = games.bot_due(table, env.now, env.bot_delay, env.rng)
    return stamp(table, change, env.now)
