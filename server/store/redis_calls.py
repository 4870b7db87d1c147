"""What a failed Redis call means to the rest of the server: a connection that could not be made,
a timeout, or a Redis still loading its data (or without its master; on a cluster, a shard
failing over or a slot no node serves yet) is :class:`server.store.base.StoreUnavailable`; any
other Redis error is a bug and propagates (CROSSSLOT too: every call keeps to one slot)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from redis.exceptions import (
    ClusterError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.base import StoreUnavailable

T = TypeVar("T")


def cancelling() -> int:
    """The cancellations requested of the current task and not taken back (0 outside a task)."""
    task = asyncio.current_task()
    return 0 if task is None else task.cancelling()


def cancel_again(before: int) -> None:
    """Raise ``CancelledError`` if the current task was cancelled since ``cancelling()`` was
    ``before`` and the call that was under way returned anyway: redis-py 8.1's connection can
    take a cancellation in the middle of a read and still return the reply (5 % of cancelled
    scripts on a cluster node's connection), and a task that carries on after its cancel never
    stops (a server's shutdown, waiting for its heartbeat, hung for good)."""
    if cancelling() > before:
        raise asyncio.CancelledError


def no_node_answers(exc: BaseException) -> bool:
    """A cluster client that could reach none of its nodes to learn the slot map."""
    return isinstance(exc, RedisClusterException) and "cannot be connected" in str(exc)


async def reached(call: Awaitable[T]) -> T:
    """Await a Redis call; an unreachable Redis raises :class:`StoreUnavailable`, and a
    cancellation the client took is raised again (:func:`cancel_again`)."""
    before = cancelling()
    try:
        got = await call
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        raise StoreUnavailable(str(exc)) from exc
    except (ClusterError, TryAgainError, SlotNotCoveredError) as exc:  # CLUSTERDOWN, TTL exhausted
        raise StoreUnavailable(str(exc)) from exc
    except RedisClusterException as exc:
        if no_node_answers(exc):
            raise StoreUnavailable(str(exc)) from exc
        raise
    except RedisError as exc:
        if "LOADING" in str(exc) or "MASTERDOWN" in str(exc):
            raise StoreUnavailable(str(exc)) from exc
        raise
    cancel_again(before)
    return got
