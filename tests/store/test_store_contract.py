"""The store contract, against a real redis-server: reserve codes atomically, versioned
commits (one of two racing writers wins), the capped op log, TTL, and crash recovery."""

from __future__ import annotations

import asyncio

import pytest

from server.store.base import FeedMessage
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


# --- the social part of the interface (store.social), against the same real redis-server ------


def _ident(tag: str) -> str:
    import secrets

    return f"{tag}-{secrets.token_hex(4)}"


def test_an_embedded_redis_on_a_taken_port_does_not_take_the_other_server_for_its_own(
    private_redis: EmbeddedRedis, tmp_path
) -> None:
    """A port found free a moment ago can be taken by another redis-server before ours binds
    it: ours exits, and the one answering there is not ours, so start() says it exited."""
    late = EmbeddedRedis(tmp_path / "late", port=private_redis.port)
    with pytest.raises(RuntimeError, match="exited"):
        late.start()
    assert private_redis.proc is not None and private_redis.proc.poll() is None


async def test_identities_register_once_and_refuse_another_secret(store):
    social, who = store.social, _ident("id")
    assert not await social.identity_exists(who)
    assert await social.hello(who, "hash1", "", "Player", 60) == "Player"  # new: default name
    assert await social.identity_exists(who)
    assert await social.hello(who, "hash1", "Ann", "Player", 60) == "Ann"  # renamed
    assert await social.hello(who, "hash1", "", "Player", 60) == "Ann"  # '' keeps the name
    assert await social.hello(who, "hash2", "Eve", "Player", 60) is None  # another secret...
    assert await social.names([who, _ident("nobody")]) == ["Ann", None]  # ...changed nothing
    assert await social.names([]) == []
    assert 0 < await store.redis.ttl(f"ct:{{s}}:u:{who}") <= 60


async def test_relations_are_sets_per_identity_and_kind(store):
    social = store.social
    me, a, b = _ident("me"), _ident("a"), _ident("b")
    await social.relation_add(me, "block", a)
    await social.relation_add(me, "block", a)  # a set: counted once
    await social.relation_add(me, "favourite", b)
    await social.relation_add(b, "mute", me)
    assert await social.relation_size(me, "block") == 1
    assert await social.relations(me, ["block", "mute", "favourite"]) == {
        "block": {a},
        "mute": set(),
        "favourite": {b},
    }
    assert await social.relation_has(me, "block", [a, b]) == [True, False]
    assert await social.relation_in([a, b], "mute", me) == [False, True]
    assert await social.relation_sizes([me, a], "block") == [1, 0]
    await social.relation_drop(me, "block", a)
    assert await social.relation_has(me, "block", [a]) == [False]


async def test_online_identities_are_listed_by_name_until_their_last_socket_goes(store):
    social, tag = store.social, "Zq" + _ident("")[1:].replace("-", "")
    ann, bob = _ident("ann"), _ident("bob")
    await social.hello(ann, "h", f"{tag}Ann", "Player", 60)
    await social.hello(bob, "h", f"{tag}bob", "Player", 60)
    await social.go_online(ann, "s1", f"{tag}Ann", 1000.0, 60)
    await social.go_online(ann, "s2", f"{tag}Ann", 1000.0, 60)
    await social.refresh_online([(bob, "s3", f"{tag}bob")], 1001.0, 60)
    await social.relation_add(ann, "favourite", bob)
    assert await social.last_seen(ann) == 1000.0
    total, ids, favourites = await social.online_page(tag.upper(), 0, 10, ann)
    assert (total, ids, favourites) == (2, [ann, bob], {bob})  # by case-folded name
    assert await social.online_page(tag, 1, 10, None) == (2, [bob], set())
    await social.go_offline(ann, "s1", 0.0)
    assert await social.last_seen(ann) == 1000.0  # its other socket is still there
    await social.go_offline(ann, "s2", 0.0)
    assert await social.last_seen(ann) is None
    assert await social.prune_online(1001.0) >= 0  # bob was seen at 1001: kept (exclusive)
    assert (await social.online_page(tag, 0, 10, None))[1] == [bob]
    assert await social.prune_online(1001.5) >= 1
    assert await social.online_page(tag, 0, 10, None) == (0, [], set())


async def test_public_rooms_newest_first(store):
    social = store.social
    codes = [_code(20 + i) for i in range(3)]
    for i, code in enumerate(codes):
        await social.public_add(code, 9e12 + i)  # newer than any other test's
    await social.public_drop(codes[1])
    assert (await social.public_newest(2)) == [codes[2], codes[0]]
    for code in codes:
        await social.public_drop(code)


async def test_a_challenge_is_settled_once_and_swept_once(store):
    social = store.social
    fields = {"f": "ann", "fn": "Ann", "t": "bob", "g": "gin_rummy", "o": "null", "at": "1.0"}
    first, second, third = _ident("c1"), _ident("c2"), _ident("c3")
    for ch in (first, second, third):
        await social.challenge_open(ch, fields, 60, 1_000.0)
    assert await social.challenge_fields(first) == fields
    assert 0 < await store.redis.ttl(f"ct:{{s}}:c:{first}") <= 60
    assert await social.challenge_take(first, 999.0) == 1  # open, not yet due
    assert await social.challenge_take(first, 999.0) == 0  # gone: only one taker
    assert await social.challenge_fields(first) == {}
    assert await social.challenge_take(second, 1_000.0) == 2  # due by now: expired
    swept = await social.challenge_sweep(1_000.0, 10_000)
    assert (third, "ann", "Ann", "bob") in swept
    assert all(s[0] != third for s in await social.challenge_sweep(1_000.0, 10_000))
    assert await social.challenge_take(third, 0.0) == 2  # marked expired by the sweep


async def test_chat_keeps_the_last_lines_of_a_room(store):
    social, code = store.social, _code(30)
    for i in range(5):
        await social.chat_add(code, {"text": f"line {i}", "n": i}, 3, 60)
    assert await social.chat_lines(code) == [{"text": f"line {i}", "n": i} for i in (2, 3, 4)]
    assert await social.chat_lines(_code(31)) == []
    assert 0 < await store.redis.ttl(f"ct:{{{code}}}:chat") <= 60


async def test_social_calls_raise_store_unavailable_when_redis_is_down(private_redis):
    store = RedisStore(private_redis.url)
    private_redis.kill()
    with pytest.raises(StoreUnavailable):
        await store.social.identity_exists("anyone")
    with pytest.raises(StoreUnavailable):
        await store.social.go_online("anyone", "sid", "Any", 1.0, 60)
    private_redis.start()
    assert not await store.social.identity_exists("anyone")
    await store.close()


async def test_a_subscription_reads_every_commit_of_its_rooms_in_order(store):
    code, other = _code(40), _code(41)
    await store.create(code, b"v0")
    await store.create(other, b"v0")
    feed = store.subscription()
    await feed.subscribe(code)
    got = [await feed.next(timeout=5.0)]
    assert got[0] == FeedMessage("subscribed", code)
    await store.commit(other, 0, 1, b"x", b"not followed")
    for v in range(1, 4):
        await store.commit(code, v - 1, v, b"x", f"e{v}".encode())
    entries = []
    while len(entries) < 3:
        msg = await feed.next(timeout=5.0)
        assert msg is not None
        entries.append(msg)
    assert entries == [FeedMessage("entry", code, f"e{v}".encode()) for v in range(1, 4)]
    await feed.unsubscribe(code)
    await feed.close()
