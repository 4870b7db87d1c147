"""The room service on a real Redis: serialised commits, two services (as two server
processes) racing on one room, rejections that write nothing, and store outages."""

from __future__ import annotations

import asyncio

import pytest

from server.errors import CardtableError
from server.room.service import RoomService
from server.store.redis_store import RedisStore
from server.table.ops import parse_op
from tests.server.helpers import check_table_invariants


async def _room_with_players(rooms: RoomService, n: int = 2):
    table = await rooms.create_room("standard", seats=4)
    players = [await rooms.join(table.code, f"P{i}") for i in range(n)]
    return table.code, [j.player.id for j in players]


async def test_two_services_on_one_redis_serialise_by_version(redis_server):
    s1, s2 = RedisStore(redis_server.url), RedisStore(redis_server.url)
    r1, r2 = RoomService(s1), RoomService(s2)
    code, (a, b) = await _room_with_players(r1)
    start = (await r1.load_table(code)).version

    async def take(rooms, pid, n):
        for _ in range(n):
            await rooms.apply(code, pid, parse_op({"op": "take", "id": "deck", "n": 1}))

    await asyncio.gather(take(r1, a, 15), take(r2, b, 15))
    table = await r2.load_table(code)
    assert table.version == start + 30  # nothing applied twice, nothing lost
    assert len(table.objects["hand0"].cards) == 15 and len(table.objects["hand1"].cards) == 15
    assert len(table.objects["deck"].cards) == 22
    check_table_invariants(table)
    await s1.close()
    await s2.close()


async def test_stale_object_version_is_a_conflict_across_services(redis_server):
    s1, s2 = RedisStore(redis_server.url), RedisStore(redis_server.url)
    r1, r2 = RoomService(s1), RoomService(s2)
    code, (a, b) = await _room_with_players(r1)
    ov = (await r1.load_table(code)).objects["deck"].v
    await r1.apply(code, a, parse_op({"op": "move", "id": "deck", "x": 5, "y": 5, "ov": ov}))
    with pytest.raises(CardtableError) as err:
        await r2.apply(code, b, parse_op({"op": "move", "id": "deck", "x": 9, "y": 9, "ov": ov}))
    assert err.value.code == "conflict"
    assert (await r2.load_table(code)).objects["deck"].x == 5
    await s1.close()
    await s2.close()


async def test_rejection_writes_nothing(redis_server):
    store = RedisStore(redis_server.url)
    rooms = RoomService(store)
    code, (a, _) = await _room_with_players(rooms)
    before = await store.load(code)
    for bad in (
        {"op": "take", "id": "deck", "n": 60},
        {"op": "flip", "id": "hand1"},
        {"op": "move", "id": "nope", "x": 1, "y": 1},
    ):
        with pytest.raises(CardtableError):
            await rooms.apply(code, a, parse_op(bad))
    assert await store.load(code) == before
    await store.close()


async def test_store_outage_is_unavailable_then_recovers(private_redis):
    store = RedisStore(private_redis.url)
    rooms = RoomService(store)
    code, (a, _) = await _room_with_players(rooms)
    private_redis.stop()
    take = parse_op({"op": "take", "id": "deck"})
    with pytest.raises(CardtableError) as err:
        await rooms.apply(code, a, take, once="take-outage")
    # ``unavailable`` if the connection was known to be down before the commit was written;
    # ``unconfirmed`` if it was written to a connection whose end only showed when no answer
    # came (here it can't have run: Redis was gone). Either way: the same op again, same id.
    assert err.value.code in ("unavailable", "unconfirmed") and err.value.retryable
    private_redis.start()
    commit = await rooms.apply(code, a, take, once="take-outage")
    table = await rooms.load_table(code)
    assert commit.version == table.version and len(table.objects["hand0"].cards) == 1
    await store.close()


async def test_a_busy_room_serialises_many_writers_instead_of_refusing(redis_server):
    """Four services (as four processes) hammer one room at once: every write lands."""
    stores = [RedisStore(redis_server.url) for _ in range(4)]
    services = [RoomService(s) for s in stores]
    code, (a, b) = await _room_with_players(services[0])
    start = (await services[0].load_table(code)).version

    async def flips(rooms: RoomService, pid: str, n: int) -> None:
        for _ in range(n):
            await rooms.apply(code, pid, parse_op({"op": "flip", "id": "deck"}))

    await asyncio.gather(*(flips(r, pid, 25) for r in services for pid in (a, b)))
    table = await services[0].load_table(code)
    assert table.version == start + 200
    check_table_invariants(table)
    for s in stores:
        await s.close()


def test_retries_back_off_with_growing_jittered_pauses():
    """The pause between retries comes from the injected rng, under a cap that grows."""
    import random

    from server.room.service import backoff

    a = [backoff(n, random.Random(7)) for n in range(1, 12)]
    b = [backoff(n, random.Random(7)) for n in range(1, 12)]
    assert a == b  # reproducible from the injected rng
    caps = [min(0.2, 0.002 * 2 ** min(n, 7)) for n in range(1, 12)]
    assert all(0 <= w <= cap for w, cap in zip(a, caps, strict=True))
    rng = random.Random(1)
    means = [sum(backoff(n, rng) for _ in range(400)) / 400 for n in (1, 4, 9)]
    assert means[0] < means[1] < means[2] <= 0.1 + 0.01  # grows, then stays under the cap


class _WatchedStore(RedisStore):
    """The real store, with a gate a test can hold a read at, and a count of commit attempts."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.gate = asyncio.Event()
        self.gate.set()
        self.read_started = asyncio.Event()
        self.commits = 0

    async def load(self, code: str) -> tuple[int, bytes] | None:
        got = await super().load(code)
        self.read_started.set()
        await self.gate.wait()
        return got

    async def commit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.commits += 1
        return await super().commit(*args, **kwargs)


async def test_a_slow_read_never_takes_the_cache_back_to_an_older_state(redis_server):
    store = _WatchedStore(redis_server.url)
    rooms = RoomService(store)
    code, (a, _) = await _room_with_players(rooms)
    n = (await rooms.apply(code, a, parse_op({"op": "flip", "id": "deck"}))).version
    # A read (the lobby, a join) fetches version N, and is slow to come back...
    store.gate.clear()
    store.read_started.clear()
    read = asyncio.create_task(rooms.load_table(code))
    await store.read_started.wait()
    # ...while this process commits N + 1.
    await rooms.apply(code, a, parse_op({"op": "flip", "id": "deck"}))
    store.gate.set()
    assert (await read).version == n + 1  # the newest state this process knows
    # The next operation starts from N + 1: one commit, no lost version race.
    before = store.commits
    commit = await rooms.apply(code, a, parse_op({"op": "flip", "id": "deck"}))
    assert store.commits - before == 1
    assert commit.version == n + 2
    await store.close()


async def test_a_room_no_connection_follows_is_not_kept_in_memory(redis_server):
    store = RedisStore(redis_server.url)
    rooms = RoomService(store)
    code, (a, _) = await _room_with_players(rooms)
    await rooms.apply(code, a, parse_op({"op": "flip", "id": "deck"}))
    assert code in rooms.cached_rooms()
    rooms.forget(code)  # what the heartbeat does once no connection here is in the room
    assert code not in rooms.cached_rooms()
    # Nothing is lost: the next operation reads the room from the store.
    version = (await rooms.load_table(code)).version
    assert (
        await rooms.apply(code, a, parse_op({"op": "flip", "id": "deck"}))
    ).version == version + 1
    await store.close()
