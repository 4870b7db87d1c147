"""The store suite runs twice: on one Redis and on a Redis Cluster (3 masters, 1 replica each).

Every test here that asks for ``redis_server`` (or ``store``, made from it) gets each in turn:
the store is one code path, so the same promises must hold on both. Tests that kill or stop
their Redis keep ``private_redis`` (one server).
"""

from __future__ import annotations

import pytest

from server.store.embedded import EmbeddedRedis
from tests.conftest import single_or_cluster


@pytest.fixture(scope="session", params=["redis", "cluster"])
def redis_server(request: pytest.FixtureRequest, redis_server: EmbeddedRedis) -> object:
    return single_or_cluster(request, redis_server)
