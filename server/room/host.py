"""What the host may do: lock the room, remove a player, turn a game's rules on or off, seat
computer players (at a level), start a game before every seat is taken, play a finished game
again with the same seats, say who may edit the table. Pure changes to a table."""

from __future__ import annotations

import random
from typing import Literal, get_args

from plugins.game import DEFAULT_LEVEL, LEVELS
from plugins.registry import GAMES
from server.errors import BAD_REQUEST, FORBIDDEN, CardtableError
from server.game import rules as games
from server.room.players import add_computer, hash_token, player_of, remove_player
from server.table import fairplay
from server.table.apply import Change, board, new_id
from server.table.objects import Board, Table

# The host's actions: the one list (the ``host`` event's schema, the service's check and the
# generated TypeScript all read it).
HostAction = Literal[
    "lock",
    "unlock",
    "remove",
    "game",
    "bot",
    "start",
    "again",
    "edit",
    "public",
    "reveal",
]
ACTIONS: tuple[str, ...] = get_args(HostAction)
# A computer's level, as the ``host`` event and ``POST /api/rooms`` take it: plugins.game.LEVELS.
Level = Literal["easy", "normal", "hard"]
if get_args(Level) != LEVELS:  # pragma: no cover - caught at import, by every test
    raise AssertionError("host.Level must be plugins.game.LEVELS")
# The ``host`` event's fields each action takes besides ``action`` (any other is refused).
TAKES: dict[str, frozenset[str]] = {
    "lock": frozenset(),
    "unlock": frozenset(),
    "remove": frozenset({"player"}),
    "game": frozenset({"game", "options"}),
    "bot": frozenset({"seat", "level"}),
    "start": frozenset(),
    "again": frozenset(),
    "edit": frozenset({"who"}),
    "public": frozenset({"public"}),
    "reveal": frozenset(),
}
FIELDS: frozenset[str] = frozenset().union(*TAKES.values())
if set(TAKES) != set(ACTIONS):  # pragma: no cover - caught at import, by every test
    raise AssertionError("host.TAKES must name every host action")
EDITORS = ("host", "all")


def may_edit(table: Table, player_id: str) -> bool:
    """Can this player create, change and delete objects? The host always; everyone else
    when the host has opened editing to all (the room's board says ``edit: "all"``)."""
    player = table.players.get(player_id)
    if player is None:
        return False
    found = board(table)
    return player.host or (found is not None and found.edit == "all")


def set_editors(table: Table, who: object, by: str) -> Change:
    if who not in EDITORS:
        raise CardtableError(BAD_REQUEST, "Say who may edit: 'host' or 'all'.")
    found = board(table)
    change = Change(
        log=f"{by} let {'everyone' if who == 'all' else 'only the host'} edit the table"
    )
    if found is None:
        found = table.objects[Board().id] = Board()
        change.created.add(found.id)
    found.edit = str(who)
    change.dirty.add(found.id)
    return change


def seat_computer(table: Table, seat: object, level: object, rng: random.Random, by: str) -> Change:
    """A computer at ``seat`` playing at ``level`` (``bad_request`` for a level not in LEVELS)."""
    if level not in LEVELS:
        raise CardtableError(BAD_REQUEST, f"A computer's level is one of {', '.join(LEVELS)}.")
    token = hash_token(f"{rng.getrandbits(128):032x}")
    return add_computer(table, new_id("p", rng), seat, token, by, str(level))


def _reveal_shuffles(table: Table, by: str) -> Change:
    """Free play: reveal the seeds of the shuffles made (free play's shuffles are always fair)."""
    if table.game is not None:
        raise CardtableError(
            BAD_REQUEST, "Revealing shuffles is for free play: a rule game reveals each deal."
        )
    if not table.fair_shuffles:
        raise CardtableError(BAD_REQUEST, "There is no shuffle to reveal yet.")
    return Change(log=f"{by}: {fairplay.reveal(table)}")


def host_action(
    table: Table, player_id: str, action: str, target: object, rng: random.Random, now: float
) -> Change:
    me = player_of(table, player_id)
    if not me.host:
        raise CardtableError(FORBIDDEN, "Only the host can do that.")
    if action == "bot":
        if table.game is None:
            raise CardtableError(
                BAD_REQUEST, "Computer players need a game's rules: start a game first."
            )
        seat = target.get("seat") if isinstance(target, dict) else None
        level = target.get("level") if isinstance(target, dict) else None
        return seat_computer(table, seat, DEFAULT_LEVEL if level is None else level, rng, me.name)
    if action == "game":
        name = target.get("game") if isinstance(target, dict) else None
        options = target.get("options") if isinstance(target, dict) else None
        if name is None:
            return games.stop_game(table)
        change = games.set_up(table, name, options)
        change.log = f"{me.name} chose a game of {GAMES[str(name)].info.title}"
        return change
    if action == "start":
        if table.game is None:
            raise CardtableError(BAD_REQUEST, "Choose a game first.")
        if games.started(table):
            raise CardtableError(BAD_REQUEST, "The game has already started.")
        started = games.maybe_start(table, rng, now, force=True)
        assert started is not None
        return started
    if action == "again":
        change = games.play_again(table, rng, now)
        assert table.game is not None
        change.log = f"{me.name} started a new game of {GAMES[table.game.name].info.title}"
        return change
    if action == "reveal":
        return _reveal_shuffles(table, me.name)
    if action == "edit":
        return set_editors(
            table, target.get("who") if isinstance(target, dict) else target, me.name
        )
    if action == "remove":
        victim = table.players.get(target) if isinstance(target, str) else None
        if victim is None or victim.id == me.id:
            raise CardtableError(BAD_REQUEST, "Name another player to remove.")
        remove_player(table, victim)
        return Change(players_changed=True, log=f"{me.name} removed {victim.name}")
    if action == "public":
        if not isinstance(target, bool):
            raise CardtableError(BAD_REQUEST, "Say public: true or false.")
        table.public = target
        listed = "listed the room in the lobby" if target else "took the room off the lobby"
        return Change(players_changed=True, log=f"{me.name} {listed}")
    if action not in ("lock", "unlock"):
        raise CardtableError(BAD_REQUEST, f"Host actions are {', '.join(ACTIONS)}.")
    table.locked = action == "lock"
    state = "locked the room" if table.locked else "opened the room to new players"
    return Change(players_changed=True, log=f"{me.name} {state}")
