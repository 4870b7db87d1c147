"""Configured like any deployment: ``--redis-url`` for one Redis, ``--redis-cluster host:port,...``
or a ``redis+cluster://`` URL for a cluster; the store reads both kinds of URL."""

from __future__ import annotations

import asyncio

import pytest

from server.__main__ import config_from_args
from server.store.base import StoreUnavailable
from server.store.clients import cluster_nodes, is_cluster_url, node_url
from server.store.embedded import free_port
from server.store.redis_store import RedisStore


def test_the_flags_say_where_the_store_is():
    assert config_from_args(["serve"]).store_url() is None  # the embedded store
    one = config_from_args(["serve", "--redis-url", "redis://h:6379/0"])
    assert one.store_url() == "redis://h:6379/0"
    nodes = config_from_args(["serve", "--redis-cluster", "10.0.0.1:7000, 10.0.0.2:7001"])
    assert nodes.store_url() == "redis+cluster://10.0.0.1:7000,10.0.0.2:7001"
    url = config_from_args(["serve", "--redis-url", "redis+cluster://a:1,b:2"])
    assert url.store_url() == "redis+cluster://a:1,b:2"


def test_cluster_urls_name_their_nodes():
    url = "rediss+cluster://user:pw@a.example:7000,[::1]:7001/"
    assert is_cluster_url(url) and not is_cluster_url("redis://a:1")
    assert cluster_nodes(url) == [("a.example", 7000), ("::1", 7001)]
    assert node_url(url) == "rediss://user:pw@a.example:7000"
    assert node_url("redis://h:1/0") == "redis://h:1/0"
    with pytest.raises(ValueError):
        cluster_nodes("redis+cluster://a,b:2")


async def test_a_store_on_the_cluster_url_uses_every_shard(redis_cluster):
    store = RedisStore(redis_cluster.url)
    try:
        codes = [f"CFG{i:03d}" for i in range(30)]
        for code in codes:
            assert await store.create(code, b"v0")
        owners = {redis_cluster.master_of_key(f"ct:{{{c}}}:room").port for c in codes}
        assert len(owners) == 3  # rooms spread over the three shards by their codes
        for code in codes:
            assert await store.load(code) == (0, b"v0")
    finally:
        await store.close()


async def test_a_cluster_that_cannot_be_reached_is_unavailable():
    store = RedisStore(f"redis+cluster://127.0.0.1:{free_port()}", socket_timeout=0.5)
    try:
        assert not await store.ping()
        with pytest.raises(StoreUnavailable) as raised:
            await store.create("GONE1", b"v0")
        assert not raised.value.maybe_applied  # nothing was sent
        with pytest.raises(StoreUnavailable):
            await store.load("GONE1")
        with pytest.raises(StoreUnavailable):
            await store.social.names(["u1"])
    finally:
        await store.close()


async def test_more_commits_than_connections_wait_for_one_on_a_cluster(redis_cluster):
    """As on one Redis (a blocking pool), scripts past a node's connections wait for a free one
    instead of failing: redis-py's cluster client raises at once past its per-node limit."""
    store = RedisStore(redis_cluster.url, max_connections=2)
    try:
        codes = [f"BUSY{i:03d}" for i in range(60)]
        assert all(await asyncio.gather(*(store.create(c, b"v0") for c in codes)))
        # The first commits all need to know how to publish: they ask once, together.
        await asyncio.gather(*(store.commit(c, 0, 1, b"v1", b"e1") for c in codes))
        assert [await store.version(c) for c in codes] == [1] * 60
    finally:
        await store.close()
