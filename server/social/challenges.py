"""Challenges: one player invites an online player to a game; on accept the server makes the
room. A challenge is a Redis hash; whoever deletes it (answer or cancel) settles it, so two
processes can never both act on one. Expiry is checked lazily against the injected clock."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from plugins.registry import GAMES
from server import games
from server.errors import BAD_REQUEST, FORBIDDEN, CardtableError
from server.social.keys import CHALLENGE_EXPIRED, UNKNOWN_CHALLENGE, call, challenge_key
from server.table.templates import new_table

EXPIRES = 60.0  # seconds a challenge waits for its answer
KEEP = 3600  # seconds Redis keeps an unanswered challenge at all


@dataclass(frozen=True)
class Open:
    id: str
    sender: str
    sender_name: str
    to: str
    game: str
    options: dict[str, Any] | None
    at: float

    def challenged(self) -> dict[str, Any]:
        """The ``challenged`` event the target's pages get."""
        return {"id": self.id, "from": {"id": self.sender, "name": self.sender_name},
                "game": self.game, "options": self.options or {}}


def check_game(game: str, options: dict[str, Any] | None) -> None:
    """The game exists and takes these options (``bad_request`` naming the problem)."""
    binding = GAMES.get(game)
    if binding is None:
        raise CardtableError(BAD_REQUEST, f"Unknown game {game!r}; games: {', '.join(GAMES)}.")
    games.set_up(new_table("CHECK", "blank", binding.info.max_players, 0.0), game, options)


class Challenges:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis

    async def open(self, sender: str, sender_name: str, to: str, game: str,
                   options: dict[str, Any] | None, now: float) -> Open:
        check_game(game, options)
        ch = Open(secrets.token_urlsafe(12), sender, sender_name, to, game, options, now)
        key = challenge_key(ch.id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping={"f": sender, "fn": sender_name, "t": to, "g": game,
                                "o": json.dumps(options), "at": repr(now)})
        pipe.expire(key, KEEP)
        await call(pipe.execute())
        return ch

    async def take(self, challenge: str, me: str, side: str, now: float) -> Open:
        """Settle a challenge: ``side`` "to" answers it, "from" cancels it. Only one caller
        ever gets it; an expired one is removed and refused with ``challenge_expired``."""
        key = challenge_key(challenge)
        raw = await call(self.redis.hgetall(key))
        got = {_text(k): _text(v) for k, v in raw.items()}
        if not got or got.get("f" if side == "from" else "t") != me:
            if got and me in (got.get("f"), got.get("t")):
                raise CardtableError(FORBIDDEN, "Only the challenged player answers; only the "
                                     "challenger cancels.")
            raise CardtableError(UNKNOWN_CHALLENGE, "That challenge is no longer open.")
        ch = Open(challenge, got["f"], got["fn"], got["t"], got["g"], json.loads(got["o"]),
                  float(got["at"]))
        if not await call(self.redis.delete(key)):
            raise CardtableError(UNKNOWN_CHALLENGE, "That challenge is no longer open.")
        if now - ch.at > EXPIRES:
            raise CardtableError(CHALLENGE_EXPIRED, "That challenge has expired.")
        return ch


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def check_target(sender: str, to: str) -> None:
    if sender == to:
        raise CardtableError(BAD_REQUEST, "You cannot challenge yourself.")
