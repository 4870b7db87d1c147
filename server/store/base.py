"""The store interface: what the room service, presence, limits, homemade games and the social
features may ask of the store, and the outcomes it answers with.

:class:`server.store.redis_store.RedisStore` is its one implementation (an external Redis or
the embedded one), and only the app factory names it: everything above the store depends on
this module, which imports no implementation. Anything else that keeps these promises could
stand in for it: ``commit`` writes only if the stored version is still ``expected`` and
publishes the entry on the room's channel in commit order, and never twice for one operation id
(``once``: it raises ``Repeated`` with the id's first outcome instead); ``refuse`` makes a
refusal of an id final; ``log_since`` returns whole runs of entries or ``None``; calls raise
``StoreUnavailable`` when the store can't be reached (``maybe_applied`` when a write was sent
and not answered).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ParamSpec, Protocol, TypeVar

from server.errors import UNAVAILABLE, CardtableError

P = ParamSpec("P")
T = TypeVar("T")

UNREACHABLE = "The game store is unreachable right now; try again in a moment."


class StoreUnavailable(Exception):
    """Redis could not be reached or did not answer in time; the call may be retried.

    ``maybe_applied``: a write was sent and its answer never came, so Redis may have run it
    (or may still run it, when a stalled server resumes); False when it is known that nothing
    was sent (no connection could be made), and for reads.
    """

    def __init__(self, message: str, *, maybe_applied: bool = False) -> None:
        super().__init__(message)
        self.maybe_applied = maybe_applied


def unavailable() -> CardtableError:
    """What a player is told when the store can't be reached: the one translation of
    :class:`StoreUnavailable`, used through :func:`unreachable_is_unavailable`."""
    return CardtableError(UNAVAILABLE, UNREACHABLE, retryable=True)


@contextmanager
def unreachable_is_unavailable() -> Iterator[None]:
    """Within, a store that can't be reached becomes a retryable ``unavailable`` error."""
    try:
        yield
    except StoreUnavailable:
        raise unavailable() from None


def answers_unavailable(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """An async function whose unreachable store becomes a retryable ``unavailable`` error."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with unreachable_is_unavailable():
            return await fn(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class Seen:
    """The first outcome of an operation id: committed as ``version``, or ``refused`` when the
    table was at ``version``."""

    version: int
    refused: bool

    @classmethod
    def from_score(cls, score: int) -> Seen:
        return cls(score // 2, bool(score % 2))


class Repeated(Exception):
    """The operation's id has an outcome already: nothing was written."""

    def __init__(self, seen: Seen) -> None:
        super().__init__(
            f"operation already {'refused' if seen.refused else 'committed'} "
            f"at version {seen.version}"
        )
        self.seen = seen


class VersionMismatch(Exception):
    """Another writer committed first; reload and try again."""

    def __init__(self, current: int) -> None:
        super().__init__(f"store is at version {current}")
        self.current = current


class RoomGone(Exception):
    """The room expired or never existed."""


class Store(Protocol):
    async def ping(self) -> bool: ...

    async def create(self, code: str, blob: bytes, version: int = 0) -> bool: ...

    async def load(self, code: str) -> tuple[int, bytes] | None: ...

    async def version(self, code: str) -> int | None: ...

    async def exists(self, code: str) -> bool: ...

    async def commit(
        self,
        code: str,
        expected: int,
        new: int,
        blob: bytes,
        entry: bytes | None,
        once: tuple[str, str] | None = None,
    ) -> None: ...

    async def refuse(self, code: str, player: str, opid: str, version: int) -> Seen | None: ...

    async def log_since(self, code: str, version: int, upto: int) -> list[bytes] | None: ...

    async def touch_presence(self, members: dict[str, list[str]], now: float) -> None: ...

    async def drop_presence(self, code: str, member: str) -> None: ...

    async def live_members(self, code: str, since: float) -> list[str]: ...

    async def window_add(
        self, key: str, member: str, now: float, windows: Sequence[tuple[float, int]]
    ) -> tuple[int, float] | None: ...

    async def window_drop(self, key: str, member: str) -> None: ...

    async def close(self) -> None: ...
