"""Who is online, and the lobby: online players (paged, searchable by name prefix) and the
rooms their hosts made public.

An identity is online while one of its sockets, on any process, said ``online {on: true}`` and
has not gone: each socket is a member of the identity's socket set, refreshed by its process's
heartbeat; the identity leaves the online set when its last socket goes offline or disconnects,
or when no heartbeat has refreshed it within the timeout (its process died).
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from plugins.registry import GAMES
from server.errors import CardtableError
from server.room.service import RoomService
from server.social.keys import (
    NAMES,
    ONLINE,
    PUBLIC,
    call,
    identity_key,
    relation_key,
    sockets_key,
)

PAGE = 50
MOST_TABLES = 50

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
REFRESH_BATCH = 200  # sockets refreshed per script call: short enough not to stall Redis

# KEYS: identity hash, ONLINE, NAMES, sockets. ARGV: identity, socket, drop sockets seen before.
# The identity goes offline once it has no live socket left.
_OFF = """
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[4]) > 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
local old = redis.call('HGET', KEYS[1], 'o')
if old then
  redis.call('ZREM', KEYS[3], old)
  redis.call('HDEL', KEYS[1], 'o')
end
return 1
"""

# KEYS: ONLINE, NAMES. ARGV: drop identities seen before this, the identity key prefix.
_PRUNE = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(gone) do
  redis.call('ZREM', KEYS[1], id)
  local k = ARGV[2] .. id
  local old = redis.call('HGET', k, 'o')
  if old then
    redis.call('ZREM', KEYS[2], old)
    redis.call('HDEL', k, 'o')
  end
end
return #gone
"""


def name_entry(name: str, identity: str) -> str:
    return f"{name.casefold()}\x00{identity}"


class Lobby:
    """``timeout``: an identity (or socket) not refreshed for this long is offline."""

    def __init__(self, redis: aioredis.Redis, timeout: float) -> None:
        self.redis = redis
        self.timeout = timeout
        self._on: Any = redis.register_script(_ON)
        self._on_many: Any = redis.register_script(_ON_MANY)
        self._off: Any = redis.register_script(_OFF)
        self._prune: Any = redis.register_script(_PRUNE)

    def _keys(self, identity: str) -> list[str]:
        return [identity_key(identity), ONLINE, NAMES, sockets_key(identity)]

    async def go_online(self, identity: str, sid: str, name: str, now: float) -> None:
        await call(
            self._on(
                keys=self._keys(identity),
                args=[
                    repr(now),
                    identity,
                    name_entry(name, identity),
                    max(60, int(self.timeout * 4)),
                    sid,
                ],
            )
        )

    async def refresh(self, online: list[tuple[str, str, str]], now: float) -> None:
        """Heartbeat: (identity, sid, name) of this process's online sockets, a batch of them
        per script call (10,000 online: bench/README.md, "The lobby")."""
        ttl = max(60, int(self.timeout * 4))
        for start in range(0, len(online), REFRESH_BATCH):
            keys, args = [ONLINE, NAMES], [repr(now), ttl]
            for identity, sid, name in online[start : start + REFRESH_BATCH]:
                keys += [identity_key(identity), sockets_key(identity)]
                args += [identity, name_entry(name, identity), sid]
            await call(self._on_many(keys=keys, args=args))

    async def go_offline(self, identity: str, sid: str, now: float) -> None:
        await call(
            self._off(keys=self._keys(identity), args=[identity, sid, f"({now - self.timeout!r}"])
        )

    async def prune(self, now: float) -> int:
        return int(
            await call(
                self._prune(
                    keys=[ONLINE, NAMES], args=[f"({now - self.timeout!r}", identity_key("")]
                )
            )
        )

    async def is_online(self, identity: str, now: float) -> bool:
        seen = await call(self.redis.zscore(ONLINE, identity))
        return seen is not None and float(seen) >= now - self.timeout

    async def players(
        self, me: str | None, page: int, q: str | None, now: float
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of online players (by name), and how many match in all."""
        await self.prune(now)
        if q:
            low = q.casefold()
            lo, hi = f"[{low}", f"[{low}\xff"
        else:
            lo, hi = "-", "+"
        pipe = self.redis.pipeline(transaction=False)
        pipe.zlexcount(NAMES, lo, hi)
        pipe.zrangebylex(NAMES, lo, hi, start=page * PAGE, num=PAGE)
        if me is not None:
            pipe.smembers(relation_key(me, "favourite"))
        got = await call(pipe.execute())
        total = int(got[0])
        ids = [(e.decode() if isinstance(e, bytes) else e).split("\x00", 1)[1] for e in got[1]]
        favourites = {f.decode() for f in got[2]} if me is not None else set()
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.hget(identity_key(i), "n")
        names = await call(pipe.execute())
        out = [
            {
                "id": i,
                "name": n.decode() if isinstance(n, bytes) else (n or ""),
                "favourite": i in favourites,
            }
            for i, n in zip(ids, names, strict=True)
        ]
        return out, total

    # --- public rooms ----------------------------------------------------------------------

    async def set_public(self, code: str, public: bool, now: float) -> None:
        if public:
            await call(self.redis.zadd(PUBLIC, {code: now}))
        else:
            await call(self.redis.zrem(PUBLIC, code))

    async def tables(self, rooms: RoomService, q: str | None) -> list[dict[str, Any]]:
        """The newest public rooms that still exist and are still public."""
        codes = await call(self.redis.zrevrange(PUBLIC, 0, MOST_TABLES - 1))
        out = []
        for raw in codes:
            code = raw.decode() if isinstance(raw, bytes) else str(raw)
            try:
                table = await rooms.load_table(code)
            except CardtableError:
                table = None
            if table is None or not table.public:
                await call(self.redis.zrem(PUBLIC, code))
                continue
            name = table.game.name if table.game else None
            binding = GAMES.get(name) if isinstance(name, str) else None
            host = next((p.name for p in table.players.values() if p.host), None)
            title = binding.info.title if binding is not None else "Free table"
            if host is not None:
                title = f"{title} with {host}"
            if q and q.casefold() not in title.casefold():
                continue
            out.append(
                {
                    "code": code,
                    "game": name,
                    "title": title,
                    "seats_free": table.seats - len(table.seated()),
                }
            )
        return out
