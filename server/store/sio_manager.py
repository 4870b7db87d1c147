"""Socket.IO's cross-process channel through the store's own kind of client.

python-socketio's :class:`socketio.AsyncPubSubManager` sends every emit to the other server
processes over a pub/sub channel (an emit to an identity's room ``id/<identity>`` whose pages
are on another process: challenges, invites, rematches), and each process hands what it reads
to its own sockets. Its ``AsyncRedisManager`` speaks to one server only, so on a Redis Cluster
it was given the first node: a single point of failure for those events.

:class:`StoreManager` publishes on one hash-tagged channel, :data:`SIO_CHANNEL` (the social
layer's slot ``{s}``), with ``SPUBLISH`` where Redis has sharded pub/sub and ``PUBLISH``
otherwise (the capability probe of :mod:`server.store.feed`), and listens with ``SSUBSCRIBE``
(``SUBSCRIBE``). On a cluster it goes through redis-py's ``RedisCluster``: the message travels
only through the shard that owns the slot, and after a failover the client asks the cluster for
its slot map again, so publishing goes to the new master and the cluster pub/sub moves the
subscription there too. One channel: the events are few (social messages, not moves), so
one shard carries them all; the rooms' traffic is on the rooms' own channels.

Pub/sub delivers at most once: an event published while its shard has no master (the seconds of
a failover) is lost, as with any Redis manager; the publish is retried a few times meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from redis.asyncio.cluster import RedisCluster
from socketio.async_pubsub_manager import AsyncPubSubManager

from server.store.clients import Client, connect
from server.store.feed import has_sharded_pubsub

SIO_CHANNEL = "ct:{s}:sio"
_DATA = ("message", "smessage")
PUBLISH_TRIES = 4  # a failover's new master is found by asking again between them
RETRY_PAUSE = 0.25  # seconds between two tries, and the first pause of the listener's backoff


class StoreManager(AsyncPubSubManager):
    """A Socket.IO client manager over Redis pub/sub, one Redis or a cluster (module doc)."""

    name = "cardtable-store"

    def __init__(
        self, url: str, *, channel: str = SIO_CHANNEL, socket_timeout: float = 2.0
    ) -> None:
        super().__init__(channel=channel)
        self.url = url
        self.socket_timeout = socket_timeout
        self.redis: Client | None = None  # made in the event loop, on first use
        self.sharded: bool | None = None
        self._probe = asyncio.Lock()
        self.pubsub: Any = None

    def _client(self) -> Client:
        if self.redis is None:
            self.redis = connect(
                self.url, socket_timeout=self.socket_timeout, max_connections=8, pool_wait=5.0
            )
        return self.redis

    async def _is_sharded(self) -> bool:
        if self.sharded is None:
            async with self._probe:
                if self.sharded is None:
                    self.sharded = await has_sharded_pubsub(self._client())
        return self.sharded

    async def _refresh(self) -> None:
        """On a cluster, ask for the slot map again (a failover moved the channel's slot):
        publishing follows it, and the cluster pub/sub moves the subscription with it."""
        if isinstance(self.redis, RedisCluster):
            with contextlib.suppress(Exception):
                await self.redis.nodes_manager.initialize()

    async def _publish(self, data: Any) -> Any:
        payload = self.json.dumps(data)
        for tries_left in range(PUBLISH_TRIES - 1, -1, -1):
            try:
                redis = self._client()
                if await self._is_sharded():
                    return await redis.execute_command("SPUBLISH", self.channel, payload)
                return await redis.publish(self.channel, payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if tries_left == 0:
                    self._get_logger().error("cannot publish a Socket.IO event: %s", exc)
                    return None
                await asyncio.sleep(RETRY_PAUSE)
                await self._refresh()
        return None

    async def _subscribe(self) -> Any:
        redis = self._client()
        pubsub = redis.pubsub()
        if await self._is_sharded():
            await pubsub.ssubscribe(self.channel)
        else:
            await pubsub.subscribe(self.channel)
        return pubsub

    async def _next(self, pubsub: Any) -> Any:
        """The next message on ``pubsub`` (None after a second of silence)."""
        if not isinstance(self.redis, RedisCluster):
            return await pubsub.get_message(timeout=1.0)
        nodes = list(pubsub.node_pubsub_mapping.items())  # one, two while the channel moves
        if not nodes:
            await pubsub.ssubscribe(self.channel)  # its node was dropped: subscribe again
            return None
        for name, node in nodes:
            target = self.redis.get_node(node_name=name)
            timeout = 1.0 / len(nodes)
            if target is not None:
                msg = await pubsub.get_sharded_message(timeout=timeout, target_node=target)
            else:  # no longer in the slot map: what is left on its connection
                msg = await node.get_message(timeout=timeout)
            if msg is not None:
                return msg
        return None

    async def _listen(self) -> AsyncIterator[bytes]:
        channel = self.channel.encode()
        pause = RETRY_PAUSE
        while True:
            try:
                if self.pubsub is None:
                    self.pubsub = await self._subscribe()
                msg = await self._next(self.pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._get_logger().warning("Socket.IO channel: %s; subscribing again", exc)
                # A new pub/sub, subscribed where the slot map says now. Not the cluster
                # pub/sub's own move of the channel: run as a task of its own, it reads the old
                # node's connection while this reads it too (redis-py 8.1), and fails.
                if self.pubsub is not None:
                    with contextlib.suppress(Exception):
                        await self.pubsub.aclose()
                    self.pubsub = None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
                await self._refresh()
                continue
            pause = RETRY_PAUSE
            if msg is not None and msg["type"] in _DATA and msg["channel"] == channel:
                yield msg["data"]

    async def aclose(self) -> None:
        """Stop listening and close the connections."""
        task = getattr(self, "thread", None)
        if isinstance(task, asyncio.Task):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()
            self.pubsub = None
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
            self.redis = None
