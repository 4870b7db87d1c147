"""Players of a room: joining, seats, names, leaving and coming back. Pure changes to a table.

A room remembers who was in it for as long as it lives: a person away past the grace period
leaves (seat free, hand kept hidden in place) but is kept in ``table.former``, so the same browser
comes back as the same player, to its old seat if nobody took it. A newcomer is never seated
automatically at a seat whose hand still holds cards (someone else's, or a vacated game seat):
they get an empty seat, or watch and may take that seat over on purpose. The room's creator is
host whenever present; while they are away the powers pass to someone present.

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
from server.table.objects import Former, Hand, Player, Table, hand_id

FORMER_KEPT = 200  # people a room remembers (the oldest are forgotten past this)


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


def holds_cards(table: Table, seat: int) -> bool:
    """Does this seat's hand hold cards (a departed player's, or a game's)?"""
    hand = table.objects.get(hand_id(seat))
    return isinstance(hand, Hand) and bool(hand.cards)


def _vacated(table: Table, seat: int) -> bool:
    """A free seat that still carries someone's game: cards in its hand, or (in a started rule
    game) a place in the game's turn order. Only a deliberate choice takes it over."""
    if holds_cards(table, seat):
        return True
    game = table.game
    return game is not None and game.state is not None and seat in game.seats


def auto_seat(table: Table) -> int | None:
    """The seat a newcomer gets: the first free one that carries nobody's game, preferring
    seats no departed person may come back to; ``None`` (watch) if every free seat does."""
    taken = table.seated()
    remembered = {f.seat for f in table.former}
    free = [s for s in range(table.seats) if s not in taken and not _vacated(table, s)]
    return next((s for s in free if s not in remembered), free[0] if free else None)


def settle_host(table: Table) -> None:
    """Host powers: the room's creator whenever present; otherwise whoever present already has
    them, or else the first person present. Computers are never host."""
    people = [p for p in table.players.values() if not p.bot]
    creator = table.players.get(table.creator)
    holder = (
        creator
        if creator is not None and not creator.bot
        else next((p for p in people if p.host), people[0] if people else None)
    )
    for p in table.players.values():
        p.host = p is holder


def add_player(
    table: Table,
    player_id: str,
    name: str,
    token_hash: str,
    seat: object,
    max_players: int,
    identity: str | None = None,
) -> Change:
    """A new player; ``seat`` is ``"auto"`` (see :func:`auto_seat`), ``None`` (watch) or a seat
    (which may be a vacated one: the newcomer takes over the cards there)."""
    if table.locked:
        raise CardtableError(ROOM_LOCKED, "The host has locked this room: no new players.")
    if len(table.players) >= max_players:
        raise CardtableError(ROOM_FULL, "This room is full.")
    chosen: int | None
    if seat == "auto":
        chosen = auto_seat(table)
    elif seat is None:
        chosen = None
    else:
        chosen = check_seat(table, seat)
    table.players[player_id] = Player(
        id=player_id,
        name=name,
        token_hash=token_hash,
        seat=chosen,
        seat_since=table.version + 1,
        identity=identity,
    )
    if not table.creator:  # the first person (a room from before creators: its host)
        table.creator = next((p.id for p in table.players.values() if p.host), player_id)
    settle_host(table)
    where = f"seat {chosen + 1}" if chosen is not None else "as a spectator"
    return Change(players_changed=True, log=f"{name} joined {where}")


def find_returning(
    table: Table, token_hash: str | None, identity: str | None
) -> Former | Player | None:
    """The person this browser was in the room: a departed one (by token, else by identity), or
    a present one who lost the connection and comes back by identity without its token."""
    if token_hash is not None:
        return next((f for f in table.former if f.token_hash == token_hash), None)
    if identity is None:
        return None
    found = next((f for f in reversed(table.former) if f.identity == identity), None)
    if found is not None:
        return found
    return next(
        (
            p
            for p in table.players.values()
            if p.identity == identity and not p.bot and p.status != "online"
        ),
        None,
    )


def come_back(
    table: Table,
    token_hash: str | None,
    identity: str | None,
    new_token_hash: str,
    max_players: int,
) -> Change | None:
    """The person this browser was comes back (see :func:`find_returning`): as the same player,
    to the old seat if it is free, else watching (the page offers the free seats). A person
    found by identity alone gets ``new_token_hash``; one with its token keeps it. ``None``: the
    token's player is already back (another page of the same browser came first)."""
    if token_hash is not None and any(p.token_hash == token_hash for p in table.players.values()):
        return None
    found = find_returning(table, token_hash, identity)
    if found is None:
        raise CardtableError(NOT_JOINED, "This room does not remember you; join as a new player.")
    if isinstance(found, Player):
        found.token_hash = new_token_hash
        return Change(log="")
    if len(table.players) >= max_players:
        raise CardtableError(ROOM_FULL, "This room is full.")
    table.former.remove(found)
    seat = found.seat if found.seat is not None and found.seat not in table.seated() else None
    table.players[found.id] = Player(
        id=found.id,
        name=found.name,
        seat=seat,
        seat_since=table.version + 1,
        token_hash=found.token_hash if token_hash is not None else new_token_hash,
        identity=found.identity,
    )
    settle_host(table)
    if seat is not None or found.seat is None:
        where = f"to seat {seat + 1}" if seat is not None else "to watch"
        return Change(players_changed=True, log=f"{found.name} is back {where}")
    return Change(
        players_changed=True,
        log=f"{found.name} is back; seat {found.seat + 1} is taken, so they watch",
    )


def add_computer(
    table: Table, player_id: str, seat: object, token_hash: str, by: str, level: str = "normal"
) -> Change:
    """A computer player at ``seat``, playing at ``level`` (one of ``plugins.game.LEVELS``,
    checked by the caller)."""
    chosen = check_seat(table, seat)
    bot = Player(
        id=player_id,
        name=f"Computer {chosen + 1}",
        seat=chosen,
        token_hash=token_hash,
        bot=True,
        level=level,
        seat_since=table.version + 1,
    )
    table.players[bot.id] = bot
    shown = "" if level == "normal" else f" ({level})"
    return Change(players_changed=True, log=f"{by} seated {bot.name}{shown}")


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


def remove_player(
    table: Table, player: Player, *, now: float = 0.0, remember: bool = False
) -> None:
    """The player leaves: seat free (the hand stays, hidden). ``remember``: they left by being
    away, and may come back (see :func:`come_back`); otherwise (the host removed them) their
    token is refused from now on."""
    del table.players[player.id]
    table.undo.pop(player.id, None)
    if remember:
        table.former = [
            *[f for f in table.former if f.id != player.id][-(FORMER_KEPT - 1) :],
            Former(
                id=player.id,
                name=player.name,
                token_hash=player.token_hash,
                seat=player.seat,
                identity=player.identity,
                left_at=now,
            ),
        ]
    else:
        table.removed = [*table.removed[-199:], player.token_hash]
    settle_host(table)
