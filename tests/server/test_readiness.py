"""/readyz beside /healthz: ready (200) only while the store answers and this process's feed
subscriber (the Redis pub/sub reader that brings other processes' commits) is reading; 503
while Redis is down, and ready again once it is back - with a real redis-server killed and
restarted."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from server.store.embedded import EmbeddedRedis
from tests.conftest import make_config, new_room, start_server


async def ready(url: str) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as http, http.get(f"{url}/readyz") as resp:
        return resp.status, await resp.json()


async def until(url: str, want: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """Ask /readyz until its answer holds ``want`` (the subscriber notices a lost or restored
    connection on its next read); fail after 200 asks."""
    for _ in range(200):
        status, body = await ready(url)
        if all(body.get(k) == v for k, v in want.items()):
            return status, body
        await asyncio.sleep(0.05)
    raise AssertionError(f"/readyz never said {want}: {body}")


async def test_readyz_follows_the_store_and_the_feed_subscriber(private_redis: EmbeddedRedis):
    server = await start_server(make_config(private_redis.url, store_timeout_seconds=0.5))
    client = await server.client()
    try:
        await client.join(await new_room(server), "Ana")  # the subscriber now reads a channel
        assert await ready(server.url) == (200, {"status": "ready", "store": "ok", "feed": "ok"})

        private_redis.kill()
        status, body = await until(server.url, {"store": "unreachable", "feed": "down"})
        assert status == 503 and body["status"] == "not ready"

        private_redis.start()
        status, body = await until(server.url, {"store": "ok", "feed": "ok"})
        assert status == 200 and body["status"] == "ready"
    finally:
        await client.close()
        await server.stop()


async def test_one_process_on_its_embedded_store_needs_no_subscriber(tmp_path):
    server = await start_server(make_config("", data_dir=tmp_path / "var"))
    try:
        assert await ready(server.url) == (200, {"status": "ready", "store": "ok", "feed": "ok"})
    finally:
        await server.stop()
