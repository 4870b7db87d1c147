"""Block, mute and favourite: per identity, sets of other identities in Redis (keyed by identity,
so a player who changes name is still blocked)."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.errors import BAD_REQUEST, CardtableError
from server.social.keys import UNKNOWN_IDENTITY, call, identity_key, relation_key

KINDS = ("block", "mute", "favourite")
MOST = 1000  # identities per relation kind


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class Relations:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis

    async def change(self, me: str, other: str, kind: str, on: bool) -> None:
        if kind not in KINDS:
            raise CardtableError(BAD_REQUEST, f"Relations are {', '.join(KINDS)}.")
        if other == me:
            raise CardtableError(BAD_REQUEST, "That is you.")
        key = relation_key(me, kind)
        if not on:
            await call(self.redis.srem(key, other))
            return
        if not await call(self.redis.exists(identity_key(other))):
            raise CardtableError(UNKNOWN_IDENTITY, "There is no such player.")
        if await call(self.redis.scard(key)) >= MOST:
            raise CardtableError(BAD_REQUEST, f"At most {MOST} players per list.")
        await call(self.redis.sadd(key, other))

    async def all(self, me: str) -> dict[str, list[str]]:
        pipe = self.redis.pipeline(transaction=False)
        for kind in KINDS:
            pipe.smembers(relation_key(me, kind))
        got = await call(pipe.execute())
        return {
            kind: sorted(_text(m) for m in members)
            for kind, members in zip(KINDS, got, strict=True)
        }

    async def has(self, me: str, kind: str, others: list[str]) -> set[str]:
        """Those of ``others`` that ``me`` has in its ``kind`` list."""
        if not others:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for o in others:
            pipe.sismember(relation_key(me, kind), o)
        got = await call(pipe.execute())
        return {o for o, hit in zip(others, got, strict=True) if hit}

    async def who_has(self, others: list[str], kind: str, me: str) -> set[str]:
        """Those of ``others`` that have ``me`` in their ``kind`` list."""
        if not others:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for o in others:
            pipe.sismember(relation_key(o, kind), me)
        got = await call(pipe.execute())
        return {o for o, hit in zip(others, got, strict=True) if hit}

    async def any_blocks(self, identities: list[str]) -> bool:
        """Whether any of ``identities`` has blocked anybody at all."""
        if not identities:
            return False
        pipe = self.redis.pipeline(transaction=False)
        for i in identities:
            pipe.scard(relation_key(i, "block"))
        return any(await call(pipe.execute()))

    async def blocked_between(self, a: str, b: str) -> bool:
        return bool(await self.has(a, "block", [b]) or await self.has(b, "block", [a]))
