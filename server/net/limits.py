"""Input guards that run before any parsing: payload size and depth, and rate limits.

Per-connection operations use a :class:`TokenBucket` in memory. Per-address limits (joins, room
creations, lookups of unknown room codes) use a :class:`SlidingLimiter`
(:mod:`server.store.rate_limits`) counted in Redis, so they hold across server processes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from server import metrics
from server.errors import (
    BAD_REQUEST,
    RATE_LIMITED,
    ROOM_NOT_FOUND,
    TOO_LARGE,
    CardtableError,
)
from server.net.messages import utf8_text
from server.store.base import Store
from server.store.rate_limits import SlidingLimiter, Window

if TYPE_CHECKING:
    from server.config import Config

T = TypeVar("T")

MAX_DEPTH = 6


def check_payload(payload: Any, max_bytes: int) -> None:
    """Refuse payloads that are too big or too deeply nested, without recursing on them."""
    budget = max_bytes
    stack: list[tuple[Any, int]] = [(payload, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise CardtableError(TOO_LARGE, f"Payload nested deeper than {MAX_DEPTH} levels.")
        budget -= 8
        if isinstance(item, str):
            budget -= len(item)
            if not utf8_text(item):
                raise CardtableError(
                    BAD_REQUEST, "Text must be valid Unicode (no lone surrogate characters)."
                )
        elif isinstance(item, bytes):
            budget -= len(item)
        elif isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
        if budget < 0:
            raise CardtableError(TOO_LARGE, f"Payload larger than {max_bytes} bytes.")


class TokenBucket:
    """Sustained ``rate`` events per second with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            metrics.RATE_LIMITED.labels("ops").inc()
            raise CardtableError(
                RATE_LIMITED, "Slow down: too many actions at once.", retryable=True
            )
        self.tokens -= 1


def miss_limiter(store: Store, config: Config) -> SlidingLimiter:
    """The limit on lookups of room codes that name no live room (docs/architecture.md)."""
    return SlidingLimiter(
        store,
        "miss",
        [Window(60, config.misses_per_minute), Window(24 * 3600, config.misses_per_day)],
        "unknown room codes",
        config.clock,
    )


async def count_misses(
    limiter: SlidingLimiter, address: str, code: str | None, lookup: Callable[[], Awaitable[T]]
) -> T:
    """Run ``lookup`` of the room ``code`` (None: not a code) under ``limiter``.

    A lookup that raises ``room_not_found`` counts as a miss (the same code again counts once);
    any other outcome means the room exists, and nothing is counted. Over the limit ``lookup``
    does not run at all, so a refusal says nothing about the code.
    """
    entry = await limiter.take(address, f"code:{code or '-'}")
    try:
        found = await lookup()
    except CardtableError as err:
        if err.code != ROOM_NOT_FOUND:
            await _give_back_quietly(limiter, address, entry)
        raise
    await _give_back_quietly(limiter, address, entry)
    return found


async def _give_back_quietly(limiter: SlidingLimiter, address: str, entry: str) -> None:
    # If the store is down the event stays counted, which errs on the safe side.
    with contextlib.suppress(CardtableError):
        await limiter.give_back(address, entry)
