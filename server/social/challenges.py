"""Challenges: one player invites an online player to a game; on accept the server makes the
room. A challenge is kept in the store; whoever deletes it (answer or cancel) settles it, so two
processes can never both act on one.

Expiry: an open challenge is also listed in the store by when it expires. Any process may sweep
that set (a timer on the process that opened the challenge, and every process's heartbeat, in case
that one died): the sweep marks each due challenge expired in one script, so exactly one process
announces it. Answering or cancelling an expired challenge (marked or not yet swept) is
``challenge_expired``.

An invite is a challenge that names an existing room (``room``): the same store, expiry, limits
and answers; accepting it sends the invitee to that room instead of making one."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from plugins.registry import GAMES
from server.errors import BAD_REQUEST, FORBIDDEN, CardtableError
from server.game import rules as games
from server.social.keys import CHALLENGE_EXPIRED, UNKNOWN_CHALLENGE
from server.store.base import SocialStore, answers_unavailable
from server.table.templates import new_table

KEEP = 3600  # seconds the store keeps an unanswered challenge at all
SWEEP = 200  # most challenges one sweep expires


@dataclass(frozen=True)
class Open:
    id: str
    sender: str
    sender_name: str
    to: str
    game: str
    options: dict[str, Any] | None
    at: float
    room: str | None = None  # an invite to this room
    seat: int | None = None  # an invite's seat for the invitee, if it is free then

    def expired(self) -> dict[str, Any]:
        """The ``challenge_expired`` event both players' pages get."""
        return {"id": self.id, "from": {"id": self.sender, "name": self.sender_name}, "to": self.to}

    def challenged(self) -> dict[str, Any]:
        """The ``challenged`` event the target's pages get."""
        out: dict[str, Any] = {
            "id": self.id,
            "from": {"id": self.sender, "name": self.sender_name},
            "game": self.game or None,
            "options": self.options or {},
        }
        if self.room is not None:
            out["invite"] = True
        return out


def check_game(game: str, options: dict[str, Any] | None) -> None:
    """The game exists and takes these options (``bad_request`` naming the problem)."""
    binding = GAMES.get(game)
    if binding is None:
        raise CardtableError(BAD_REQUEST, f"Unknown game {game!r}; games: {', '.join(GAMES)}.")
    games.set_up(new_table("CHECK", "blank", binding.info.max_players, 0.0), game, options)


class Challenges:
    """``expires``: seconds a challenge waits for its answer."""

    def __init__(self, store: SocialStore, expires: float) -> None:
        self.store = store
        self.expires = expires

    @answers_unavailable
    async def open(
        self,
        sender: str,
        sender_name: str,
        to: str,
        game: str,
        options: dict[str, Any] | None,
        now: float,
        room: str | None = None,
        seat: int | None = None,
    ) -> Open:
        """A new challenge (``room``: an invite to that room, whose ``game`` is already set;
        ``""`` for a free table)."""
        if room is None:
            check_game(game, options)
        ch = Open(
            secrets.token_urlsafe(12), sender, sender_name, to, game, options, now, room, seat
        )
        fields = {
            "f": sender,
            "fn": sender_name,
            "t": to,
            "g": game,
            "o": json.dumps(options),
            "at": repr(now),
        }
        if room is not None:
            fields["r"] = room
        if seat is not None:
            fields["s"] = str(seat)
        await self.store.challenge_open(ch.id, fields, KEEP, now + self.expires)
        return ch

    @answers_unavailable
    async def sweep(self, now: float) -> list[Open]:
        """Mark the challenges due by ``now`` expired; the ones this call marked (to announce)."""
        got = await self.store.challenge_sweep(now, SWEEP)
        return [Open(i, sender, name, to, "", None, now) for i, sender, name, to in got]

    @answers_unavailable
    async def take(self, challenge: str, me: str, side: str, now: float) -> Open:
        """Settle a challenge: ``side`` "to" answers it, "from" cancels it. Only one caller
        ever gets it; an expired one is removed and refused with ``challenge_expired``."""
        got = await self.store.challenge_fields(challenge)
        if not got or got.get("f" if side == "from" else "t") != me:
            if got and me in (got.get("f"), got.get("t")):
                raise CardtableError(
                    FORBIDDEN, "Only the challenged player answers; only the challenger cancels."
                )
            raise CardtableError(UNKNOWN_CHALLENGE, "That challenge is no longer open.")
        ch = Open(
            challenge,
            got["f"],
            got["fn"],
            got["t"],
            got["g"],
            json.loads(got["o"]),
            float(got["at"]),
            got.get("r"),
            int(got["s"]) if got.get("s") else None,
        )
        settled = await self.store.challenge_take(challenge, now)
        if not settled:
            raise CardtableError(UNKNOWN_CHALLENGE, "That challenge is no longer open.")
        if settled == 2 or now - ch.at > self.expires:
            raise CardtableError(CHALLENGE_EXPIRED, "That challenge has expired.")
        return ch


def check_target(sender: str, to: str) -> None:
    if sender == to:
        raise CardtableError(BAD_REQUEST, "You cannot challenge yourself.")
