"""Room state in Redis: msgpack blobs, versioned atomic commits, a capped op log, TTLs.

Keys per room use a hash tag so a Redis Cluster keeps one room on one slot:
``ct:{CODE}:room`` (hash: ``v`` version, ``s`` state blob) and ``ct:{CODE}:log`` (list of
msgpack entries, newest last, capped). Every commit is one Lua script: it checks the stored
version equals the one the caller loaded, writes state and log entry, trims the log and refreshes
the TTL — so two writers on a stale state never both land.

Operations a client names with an id (``opid``) are remembered per room and player in
``ct:{CODE}:ids:PLAYER`` (a sorted set: id -> its outcome, the newest ``id_cap`` kept), checked
and written by the same commit script, so an operation sent again after an unknown outcome is
never applied twice (see :meth:`RedisStore.commit` and :meth:`RedisStore.refuse`).

The records of a rule room's finished hands (JSON, oldest first) are appended to
``ct:{CODE}:hands`` by the commit that finishes them, and live as long as the room.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from server.store.base import (
    FeedMessage,  # noqa: F401 - the interface's outcomes, named here too
    Repeated,
    RoomGone,
    Seen,
    StoreUnavailable,
    VersionMismatch,
)
from server.store.clients import Client, ScriptRunner, connect
from server.store.feed import RedisFeed, feed_channel, has_sharded_pubsub
from server.store.keys import (  # noqa: F401 - named here too (tests, bench)
    hands_key,
    ids_key,
    image_key,
    log_key,
    presence_key,
    room_key,
)
from server.store.redis_calls import reached
from server.store.social_store import RedisSocialStore

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS: room, log, images, the player's remembered operation ids, hand records. ARGV: expected
# version, new version, blob, log entry ('' for none), cap, ttl, the room's feed channel, the
# operation's id ('' for none), how many ids to remember, then the hand records to append.
# Publishing inside the script puts entries on the channel in commit order. An id seen before
# returns {its outcome} before the version check (it may have landed at any earlier version)
# and writes nothing; a new one is remembered with the commit, atomically. Outcomes are scores:
# 2 * version committed, or 2 * version + 1 for an operation refused when the table was at that
# version (see ``_REFUSE``).
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if ARGV[8] ~= '' then
  local seen = redis.call('ZSCORE', KEYS[4], ARGV[8])
  if seen then return {tonumber(seen)} end
end
if tonumber(v) ~= tonumber(ARGV[1]) then return tonumber(v) end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('RPUSH', KEYS[2], ARGV[4])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
  redis.call('PUBLISH', ARGV[7], ARGV[4])  -- SPUBLISH where the server has it: _sharded
end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[6])
for i = 10, #ARGV do
  redis.call('RPUSH', KEYS[5], ARGV[i])
end
redis.call('EXPIRE', KEYS[5], ARGV[6])
if ARGV[8] ~= '' then
  redis.call('ZADD', KEYS[4], 2 * tonumber(ARGV[2]), ARGV[8])
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -tonumber(ARGV[9]) - 1)
  redis.call('EXPIRE', KEYS[4], ARGV[6])
end
return -2
"""

# KEYS: the player's remembered operation ids, the room. ARGV: the id, the version the refusal was
# judged at, ttl, how many ids to remember. Records the id as refused unless it has an outcome
# already, which is returned instead: so an earlier attempt of it still on its way to Redis can't
# land after the refusal was answered. A refusal judged on another version than the room's is not
# recorded: the room's version is returned in a list (judge it again on the room as it is; a
# process's cached state may lag a commit another process made).
_REFUSE = """
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if seen then return tonumber(seen) end
local v = redis.call('HGET', KEYS[2], 'v')
if v and tonumber(v) ~= tonumber(ARGV[2]) then return {tonumber(v)} end
redis.call('ZADD', KEYS[1], 2 * tonumber(ARGV[2]) + 1, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return -1
"""


def _sharded(script: str) -> str:
    """``script`` publishing with SPUBLISH: on a cluster the entry then travels only through the
    room's shard (the channel has the room's hash tag), not to every node."""
    return script.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',")


# KEYS: room, log. ARGV: first and last version wanted. The log holds the newest entries, one per
# version, ending at the room's version: entry i (0-based) is version v - len + 1 + i.
_LOG_RANGE = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return false end
local n = redis.call('LLEN', KEYS[2])
local first = tonumber(v) - n + 1
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
if from < first or to > tonumber(v) then return false end
return redis.call('LRANGE', KEYS[2], from - first, to - first)
"""


class RedisStore:
    """The one store implementation. ``url`` is any redis-py URL (``redis://``, ``unix://``)."""

    def __init__(
        self,
        url: str,
        *,
        log_cap: int = 200,
        ttl_seconds: int = 14 * 24 * 3600,
        socket_timeout: float = 2.0,
        max_connections: int = 64,
        pool_wait: float = 5.0,
        id_cap: int = 100,
        replicas: int = 0,
    ) -> None:
        self.url = url
        self.log_cap = log_cap
        self.ttl = ttl_seconds
        self.id_cap = id_cap  # operation ids remembered per player and room
        # One Redis or a Redis Cluster (a ``redis+cluster://`` URL): see server/store/clients.py.
        self.redis: Client = connect(
            url, socket_timeout=socket_timeout, max_connections=max_connections, pool_wait=pool_wait
        )
        self._scripts = ScriptRunner(self.redis, in_flight=max_connections, wait=pool_wait)
        self._scripts.replicas = replicas  # each write waits for this many replicas (WAIT)
        self._create = self._scripts.register(_CREATE)
        self._commit = self._scripts.register(_COMMIT)
        self._commit_sharded = self._scripts.register(_sharded(_COMMIT))
        self._sharded: bool | None = None  # has sharded pub/sub: asked once (sharded_pubsub)
        self._asking = asyncio.Lock()  # the first commits wait for that one answer
        self._log_range = self._scripts.register(_LOG_RANGE, waits=False)
        self._refuse = self._scripts.register(_REFUSE)
        self.social = RedisSocialStore(self.redis, self._scripts)

    def subscription(self) -> RedisFeed:
        """A pub/sub reader of the rooms' feed channels (each commit publishes its entry)."""
        return RedisFeed(self.redis, self.sharded_pubsub)

    async def sharded_pubsub(self) -> bool:
        """Whether commits publish with SPUBLISH (Redis >= 7, :mod:`server.store.feed`)."""
        if self._sharded is None:
            async with self._asking:  # many first commits at once ask once, not once each
                if self._sharded is None:
                    self._sharded = await self._call(has_sharded_pubsub(self.redis))
        return self._sharded

    async def _call(self, coro: Any) -> Any:
        return await reached(coro)

    async def _write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a write script on a connection of its own, so a failure can say whether the
        command was sent: before (no connection, a failed health check, Redis still loading,
        a shard without a master), nothing ran; after (a timeout, a dropped connection), Redis
        may have run it or may still run it once a stalled server resumes."""
        return await self._scripts.run(script, keys, args)

    async def ping(self) -> bool:
        try:
            return bool(await self._call(self.redis.ping()))
        except StoreUnavailable:
            return False

    async def create(self, code: str, blob: bytes, version: int = 0) -> bool:
        """Reserve ``code`` and store its first state; False if the code is taken."""
        done = await self._call(self._create(keys=[room_key(code)], args=[version, blob, self.ttl]))
        return bool(done)

    async def load(self, code: str) -> tuple[int, bytes] | None:
        got = await self._call(self.redis.hmget(room_key(code), ["v", "s"]))
        if got[0] is None or got[1] is None:
            return None
        return int(got[0]), bytes(got[1])

    async def commit(
        self,
        code: str,
        expected: int,
        new: int,
        blob: bytes,
        entry: bytes | None,
        once: tuple[str, str] | None = None,
        hands: Sequence[bytes] = (),
    ) -> None:
        """Write ``blob`` as version ``new`` if the store still holds ``expected`` (and append
        ``hands``, the records of the hands this commit finished, to the room's).

        ``once`` (player, operation id): if that id already has an outcome, write nothing and
        raise :class:`Repeated` with it; otherwise remember the id with this commit. A timeout
        raises ``StoreUnavailable(maybe_applied=True)``: the commit may land later, and sending
        it again with the same id is safe.
        """
        player, opid = once or ("", "")
        res = await self._write(
            self._commit_sharded if await self.sharded_pubsub() else self._commit,
            [
                room_key(code),
                log_key(code),
                image_key(code),
                ids_key(code, player),
                hands_key(code),
            ],
            [
                expected,
                new,
                blob,
                entry or b"",
                self.log_cap,
                self.ttl,
                feed_channel(code),
                opid,
                self.id_cap,
                *hands,
            ],
        )
        if isinstance(res, list):
            raise Repeated(Seen.from_score(int(res[0])))
        res = int(res)
        if res == -2:
            return
        if res == -1:
            raise RoomGone(code)
        raise VersionMismatch(res)

    async def refuse(self, code: str, player: str, opid: str, version: int) -> Seen | None:
        """Record that operation ``opid`` of ``player`` was refused on the table at ``version``,
        unless the id has an outcome already: then return that (a commit of an earlier attempt,
        say). After this no attempt of the id can land, so the refusal is final. Raises
        :class:`VersionMismatch` (nothing recorded) when the room is no longer at ``version``."""
        got = await self._write(
            self._refuse,
            [ids_key(code, player), room_key(code)],
            [opid, version, self.ttl, self.id_cap],
        )
        if isinstance(got, list):
            raise VersionMismatch(int(got[0]))
        res = int(got)
        return None if res < 0 else Seen.from_score(res)

    async def log_since(self, code: str, version: int, upto: int) -> list[bytes] | None:
        """Entries for versions ``version+1 .. upto``, or None if the log no longer has them.

        The log ends at the room's current version, which may be past ``upto`` by the time this
        runs: the script reads both in one step and picks the range by version, not from the
        end (reading the last ``upto - version`` entries would return newer ones).
        """
        missing = upto - version
        if missing <= 0:
            return []
        if missing > self.log_cap:
            return None
        got = await self._call(
            self._log_range(keys=[room_key(code), log_key(code)], args=[version + 1, upto])
        )
        if not got or len(got) != missing:
            return None
        return [bytes(e) for e in got]

    # --- presence: which player connections are alive, shared by every server process ----

    async def touch_presence(self, members: dict[str, list[str]], now: float) -> None:
        """Mark connections alive: ``members`` maps room code -> ["player|sid", ...]."""
        if not members:
            return
        pipe = self.redis.pipeline(transaction=False)
        for code, names in members.items():
            pipe.zadd(presence_key(code), {name: now for name in names})
            pipe.expire(presence_key(code), self.ttl)
        await self._call(pipe.execute())

    async def drop_presence(self, code: str, member: str) -> None:
        await self._call(self.redis.zrem(presence_key(code), member))

    async def live_members(self, code: str, since: float) -> list[str]:
        """Connections seen alive at or after ``since`` (older ones are pruned)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zremrangebyscore(presence_key(code), "-inf", f"({since}")
        pipe.zrange(presence_key(code), 0, -1)
        got = await self._call(pipe.execute())
        return [m.decode() if isinstance(m, bytes) else str(m) for m in got[1]]

    async def version(self, code: str) -> int | None:
        got = await self._call(self.redis.hget(room_key(code), "v"))
        return None if got is None else int(got)

    async def exists(self, code: str) -> bool:
        return bool(await self._call(self.redis.exists(room_key(code))))

    # --- sliding windows: per-address rate limits shared by every server process ----------

    # KEYS: a sorted set of events (score = time). ARGV: the new event's time, its member, drop
    # scores up to this, key lifetime in ms, then per window its exclusive lower bound ("(t")
    # and the most events it may hold. Returns {} if the event was added (or was there already
    # and got the new time), else {window index, time of the oldest event that must age out
    # before one more fits}.
    _SLIDING = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {}
end
for i = 5, #ARGV, 2 do
  local most = tonumber(ARGV[i + 1])
  local inside = redis.call('ZCOUNT', KEYS[1], ARGV[i], '+inf')
  if inside >= most then
    local first = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[i], '+inf', 'WITHSCORES',
                             'LIMIT', inside - most, 1)
    return {(i - 5) / 2, first[2]}
  end
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {}
"""

    @cached_property
    def _sliding(self) -> Any:
        return self._scripts.register(self._SLIDING, waits=False)

    async def window_add(
        self, key: str, member: str, now: float, windows: Sequence[tuple[float, int]]
    ) -> tuple[int, float] | None:
        """Record event ``member`` at ``now`` unless a window already holds its most events.

        ``windows`` are (seconds, most events in any span that long). None: recorded (a
        ``member`` already recorded is not counted again, only moved to ``now``). Otherwise
        nothing is recorded and the answer is the full window's index and the time of the event
        that must leave it (at that time + its seconds) before another fits.
        """
        longest = max(seconds for seconds, _ in windows)
        args: list[Any] = [repr(now), member, repr(now - longest), max(1, int(longest * 1000))]
        for seconds, most in windows:
            args += [f"({now - seconds!r}", most]
        got = await self._call(self._sliding(keys=[key], args=args))
        if not got:
            return None
        oldest = float(got[1]) if len(got) > 1 else now
        return int(got[0]), oldest

    async def window_drop(self, key: str, member: str) -> None:
        """Forget one event recorded by :meth:`window_add`."""
        await self._call(self.redis.zrem(key, member))

    # --- images of homemade games: content-addressed, kept with the room ------------------

    # KEYS: room, images. ARGV: sha256, bytes, most images, ttl. 1 stored, 0 already there,
    # -1 no such room, -2 the room holds its most images.
    _PUT_IMAGE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return 0
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -2 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""

    # KEYS: room, images. ARGV: version, blob, ttl, then sha256 and bytes of each image.
    _CREATE_WITH_IMAGES = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('DEL', KEYS[2])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
if #ARGV >= 4 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return 1
"""

    @cached_property
    def _put_image(self) -> Any:
        return self._scripts.register(self._PUT_IMAGE)

    @cached_property
    def _create_with_images(self) -> Any:
        return self._scripts.register(self._CREATE_WITH_IMAGES)

    async def put_image(self, code: str, digest: str, data: bytes, most: int) -> int:
        """Store an image under its sha256 with room ``code`` (same TTL as the room): 1 stored,
        0 already there, -1 no such room, -2 the room already holds ``most`` images."""
        return int(
            await self._call(
                self._put_image(
                    keys=[room_key(code), image_key(code)], args=[digest, data, most, self.ttl]
                )
            )
        )

    async def hand_records(self, code: str) -> list[bytes]:
        """The room's finished hands' records (JSON), oldest first."""
        got = await self._call(self.redis.lrange(hands_key(code), 0, -1))
        return [bytes(b) for b in got]

    async def get_image(self, code: str, digest: str) -> bytes | None:
        got = await self._call(self.redis.hget(image_key(code), digest))
        return None if got is None else bytes(got)

    async def get_images(self, code: str, digests: Sequence[str]) -> dict[str, bytes]:
        """The room's images among ``digests`` (missing ones left out)."""
        if not digests:
            return {}
        got = await self._call(self.redis.hmget(image_key(code), list(digests)))
        return {d: bytes(b) for d, b in zip(digests, got, strict=True) if b is not None}

    async def create_with_images(
        self, code: str, blob: bytes, version: int, images: dict[str, bytes]
    ) -> bool:
        """:meth:`create` and the room's images in one atomic step; False if the code is
        taken (then nothing is written)."""
        args: list[Any] = [version, blob, self.ttl]
        for digest, data in images.items():
            args += [digest, data]
        done = await self._call(
            self._create_with_images(keys=[room_key(code), image_key(code)], args=args)
        )
        return bool(done)

    async def close(self) -> None:
        await self.redis.aclose()
