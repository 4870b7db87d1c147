"""Identities without accounts: a browser keeps a random id and secret; Redis keeps, per id,
the secret's sha256 and a display name. A known id with another secret is refused."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import redis.asyncio as aioredis

from server.errors import BAD_REQUEST, CardtableError
from server.room.players import clean_name
from server.social.keys import BAD_IDENTITY, call, identity_key

IDENTITY_TTL = 400 * 24 * 3600  # an identity unused this long is forgotten
DEFAULT_NAME = "Player"

# KEYS: identity hash. ARGV: secret hash, name ('' keeps the stored one), default name, ttl.
# Returns {1, name} (a new identity is registered) or {0} for a wrong secret.
_HELLO = """
local h = redis.call('HGET', KEYS[1], 'h')
if h and h ~= ARGV[1] then return {0} end
if not h then redis.call('HSET', KEYS[1], 'h', ARGV[1]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'n', ARGV[2]) end
local n = redis.call('HGET', KEYS[1], 'n')
if not n then
  n = ARGV[3]
  redis.call('HSET', KEYS[1], 'n', n)
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
return {1, n}
"""


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Identities:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._hello: Any = redis.register_script(_HELLO)

    async def hello(
        self, identity: str | None, secret: str | None, name: str | None
    ) -> tuple[str, str, str]:
        """(id, secret, name) of the caller: a new identity when both are absent, the stored one
        when the secret matches, else ``bad_identity``. ``name`` renames it."""
        if identity is None:
            if secret is not None:
                raise CardtableError(BAD_REQUEST, "A secret needs its id.")
            identity, secret = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
        elif secret is None:
            raise CardtableError(BAD_IDENTITY, "That identity needs its secret.")
        clean = clean_name(name) if name is not None else ""
        got = await call(
            self._hello(
                keys=[identity_key(identity)],
                args=[secret_hash(secret), clean, DEFAULT_NAME, IDENTITY_TTL],
            )
        )
        if not got or int(got[0]) != 1:
            raise CardtableError(
                BAD_IDENTITY,
                "That identity belongs to someone else (wrong secret). Forget it to get a new one.",
            )
        stored = got[1].decode() if isinstance(got[1], bytes) else str(got[1])
        return identity, secret, stored

    async def exists(self, identity: str) -> bool:
        return bool(await call(self.redis.exists(identity_key(identity))))

    async def names(self, identities: list[str]) -> list[str | None]:
        """Display names of ``identities`` (None for unknown ones)."""
        if not identities:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for i in identities:
            pipe.hget(identity_key(i), "n")
        got = await call(pipe.execute())
        return [g.decode() if isinstance(g, bytes) else g for g in got]
