"""Players of a room: joining, seats, names, removal. Pure changes to a table.

Each function changes the table it is given and returns the :class:`Change`; none bumps the
version (the reducer does, once, in :func:`server.table.apply.stamp`). ``table.version + 1`` is
the version the change will have.
"""

from __future__ import annotations

import hashlib
import unicodedata

from server.errors import (
    BAD_REQUEST,
    NOT_JOINED,
    ROOM_FULL,
    ROOM_LOCKED,
    SEAT_TAKEN,
    CardtableError,
)
from server.table.apply import Change
from server.table.objects import Player, Table


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    if not isinstance(raw, str):
        raise CardtableError(BAD_REQUEST, "A name must be text.")
    name = "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C").strip()
    if not 1 <= len(name) <= 32:
        raise CardtableError(BAD_REQUEST, "A name must be 1 to 32 characters.")
    return name


def player_of(table: Table, player_id: str) -> Player:
    player = table.players.get(player_id)
    if player is None:
        raise CardtableError(NOT_JOINED, "You are not a player in this room; join first.")
    return player


def check_seat(table: Table, seat: object, player_id: str | None = None) -> int:
    """``seat`` if it is a seat of this table that is free (or already ``player_id``'s)."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.seats:
        raise CardtableError(BAD_REQUEST, f"Seats are numbered 0 to {table.seats - 1}.")
    holder = table.seated().get(seat)
    if holder is not None and holder.id != player_id:
        raise CardtableError(SEAT_TAKEN, f"Seat {seat + 1} is taken by {holder.name}.")
    return seat


def add_player(table: Table, player_id: str, name: str, token_hash: str, seat: object,
               max_players: int, identity: str | None = None) -> Change:
    """A new player; ``seat`` is ``"auto"`` (the first free seat), ``None`` (watch) or a seat."""
    if table.locked:
        raise CardtableError(ROOM_LOCKED, "The host has locked this room: no new players.")
    if len(table.players) >= max_players:
        raise CardtableError(ROOM_FULL, "This room is full.")
    taken = table.seated()
    chosen: int | None
    if seat == "auto":
        chosen = next((s for s in range(table.seats) if s not in taken), None)
    elif seat is None:
        chosen = None
    else:
        chosen = check_seat(table, seat)
    table.players[player_id] = Player(id=player_id, name=name, token_hash=token_hash,
                                      seat=chosen, seat_since=table.version + 1,
                                      host=not table.players, identity=identity)
    where = f"seat {chosen + 1}" if chosen is not None else "as a spectator"
    return Change(players_changed=True, log=f"{name} joined {where}")


def add_computer(table: Table, player_id: str, seat: object, token_hash: str, by: str) -> Change:
    chosen = check_seat(table, seat)
    bot = Player(id=player_id, name=f"Computer {chosen + 1}", seat=chosen,
                 token_hash=token_hash, bot=True, seat_since=table.version + 1)
    table.players[bot.id] = bot
    return Change(players_changed=True, log=f"{by} seated {bot.name}")


def take_seat(table: Table, player_id: str, seat: object) -> Change:
    player = player_of(table, player_id)
    chosen = None if seat is None else check_seat(table, seat, player_id)
    if chosen == player.seat:
        raise CardtableError(BAD_REQUEST, "You are already there.")
    player.seat = chosen
    player.seat_since = table.version + 1
    where = f"took seat {chosen + 1}" if chosen is not None else "left their seat"
    return Change(players_changed=True, log=f"{player.name} {where}")


def rename(table: Table, player_id: str, name: str) -> Change:
    player = player_of(table, player_id)
    old, player.name = player.name, name
    return Change(players_changed=True, log=f"{old} is now {name}")


def remove_player(table: Table, player: Player) -> None:
    """The player leaves for good: seat free (the hand stays, hidden), token refused."""
    del table.players[player.id]
    table.undo.pop(player.id, None)
    table.removed = [*table.removed[-199:], player.token_hash]
    if player.host:
        people = [p for p in table.players.values() if not p.bot]
        if people:
            people[0].host = True
