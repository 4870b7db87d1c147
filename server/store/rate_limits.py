"""Per-address rate limits counted in Redis, so they hold across server processes: what one
limit counts (an address, or its /64 for IPv6), sliding windows of events, and the refusal.

The socket and HTTP fronts (:mod:`server.net.limits`), the room service (room creations) and
homemade games (uploads) build their limits from :class:`SlidingLimiter`.
"""

from __future__ import annotations

import ipaddress
import math
import secrets
import time
from collections.abc import Callable, Sequence

import msgspec

from server import metrics
from server.errors import RATE_LIMITED, CardtableError
from server.store.base import Store, unreachable_is_unavailable
from server.store.keys import window_key

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# One IPv6 subscriber usually holds a whole /64, so limits count per /64, not per address.
IPV6_LIMIT_PREFIX = 64


def parse_ip(text: str) -> IPAddress | None:
    """An address as a proxy may write it (bare, ``[v6]:port``, ``v4:port``), or None."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def limit_key(address: str) -> str:
    """What a per-address limit counts: the address itself, or its /64 for IPv6."""
    ip = parse_ip(address) if address else None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_LIMIT_PREFIX), strict=False))
    return str(ip) if ip is not None else address


class Window(msgspec.Struct, frozen=True):
    """At most ``most`` events in any ``seconds`` long span."""

    seconds: float
    most: int


class RateLimited(CardtableError):
    """A per-address limit refused the event; ``retry_after`` seconds until one more fits."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(RATE_LIMITED, message, retryable=True)
        self.retry_after = retry_after


def wait_words(seconds: float) -> str:
    """A wait as people say it: seconds, minutes or hours, rounded up."""
    if seconds <= 90:
        return f"{max(1, math.ceil(seconds))} seconds"
    if seconds <= 90 * 60:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


class SlidingLimiter:
    """Events per client address in sliding windows, counted in Redis by every server process.

    ``what`` names the events in the refusal ("join attempts"); ``clock`` gives the time (tests
    step it instead of waiting).
    """

    def __init__(
        self,
        store: Store,
        name: str,
        windows: Sequence[Window],
        what: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.name = name
        self.windows = tuple(windows)
        self.what = what
        self.clock = clock

    def key(self, address: str) -> str:
        return window_key(self.name, limit_key(address))

    async def take(self, address: str, event: str | None = None) -> str:
        """Count one event for ``address``, or raise :class:`RateLimited` (nothing counted).

        ``event`` names the event: the same name again while it is still in the windows is not
        counted twice. Returns the name (a fresh one without ``event``), for :meth:`give_back`.
        """
        now = self.clock()
        entry = event if event is not None else f"{now!r}|{secrets.token_hex(6)}"
        spans = [(w.seconds, w.most) for w in self.windows]
        with unreachable_is_unavailable():
            full = await self.store.window_add(self.key(address), entry, now, spans)
        if full is None:
            return entry
        index, oldest = full
        metrics.RATE_LIMITED.labels(self.name).inc()
        wait = max(0.0, oldest + self.windows[index].seconds - now)
        raise RateLimited(
            f"Too many {self.what} from your address; try again in {wait_words(wait)}.", wait
        )

    async def give_back(self, address: str, entry: str) -> None:
        """Uncount an event :meth:`take` counted."""
        with unreachable_is_unavailable():
            await self.store.window_drop(self.key(address), entry)
