"""The test cluster is what the cluster tests assume: three masters, each with a live replica."""

from __future__ import annotations

from redis.crc import key_slot


def test_three_masters_each_with_a_replica_in_sync(redis_cluster):
    masters = redis_cluster.live_masters()
    assert len(masters) == 3
    assert len(redis_cluster.nodes) == 6
    owners = {redis_cluster.master_of_slot(s).port for s in (0, 8000, 16383)}
    assert owners == {m.port for m in masters}
    for m in masters:
        with m.client() as r:
            assert r.info("replication")["connected_slaves"] == 1


def test_a_room_tag_lives_on_one_master(redis_cluster):
    a, b = "ct:{ABCD}:room", "ct:{ABCD}:chat"
    assert key_slot(a.encode()) == key_slot(b.encode())
    assert redis_cluster.master_of_key(a).port == redis_cluster.master_of_key(b).port
