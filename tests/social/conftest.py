"""Fixtures for the social tests: clients on the shared test server, closed at the end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import RunningServer
from tests.social.helpers import SocialClient, social_client


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
