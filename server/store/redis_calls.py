"""What a failed Redis call means to the rest of the server: a connection that could not be made,
a timeout, or a Redis still loading its data (or without its master; on a cluster, a shard
failing over or a slot no node serves yet) is :class:`server.store.base.StoreUnavailable`; any
other Redis error is a bug and propagates (CROSSSLOT too: every call keeps to one slot)."""

from __future__ import annotations

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


def no_node_answers(exc: BaseException) -> bool:
    """A cluster client that could reach none of its nodes to learn the slot map."""
    return isinstance(exc, RedisClusterException) and "cannot be connected" in str(exc)


async def reached(call: Awaitable[T]) -> T:
    """Await a Redis call; an unreachable Redis raises :class:`StoreUnavailable`."""
    try:
        return await call
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
