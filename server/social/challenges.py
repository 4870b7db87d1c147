"""Challenges: one player invites an online player to a game; on accept the server makes the
room. A challenge is a Redis hash; whoever deletes it (answer or cancel) settles it, so two
processes can never both act on one.

Expiry: an open challenge is also in a Redis set scored by when it expires. Any process may sweep
that set (a timer on the process that opened the challenge, and every process's heartbeat, in case
that one died): the sweep marks each due challenge expired in one script, so exactly one process
announces it. Answering or cancelling an expired challenge (marked or not yet swept) is
``challenge_expired``."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from plugins.registry import GAMES
from server.errors import BAD_REQUEST, FORBIDDEN, CardtableError
from server.game import rules as games
from server.social.keys import (
    CHALLENGE_EXPIRED,
    DUE,
    UNKNOWN_CHALLENGE,
    call,
    challenge_key,
)
from server.table.templates import new_table

KEEP = 3600  # seconds Redis keeps an unanswered challenge at all
SWEEP = 200  # most challenges one sweep expires

# KEYS: DUE. ARGV: now, challenge key prefix, most. Marks due open challenges expired ('x') and
# returns id, sender, sender name, target of each one it marked.
_SWEEP = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local k = ARGV[2] .. id
  if redis.call('EXISTS', k) == 1 and redis.call('HEXISTS', k, 'x') == 0 then
    redis.call('HSET', k, 'x', '1')
    local f = redis.call('HMGET', k, 'f', 'fn', 't')
    table.insert(out, id)
    table.insert(out, f[1])
    table.insert(out, f[2])
    table.insert(out, f[3])
  end
end
return out
"""

# KEYS: the challenge, DUE. ARGV: id, now. Settles a challenge in one step, so a sweep can't
# announce it expired while an answer takes it: 0 if it is gone, 2 if it expired (marked by a
# sweep, or due by ``now``), 1 if it was open. Either way it is removed.
_TAKE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local expired = redis.call('HEXISTS', KEYS[1], 'x') == 1
local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then expired = true end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if expired then return 2 end
return 1
"""


@dataclass(frozen=True)
class Open:
    id: str
    sender: str
    sender_name: str
    to: str
    game: str
    options: dict[str, Any] | None
    at: float

    def expired(self) -> dict[str, Any]:
        """The ``challenge_expired`` event both players' pages get."""
        return {"id": self.id, "from": {"id": self.sender, "name": self.sender_name}, "to": self.to}

    def challenged(self) -> dict[str, Any]:
        """The ``challenged`` event the target's pages get."""
        return {
            "id": self.id,
            "from": {"id": self.sender, "name": self.sender_name},
            "game": self.game,
            "options": self.options or {},
        }


def check_game(game: str, options: dict[str, Any] | None) -> None:
    """The game exists and takes these options (``bad_request`` naming the problem)."""
    binding = GAMES.get(game)
    if binding is None:
        raise CardtableError(BAD_REQUEST, f"Unknown game {game!r}; games: {', '.join(GAMES)}.")
    games.set_up(new_table("CHECK", "blank", binding.info.max_players, 0.0), game, options)


class Challenges:
    """``expires``: seconds a challenge waits for its answer."""

    def __init__(self, redis: aioredis.Redis, expires: float) -> None:
        self.redis = redis
        self.expires = expires
        self._sweep: Any = redis.register_script(_SWEEP)
        self._take: Any = redis.register_script(_TAKE)

    async def open(
        self,
        sender: str,
        sender_name: str,
        to: str,
        game: str,
        options: dict[str, Any] | None,
        now: float,
    ) -> Open:
        check_game(game, options)
        ch = Open(secrets.token_urlsafe(12), sender, sender_name, to, game, options, now)
        key = challenge_key(ch.id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(
            key,
            mapping={
                "f": sender,
                "fn": sender_name,
                "t": to,
                "g": game,
                "o": json.dumps(options),
                "at": repr(now),
            },
        )
        pipe.expire(key, KEEP)
        pipe.zadd(DUE, {ch.id: now + self.expires})
        await call(pipe.execute())
        return ch

    async def sweep(self, now: float) -> list[Open]:
        """Mark the challenges due by ``now`` expired; the ones this call marked (to announce)."""
        got = await call(self._sweep(keys=[DUE], args=[repr(now), challenge_key(""), SWEEP]))
        flat = [_text(v) for v in got]
        return [
            Open(flat[i], flat[i + 1], flat[i + 2], flat[i + 3], "", None, now)
            for i in range(0, len(flat), 4)
        ]

    async def take(self, challenge: str, me: str, side: str, now: float) -> Open:
        """Settle a challenge: ``side`` "to" answers it, "from" cancels it. Only one caller
        ever gets it; an expired one is removed and refused with ``challenge_expired``."""
        key = challenge_key(challenge)
        raw = await call(self.redis.hgetall(key))
        got = {_text(k): _text(v) for k, v in raw.items()}
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
        )
        settled = await call(self._take(keys=[key, DUE], args=[challenge, repr(now)]))
        if not settled:
            raise CardtableError(UNKNOWN_CHALLENGE, "That challenge is no longer open.")
        if settled == 2 or now - ch.at > self.expires:
            raise CardtableError(CHALLENGE_EXPIRED, "That challenge has expired.")
        return ch


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def check_target(sender: str, to: str) -> None:
    if sender == to:
        raise CardtableError(BAD_REQUEST, "You cannot challenge yourself.")
