"""The store contract, against a real redis-server: reserve codes atomically, versioned
commits (one of two racing writers wins), the capped op log, TTL, and crash recovery."""

from __future__ import annotations

import asyncio

import pytest

from server.store.embedded import EmbeddedRedis
from server.store.redis_store import (
    RedisStore,
    RoomGone,
    StoreUnavailable,
    VersionMismatch,
    log_key,
    room_key,
)


def _code(n: int) -> str:
    import secrets

    return f"T{n}{secrets.token_hex(3).upper()}"[:8]


async def test_codes_are_reserved_atomically(store):
    code = _code(1)
    results = await asyncio.gather(*(store.create(code, f"s{i}".encode()) for i in range(20)))
    assert results.count(True) == 1
    version, blob = await store.load(code)
    assert version == 0 and blob == f"s{results.index(True)}".encode()
    assert await store.load(_code(2)) is None


async def test_versioned_commit_lets_exactly_one_racer_win(store):
    code = _code(3)
    await store.create(code, b"v0")
    outcomes = await asyncio.gather(
        *(store.commit(code, 0, 1, f"writer{i}".encode(), f"e{i}".encode()) for i in range(10)),
        return_exceptions=True,
    )
    winners = [i for i, o in enumerate(outcomes) if o is None]
    assert len(winners) == 1
    assert all(
        isinstance(o, VersionMismatch) and o.current == 1
        for i, o in enumerate(outcomes)
        if i not in winners
    )
    assert await store.load(code) == (1, f"writer{winners[0]}".encode())
    assert await store.log_since(code, 0, 1) == [f"e{winners[0]}".encode()]


async def test_log_is_capped_and_gaps_are_reported(redis_server):
    store = RedisStore(redis_server.url, log_cap=5)
    code = _code(4)
    await store.create(code, b"x")
    for v in range(1, 9):
        await store.commit(code, v - 1, v, b"x", f"e{v}".encode())
    assert await store.log_since(code, 6, 8) == [b"e7", b"e8"]
    assert await store.log_since(code, 3, 8) == [b"e4", b"e5", b"e6", b"e7", b"e8"]
    assert await store.log_since(code, 2, 8) is None  # fell off the capped log: snapshot
    assert await store.log_since(code, 8, 8) == []
    # A range that ends before the room's current version is picked by version, not from the
    # end of the log (a feed catching up while commits go on asks for exactly that).
    assert await store.log_since(code, 4, 6) == [b"e5", b"e6"]
    assert await store.log_since(code, 6, 7) == [b"e7"]
    assert await store.log_since(code, 3, 5) == [b"e4", b"e5"]
    assert await store.log_since(code, 2, 5) is None  # e3 fell off the capped log
    assert await store.log_since(code, 7, 9) is None  # version 9 doesn't exist yet
    assert await store.redis.llen(log_key(code)) == 5
    await store.close()


async def test_rooms_expire_and_commits_refresh_ttl(redis_server):
    store = RedisStore(redis_server.url, ttl_seconds=1)
    code = _code(5)
    await store.create(code, b"x")
    assert 0 < await store.redis.ttl(room_key(code)) <= 1
    await asyncio.sleep(2.1)
    assert await store.load(code) is None
    with pytest.raises(RoomGone):
        await store.commit(code, 0, 1, b"y", None)
    await store.close()


async def test_acknowledged_commit_survives_kill_9(private_redis: EmbeddedRedis):
    store = RedisStore(private_redis.url)
    code = _code(6)
    await store.create(code, b"v0")
    for v in range(1, 51):
        await store.commit(code, v - 1, v, f"state{v}".encode(), f"e{v}".encode())
    private_redis.kill()
    with pytest.raises(StoreUnavailable):
        await store.load(code)
    private_redis.start()
    assert await store.load(code) == (50, b"state50")
    assert len(await store.log_since(code, 40, 50)) == 10
    assert await store.ping()
    await store.close()


async def test_embedded_store_restarts_after_crash_on_unix_socket(tmp_path):
    embedded = EmbeddedRedis(tmp_path / "var").start()
    store = RedisStore(embedded.url)
    code = _code(7)
    await store.create(code, b"kept")
    embedded.kill()  # leaves a stale socket file behind
    assert embedded.socket_path.exists()
    embedded = EmbeddedRedis(tmp_path / "var").start()
    store2 = RedisStore(embedded.url)
    assert await store2.load(code) == (0, b"kept")
    await store.close()
    await store2.close()
    embedded.stop()
