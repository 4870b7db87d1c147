"""A room's slot moving between shards (a resharding) on a real Redis Cluster. While its keys are
on the way, a commit is redirected with ASK to the new shard, which answers TRYAGAIN (a commit
names keys that do not exist yet, and those might still be on the old shard): the store says
unavailable, known not applied (the player's client sends it again). Reads follow ASK. Once the
slot has moved, the old shard answers MOVED and the store sends the commit again where the slot
is now (it did not run where it was refused): it lands once, and nothing above the store sees
the move."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from server.store.base import StoreUnavailable
from server.store.keys import room_key
from server.store.redis_store import RedisStore
from tests.clusterredis import ClusterNode, LocalCluster


def _id(node: ClusterNode) -> str:
    with node.client() as r:
        got = r.execute_command("CLUSTER", "MYID")
    return got.decode() if isinstance(got, bytes) else str(got)


def _start_moving(cluster: LocalCluster, slot: int, source: ClusterNode, target: ClusterNode):
    """Mark ``slot`` migrating from ``source`` to ``target`` and move all its keys there."""
    with target.client() as r:
        r.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", _id(source))
    with source.client() as r:
        r.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", _id(target))
        keys = r.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
        assert keys
        r.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)


def _finish_moving(cluster: LocalCluster, slot: int, target: ClusterNode) -> None:
    for node in cluster.live_masters():
        with node.client() as r:
            r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", _id(target))


async def test_a_commit_follows_its_room_to_another_shard(private_cluster: LocalCluster):
    store = RedisStore(private_cluster.url)
    try:
        code = "MOVE1"
        slot = key_slot(room_key(code).encode())
        assert await store.create(code, b"v0")
        await store.commit(code, 0, 1, b"v1", b"e1", once=("P", "op1"))
        source = private_cluster.master_of_slot(slot)
        target = next(n for n in private_cluster.live_masters() if n.port != source.port)

        _start_moving(private_cluster, slot, source, target)
        with pytest.raises(StoreUnavailable) as refused:  # ASK, then TRYAGAIN on the target
            await store.commit(code, 1, 2, b"v2", b"e2", once=("P", "op2"))
        assert not refused.value.maybe_applied
        assert await store.load(code) == (1, b"v1")  # read through ASK: the keys moved intact

        _finish_moving(private_cluster, slot, target)
        await store.commit(code, 1, 2, b"v2", b"e2", once=("P", "op2"))  # MOVED: sent again
        await store.commit(code, 2, 3, b"v3", b"e3", once=("P", "op3"))
        assert private_cluster.master_of_slot(slot).port == target.port
        assert await store.load(code) == (3, b"v3")
        assert await store.log_since(code, 0, 3) == [b"e1", b"e2", b"e3"]
        with source.client() as r:
            assert r.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
    finally:
        await store.close()
