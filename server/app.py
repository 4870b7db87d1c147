"""The app factory: aiohttp + Socket.IO, with the Redis store owned by a cleanup context."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from server.config import Config
from server.net import wire
from server.net.http import (
    CONFIG_KEY,
    FEED_ALIVE_KEY,
    ROOMS_KEY,
    add_routes,
    not_found_page,
    security_headers,
    wrong_method,
)
from server.net.messages import CLIENT_EVENTS
from server.net.sio import GuardedServer
from server.net.sockets import SocketHandlers
from server.room.service import RoomService
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from server.store.sio_manager import StoreManager

log = logging.getLogger("cardtable")
SIO_KEY: web.AppKey[GuardedServer] = web.AppKey("sio", GuardedServer)
HANDLERS_KEY: web.AppKey[SocketHandlers] = web.AppKey("handlers", SocketHandlers)


async def _heartbeat(handlers: SocketHandlers, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await handlers.heartbeat()
        except Exception:
            log.exception("heartbeat failed")


def create_app(config: Config) -> web.Application:
    app = web.Application(
        middlewares=[security_headers, not_found_page, wrong_method], client_max_size=64 * 1024
    )
    # With an external Redis, events fan out through it so several server processes can share
    # rooms; the embedded store is private to one process, so it fans out in memory.
    # One Redis or a cluster alike, through the store's kind of client (server/store/sio_manager).
    store_url = config.store_url()
    manager = (
        StoreManager(store_url, socket_timeout=config.store_timeout_seconds) if store_url else None
    )
    sio = GuardedServer(
        async_mode="aiohttp",
        client_manager=manager,
        cors_allowed_origins=config.cors_origins if config.cors_origins is not None else [],
        # Frames up to 8 MB are read so that one over the event limit gets a ``too_large``
        # answer instead of a closed socket; past this the transport closes the connection.
        max_http_buffer_size=8 * 1024 * 1024,
        events=CLIENT_EVENTS,
        frame_limit=4 * config.max_payload_bytes + 1024,
        ping_interval=10,
        ping_timeout=10,
        json=wire,
    )
    sio.attach(app)
    handlers = SocketHandlers(sio, config)
    app[SIO_KEY] = sio
    app[HANDLERS_KEY] = handlers
    app[CONFIG_KEY] = config
    app[FEED_ALIVE_KEY] = handlers.feed_alive

    async def store_ctx(app: web.Application) -> AsyncIterator[None]:
        embedded: EmbeddedRedis | None = None
        url = store_url
        if not url:
            embedded = EmbeddedRedis(config.data_dir, fsync=config.fsync).start()
            url = embedded.url
            log.info("embedded store: redis-server under %s", config.data_dir.resolve())
        store = RedisStore(
            url,
            log_cap=config.log_cap,
            ttl_seconds=config.room_ttl_seconds,
            socket_timeout=config.store_timeout_seconds,
            replicas=config.wait_replicas(url),
        )
        rooms = RoomService(store, config.limits, bot_delay=config.bot_delay_seconds)
        app[ROOMS_KEY] = rooms
        # Other processes' commits arrive on the rooms' channels; the embedded store has none.
        handlers.start(rooms, follow_others=bool(store_url))
        beat = asyncio.create_task(_heartbeat(handlers, config.heartbeat_seconds))
        yield
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        await handlers.stop()
        await store.close()
        if embedded is not None:
            embedded.stop()

    app.cleanup_ctx.append(store_ctx)
    if manager is not None:
        app.on_shutdown.append(lambda _app: manager.aclose())
    add_routes(app, config)
    return app
