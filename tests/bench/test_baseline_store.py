"""The floor server of bench/baseline.py with ``--store``: a move is acknowledged, and its delta
sent, only after its commit is in the server's own redis-server; a stale commit writes nothing."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
import socketio
from aiohttp import web

from bench.baseline import Store, create_app

pytestmark = pytest.mark.redis


async def _serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def test_a_move_is_acknowledged_once_its_commit_is_in_redis(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "var"), blob_bytes=2_000)
    runner, url = await _serve(create_app(store))
    redis = aioredis.Redis.from_url(store.redis_server.url)
    client = socketio.AsyncClient(reconnection=False)
    events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    for name in ("joined", "snapshot", "delta", "ack"):
        client.on(name, lambda data, name=name: events.put_nowait((name, data)))
    try:
        async with aiohttp.ClientSession() as http, http.post(f"{url}/api/rooms") as resp:
            code = (await resp.json())["code"]
        await client.connect(url, transports=["websocket"])
        await client.emit("join", {"code": code, "name": "a"})
        seen = [await asyncio.wait_for(events.get(), 10) for _ in range(2)]
        assert [name for name, _ in seen] == ["joined", "snapshot"]
        committed: list[tuple[str, Any]] = []
        for ref in (1, 2):
            await client.emit("op", {"op": "move", "id": "c1", "x": 5, "y": 6, "ref": ref})
            for _ in range(2):  # the delta to the room (the mover too), then the ack
                name, data = await asyncio.wait_for(events.get(), 10)
                # Whatever the client has been sent about a version is already in Redis.
                committed.append((name, await redis.hmget(f"bs:{{{code}}}:room", ["v", "s"])))
                assert data["v"] == ref
        assert [name for name, _ in committed] == ["delta", "ack", "delta", "ack"]
        assert [int(v) for _, (v, _) in committed] == [1, 1, 2, 2]
        assert all(blob == store.blob and len(blob) == 2_000 for _, (_, blob) in committed)
        await store.commit(code, 1)  # arrives after version 2: writes nothing, counted
        assert await redis.hget(f"bs:{{{code}}}:room", "v") == b"2"
        assert store.dropped == 1
    finally:
        await client.disconnect()
        await redis.aclose()
        await runner.cleanup()  # closes the store: its redis-server stops
    assert store.redis_server.proc is not None and store.redis_server.proc.poll() is not None
