"""/metrics as an operator scrapes it: the counters move by what really happened on the server
(real sockets, a real redis-server, a refused join), and a lost version race is counted.

The metrics are process-wide, so each test compares two scrapes of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from cardtable_client import OpFailed
from server.room.service import RoomService
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from tests.conftest import RunningServer, make_config, new_room, start_server
from tests.server.helpers import server_table

Sample = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(url: str) -> Sample:
    async with aiohttp.ClientSession() as http, http.get(f"{url}/metrics") as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain")
        text = await resp.text()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(got: Sample, name: str, **labels: str) -> float:
    return got.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
async def strict(private_redis: EmbeddedRedis) -> AsyncIterator[RunningServer]:
    """Two joins a minute per address, on a Redis of the test's own (so the window is ours)."""
    running = await start_server(make_config(private_redis.url, joins_per_minute=2))
    yield running
    await running.stop()


async def test_metrics_count_connections_commits_moves_and_a_refused_join(strict):
    code = await new_room(strict)
    before = await scrape(strict.url)
    v0 = (await server_table(strict, code)).version
    ana, ben, cy = [await strict.client() for _ in range(3)]
    try:
        mid = await scrape(strict.url)
        assert value(mid, "cardtable_connections") - value(before, "cardtable_connections") == 3
        assert (
            value(mid, "cardtable_connects_total") - value(before, "cardtable_connects_total") == 3
        )

        await ana.join(code, "Ana")
        await ben.join(code, "Ben")
        with pytest.raises(OpFailed) as refused:  # the address's third join in a minute
            await cy.join(code, "Cy")
        assert refused.value.payload["code"] == "rate_limited"
        for _ in range(3):
            await ana.op("shuffle", id="deck")

        expected_ops = value(before, "cardtable_action_seconds_count", event="op") + 3
        for _ in range(100):  # the ack may reach us a moment before the handler's finally runs
            after = await scrape(strict.url)
            if value(after, "cardtable_action_seconds_count", event="op") >= expected_ops:
                break
        assert value(after, "cardtable_action_seconds_count", event="op") == expected_ops
        assert (
            value(after, "cardtable_action_seconds_count", event="join")
            - value(before, "cardtable_action_seconds_count", event="join")
            == 3
        )
        refusals = value(after, "cardtable_rate_limited_total", limit="join") - value(
            before, "cardtable_rate_limited_total", limit="join"
        )
        assert refusals == 1
        # Every version of the room since the first scrape was committed by this one process.
        v1 = (await server_table(strict, code)).version
        commits = value(after, "cardtable_commits_total") - value(before, "cardtable_commits_total")
        assert commits == v1 - v0 >= 5  # two joins, three shuffles (and presence, if any)
        # Each commit after the room's feed here began went out through it, once (the copy
        # that comes back on the room's channel is not counted again).
        lag = value(after, "cardtable_feed_lag_seconds_count") - value(
            before, "cardtable_feed_lag_seconds_count"
        )
        assert commits - 1 <= lag <= commits
    finally:
        for c in (ana, ben, cy):
            await c.close()
    # A closed connection leaves the gauge.
    for _ in range(100):
        gone = await scrape(strict.url)
        if value(gone, "cardtable_connections") == value(before, "cardtable_connections"):
            break
    assert value(gone, "cardtable_connections") == value(before, "cardtable_connections")


async def test_a_commit_that_lost_the_version_race_is_counted_as_a_retry(store: RedisStore):
    here, there = RoomService(store), RoomService(store)
    table = await here.create_room()
    ana = await here.join(table.code, "Ana")  # ``here`` now holds the room's state in memory
    await there.join(table.code, "Ben")  # another process moves the room on
    before = await scrape_local()
    await here.rename(table.code, ana.player.id, "Anna")  # reduced on the stale state first
    after = await scrape_local()
    assert (
        value(after, "cardtable_commit_retries_total")
        - value(before, "cardtable_commit_retries_total")
        == 1
    )
    assert value(after, "cardtable_commits_total") - value(before, "cardtable_commits_total") == 1


async def scrape_local() -> Sample:
    """The same numbers /metrics serves, read in this process without a server."""
    from server import metrics

    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(metrics.exposition().decode())
        for s in family.samples
    }
