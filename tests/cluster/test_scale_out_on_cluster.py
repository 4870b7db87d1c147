"""The two-process suite on a Redis Cluster (3 masters, 1 replica each): two ``cardtable serve``
processes given ``--redis-url redis+cluster://...`` share rooms spread over the shards, with the
same promises as on one Redis (tests/cluster/test_scale_out.py: its tests, run here again with
``redis_server`` pointing at the cluster). The kill and outage tests there stay on one Redis;
a shard's failover is tests/cluster/test_failover_cluster.py's."""

from __future__ import annotations

import pytest

from tests.cluster import test_scale_out as on_one_redis
from tests.conftest import OnCluster

two_servers = on_one_redis.two_servers
test_two_processes_one_room_same_moves_same_order = (
    on_one_redis.test_two_processes_one_room_same_moves_same_order
)
test_same_card_on_two_processes_one_wins = on_one_redis.test_same_card_on_two_processes_one_wins


@pytest.fixture
def redis_server(redis_cluster) -> OnCluster:
    return OnCluster(redis_cluster)
