"""Fixtures for the social tests: clients on the shared test server, closed at the end.

The suite runs twice: on one Redis and on a Redis Cluster (``redis_server`` parametrised, so the
shared test server and every server a test starts from ``redis_server.url`` use each in turn).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store.embedded import EmbeddedRedis
from tests.conftest import RunningServer, single_or_cluster
from tests.social.helpers import SocialClient, social_client


@pytest.fixture(scope="session", params=["redis", "cluster"])
def redis_server(request: pytest.FixtureRequest, redis_server: EmbeddedRedis) -> object:
    return single_or_cluster(request, redis_server)


@pytest.fixture
async def people(server: RunningServer) -> AsyncIterator[Any]:
    made: list[SocialClient] = []

    async def make(
        name: str | None = "Ann", online: bool = True, url: str | None = None
    ) -> SocialClient:
        c = await social_client(url or server.url, name, online)
        made.append(c)
        return c

    yield make
    for c in made:
        await c.close()
