"""The test cluster is what the cluster tests assume: three masters, each with a live replica."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from redis.crc import key_slot

from tests.clusterredis import LocalCluster, redis7_available
from tests.conftest import skip_or_fail


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


@pytest.mark.cluster
def test_a_node_whose_port_was_taken_starts_again_on_new_ports(tmp_path: Path) -> None:
    """free_port() finds a port free only for a moment: another test's server may bind it first
    (a CI run's cluster node died on 'Address already in use' for its bus port). The harness
    starts that node again on new ports instead of timing out."""
    missing = redis7_available()
    if missing:
        skip_or_fail(f"Redis Cluster unavailable: {missing}")
    cluster = LocalCluster(tmp_path / "c", masters=3, replicas=0)
    first = cluster.nodes[0]
    taken = first.bus_port
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", taken))
        holder.listen()
        cluster.start()
    try:
        assert first.bus_port != taken and first.answers()
        assert len(cluster.live_masters()) == 3
    finally:
        cluster.stop()
