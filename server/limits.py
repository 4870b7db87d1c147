"""Input guards that run before any parsing: payload size and depth, and rate limits."""

from __future__ import annotations

import time
from typing import Any

from server.errors import RATE_LIMITED, TOO_LARGE, CardtableError

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
        if isinstance(item, str | bytes):
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
            raise CardtableError(RATE_LIMITED, "Slow down: too many actions at once.",
                                 retryable=True)
        self.tokens -= 1
