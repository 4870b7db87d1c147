"""Redis keys and error codes of the social features, and the one wrapper for Redis calls.

Every social key shares the hash tag ``{s}`` so the scripts that touch several of them stay on
one slot of a Redis Cluster; a room's chat history keeps the room's own tag.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.errors import (  # noqa: F401 - re-exported for the social modules
    BAD_IDENTITY,
    BLOCKED,
    BLOCKED_PLAYER_HERE,
    CHALLENGE_EXPIRED,
    IDENTITY_REQUIRED,
    NO_IDENTITY,
    OFFLINE,
    OUT_OF_DATE,
    UNAVAILABLE,
    UNKNOWN_CHALLENGE,
    UNKNOWN_IDENTITY,
    CardtableError,
)

T = TypeVar("T")

# Stable error codes (docs/protocol.md, "Playing with people").

PREFIX = "ct:{s}:"
ONLINE = PREFIX + "online"  # zset identity -> last seen
NAMES = PREFIX + "names"  # zset (score 0) "lower name\0identity" of online identities
PUBLIC = PREFIX + "public"  # zset room code -> when it was made public
DUE = PREFIX + "due"  # zset open challenge id -> when it expires


def identity_key(identity: str) -> str:
    """Hash: ``h`` sha256 of the secret, ``n`` display name, ``o`` its entry in NAMES."""
    return f"{PREFIX}u:{identity}"


def sockets_key(identity: str) -> str:
    """Zset: the identity's online sockets (``sid``) -> last seen."""
    return f"{PREFIX}u:{identity}:socks"


def relation_key(identity: str, kind: str) -> str:
    """Set of the identities ``identity`` has blocked / muted / favourited."""
    return f"{PREFIX}r:{identity}:{kind}"


def challenge_key(challenge: str) -> str:
    return f"{PREFIX}c:{challenge}"


def chat_key(code: str) -> str:
    return f"ct:{{{code}}}:chat"


def id_room(identity: str) -> str:
    """The Socket.IO room every socket of an identity is in, on any server process."""
    return f"id/{identity}"


async def call(coro: Awaitable[T]) -> T:
    """Await a Redis call; an unreachable store becomes a retryable ``unavailable``."""
    try:
        return await coro
    except (RedisConnectionError, RedisTimeoutError, OSError):
        raise CardtableError(
            UNAVAILABLE,
            "The game store is unreachable right now; try again in a moment.",
            retryable=True,
        ) from None
