"""The social features' data in Redis: identities, relations, who is online, public rooms,
challenges and table chat (:class:`server.store.base.SocialStore` says what each call promises).

Every social key shares the hash tag ``{s}`` so the scripts that touch several of them stay on
one slot of a Redis Cluster; a room's chat history keeps the room's own tag (the keys are built
in :mod:`server.store.keys`). The keys and
scripts are the ones the social modules used when they held Redis themselves (same data).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from server.store.clients import Client, ScriptRunner
from server.store.keys import (  # noqa: F401 - named here too (tests, bench)
    AT,
    DUE,
    NAMES,
    ONLINE,
    PREFIX,
    PUBLIC,
    challenge_key,
    chat_key,
    identity_key,
    relation_key,
    sockets_key,
)
from server.store.redis_calls import reached

REFRESH_BATCH = 200  # sockets refreshed per script call: short enough not to stall Redis


def name_entry(name: str, identity: str) -> str:
    """An online identity's member of NAMES: searchable by name prefix, ordered by name."""
    return f"{name.casefold()}\x00{identity}"


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


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

# KEYS: identity hash, ONLINE, NAMES, sockets. ARGV: now, identity, name entry, sockets ttl.
_ON = """
local old = redis.call('HGET', KEYS[1], 'o')
if old and old ~= ARGV[3] then redis.call('ZREM', KEYS[3], old) end
redis.call('HSET', KEYS[1], 'o', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[1], ARGV[5])
redis.call('EXPIRE', KEYS[4], ARGV[4])
return 1
"""

# The heartbeat's refresh of many online sockets at once: _ON for each, in one call.
# KEYS: ONLINE, NAMES, then identity hash and sockets of each. ARGV: now, sockets ttl, then
# identity, name entry, socket of each.
_ON_MANY = """
local now, ttl = ARGV[1], ARGV[2]
local n = (#KEYS - 2) / 2
for i = 0, n - 1 do
  local hk, sk = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  local id, entry, sid = ARGV[3 + 3 * i], ARGV[4 + 3 * i], ARGV[5 + 3 * i]
  local old = redis.call('HGET', hk, 'o')
  if old and old ~= entry then redis.call('ZREM', KEYS[2], old) end
  redis.call('HSET', hk, 'o', entry)
  redis.call('ZADD', KEYS[1], now, id)
  redis.call('ZADD', KEYS[2], 0, entry)
  redis.call('ZADD', sk, now, sid)
  redis.call('EXPIRE', sk, ttl)
end
return n
"""

# KEYS: identity hash, ONLINE, NAMES, sockets, AT. ARGV: identity, socket, drop sockets seen
# before. The identity goes offline once it has no live socket left (and is at no table).
_OFF = """
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[4]) > 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
local old = redis.call('HGET', KEYS[1], 'o')
if old then
  redis.call('ZREM', KEYS[3], old)
  redis.call('HDEL', KEYS[1], 'o')
end
return 1
"""

# KEYS: ONLINE, NAMES, AT. ARGV: drop identities seen before this, the identity key prefix.
_PRUNE = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(gone) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[3], id)
  local k = ARGV[2] .. id
  local old = redis.call('HGET', k, 'o')
  if old then
    redis.call('ZREM', KEYS[2], old)
    redis.call('HDEL', k, 'o')
  end
end
return #gone
"""

# KEYS: AT. ARGV: identity, room code. Forget where the identity is if it is still that room.
_AT_DROP = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""

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

# KEYS: the challenge, DUE. ARGV: keep (seconds), due, id, then field names and values. (A
# script, not MULTI: atomic on one slot alike, and redis-py 8.1's asyncio cluster transactions
# broke across event loops in tests/store.)
_OPEN = """
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
"""

# KEYS: the room's chat. ARGV: the line (JSON), lines kept, ttl.
_CHAT = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


class RedisSocialStore:
    """The social part of :class:`server.store.redis_store.RedisStore` (its ``social``); every
    call raises :class:`server.store.base.StoreUnavailable` when Redis can't be reached."""

    def __init__(self, redis: Client, runner: ScriptRunner | None = None) -> None:
        self.redis = redis
        runner = runner or ScriptRunner(redis)  # the store's: its limits and replica waits
        self._hello: Any = runner.register(_HELLO)
        self._on: Any = runner.register(_ON)
        self._on_many: Any = runner.register(_ON_MANY)
        self._off: Any = runner.register(_OFF)
        self._prune: Any = runner.register(_PRUNE)
        self._at_drop: Any = runner.register(_AT_DROP)
        self._sweep: Any = runner.register(_SWEEP)
        self._take: Any = runner.register(_TAKE)
        self._open: Any = runner.register(_OPEN)
        self._chat: Any = runner.register(_CHAT)

    # --- identities --------------------------------------------------------------------------

    async def hello(
        self, identity: str, secret_hash: str, name: str, default_name: str, ttl: int
    ) -> str | None:
        got = await reached(
            self._hello(keys=[identity_key(identity)], args=[secret_hash, name, default_name, ttl])
        )
        if not got or int(got[0]) != 1:
            return None
        return _text(got[1])

    async def identity_exists(self, identity: str) -> bool:
        return bool(await reached(self.redis.exists(identity_key(identity))))

    async def names(self, identities: Sequence[str]) -> list[str | None]:
        if not identities:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for i in identities:
            pipe.hget(identity_key(i), "n")
        got = await reached(pipe.execute())
        return [None if g is None else _text(g) for g in got]

    # --- relations ---------------------------------------------------------------------------

    async def relation_add(self, me: str, kind: str, other: str) -> None:
        await reached(self.redis.sadd(relation_key(me, kind), other))

    async def relation_drop(self, me: str, kind: str, other: str) -> None:
        await reached(self.redis.srem(relation_key(me, kind), other))

    async def relation_size(self, me: str, kind: str) -> int:
        return int(await reached(self.redis.scard(relation_key(me, kind))))

    async def relations(self, me: str, kinds: Sequence[str]) -> dict[str, set[str]]:
        pipe = self.redis.pipeline(transaction=False)
        for kind in kinds:
            pipe.smembers(relation_key(me, kind))
        got = await reached(pipe.execute())
        return {kind: {_text(m) for m in members} for kind, members in zip(kinds, got, strict=True)}

    async def relation_has(self, me: str, kind: str, others: Sequence[str]) -> list[bool]:
        pipe = self.redis.pipeline(transaction=False)
        for o in others:
            pipe.sismember(relation_key(me, kind), o)
        return [bool(hit) for hit in await reached(pipe.execute())]

    async def relation_in(self, others: Sequence[str], kind: str, me: str) -> list[bool]:
        pipe = self.redis.pipeline(transaction=False)
        for o in others:
            pipe.sismember(relation_key(o, kind), me)
        return [bool(hit) for hit in await reached(pipe.execute())]

    async def relation_sizes(self, identities: Sequence[str], kind: str) -> list[int]:
        pipe = self.redis.pipeline(transaction=False)
        for i in identities:
            pipe.scard(relation_key(i, kind))
        return [int(n) for n in await reached(pipe.execute())]

    # --- who is online -----------------------------------------------------------------------

    def _online_keys(self, identity: str) -> list[str]:
        return [identity_key(identity), ONLINE, NAMES, sockets_key(identity)]

    async def go_online(
        self, identity: str, sid: str, name: str, now: float, sockets_ttl: int
    ) -> None:
        await reached(
            self._on(
                keys=self._online_keys(identity),
                args=[repr(now), identity, name_entry(name, identity), sockets_ttl, sid],
            )
        )

    async def refresh_online(
        self, online: Sequence[tuple[str, str, str]], now: float, sockets_ttl: int
    ) -> None:
        for start in range(0, len(online), REFRESH_BATCH):
            keys, args = [ONLINE, NAMES], [repr(now), sockets_ttl]
            for identity, sid, name in online[start : start + REFRESH_BATCH]:
                keys += [identity_key(identity), sockets_key(identity)]
                args += [identity, name_entry(name, identity), sid]
            await reached(self._on_many(keys=keys, args=args))

    async def go_offline(self, identity: str, sid: str, stale_before: float) -> None:
        await reached(
            self._off(
                keys=[*self._online_keys(identity), AT], args=[identity, sid, f"({stale_before!r}"]
            )
        )

    async def prune_online(self, stale_before: float) -> int:
        return int(
            await reached(
                self._prune(keys=[ONLINE, NAMES, AT], args=[f"({stale_before!r}", identity_key("")])
            )
        )

    async def at_set(self, identity: str, code: str) -> None:
        await reached(self.redis.hset(AT, identity, code))

    async def at_set_many(self, where: dict[str, str]) -> None:
        if where:
            await reached(self.redis.hset(AT, mapping=dict[Any, Any](where)))

    async def at_drop(self, identity: str, code: str) -> None:
        await reached(self._at_drop(keys=[AT], args=[identity, code]))

    async def at_get(self, identities: Sequence[str]) -> list[str | None]:
        if not identities:
            return []
        got = await reached(self.redis.hmget(AT, list(identities)))
        return [None if g is None else _text(g) for g in got]

    async def last_seen(self, identity: str) -> float | None:
        seen = await reached(self.redis.zscore(ONLINE, identity))
        return None if seen is None else float(seen)

    async def online_page(
        self, prefix: str | None, start: int, count: int, favourites_of: str | None
    ) -> tuple[int, list[str], set[str]]:
        if prefix:
            low = prefix.casefold()
            lo, hi = f"[{low}", f"[{low}\xff"
        else:
            lo, hi = "-", "+"
        pipe = self.redis.pipeline(transaction=False)
        pipe.zlexcount(NAMES, lo, hi)
        pipe.zrangebylex(NAMES, lo, hi, start=start, num=count)
        if favourites_of is not None:
            pipe.smembers(relation_key(favourites_of, "favourite"))
        got = await reached(pipe.execute())
        ids = [_text(e).split("\x00", 1)[1] for e in got[1]]
        favourites = {_text(f) for f in got[2]} if favourites_of is not None else set()
        return int(got[0]), ids, favourites

    # --- public rooms ------------------------------------------------------------------------

    async def public_add(self, code: str, now: float) -> None:
        await reached(self.redis.zadd(PUBLIC, {code: now}))

    async def public_drop(self, code: str) -> None:
        await reached(self.redis.zrem(PUBLIC, code))

    async def public_newest(self, most: int) -> list[str]:
        codes = await reached(self.redis.zrevrange(PUBLIC, 0, most - 1))
        return [c.decode() if isinstance(c, bytes) else str(c) for c in codes]

    # --- challenges --------------------------------------------------------------------------

    async def challenge_open(
        self, challenge: str, fields: dict[str, str], keep: int, due: float
    ) -> None:
        args: list[Any] = [keep, repr(due), challenge]
        for name, value in fields.items():
            args += [name, value]
        await reached(self._open(keys=[challenge_key(challenge), DUE], args=args))

    async def challenge_fields(self, challenge: str) -> dict[str, str]:
        raw = await reached(self.redis.hgetall(challenge_key(challenge)))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def challenge_take(self, challenge: str, now: float) -> int:
        return int(
            await reached(
                self._take(keys=[challenge_key(challenge), DUE], args=[challenge, repr(now)])
            )
        )

    async def challenge_sweep(self, now: float, most: int) -> list[tuple[str, str, str, str]]:
        got = await reached(self._sweep(keys=[DUE], args=[repr(now), challenge_key(""), most]))
        flat = [_text(v) for v in got]
        return [(flat[i], flat[i + 1], flat[i + 2], flat[i + 3]) for i in range(0, len(flat), 4)]

    # --- table chat --------------------------------------------------------------------------

    async def chat_add(self, code: str, line: dict[str, Any], keep: int, ttl: int) -> None:
        await reached(self._chat(keys=[chat_key(code)], args=[json.dumps(line), keep, ttl]))

    async def chat_lines(self, code: str) -> list[dict[str, Any]]:
        return [json.loads(r) for r in await reached(self.redis.lrange(chat_key(code), 0, -1))]
