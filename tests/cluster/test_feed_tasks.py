"""On a cluster, a commit and its feed message make no task of ours: ``asyncio.wait_for`` on
Python 3.11 made one for every feed ``next`` and for every script's wait for its node's gate.
Real Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
import pytest

from server.store.redis_store import RedisStore
from tests.clusterredis import LocalCluster
from tests.server.test_eio_session import tasks_made


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_cluster.url)
    yield s
    await s.close()


async def test_a_cluster_feed_reads_commits_without_a_task_each(
    cluster_store: RedisStore,
) -> None:
    code = "FEEDTASK"
    feed = cluster_store.subscription()
    try:
        await feed.subscribe(code)
        got = await feed.next(5.0)
        assert got is not None and got.kind == "subscribed"
        await cluster_store.create(code, b"v0")
        with tasks_made() as names:
            for v in range(1, 11):
                entry = msgspec.msgpack.encode({"v": v, "d": {}})
                await cluster_store.commit(code, v - 1, v, b"s", entry)
                got = await feed.next(5.0)
                assert got is not None and got.kind == "entry"
                assert msgspec.msgpack.decode(got.data)["v"] == v
        assert "Queue.get" not in names, names  # the feed's next()
        assert "Semaphore.acquire" not in names, names  # the script runner's per-node gate
    finally:
        await feed.close()
