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
from typing import Any, ParamSpec, Protocol, TypeVar

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


class SocialStore(Protocol):
    """What the social features keep: identities, relations, who is online, public rooms,
    challenges and table chat. Times are seconds (``now``); "stale before" times are exclusive.
    """

    async def hello(
        self, identity: str, secret_hash: str, name: str, default_name: str, ttl: int
    ) -> str | None:
        """Register ``identity`` with ``secret_hash`` if it is new, rename it if ``name`` is
        not empty (a new one without a name gets ``default_name``), keep it ``ttl`` seconds
        more: its stored name, or None if the identity has another secret (nothing changed)."""
        ...

    async def identity_exists(self, identity: str) -> bool: ...

    async def names(self, identities: Sequence[str]) -> list[str | None]:
        """Display names of ``identities``, in order (None for unknown ones)."""
        ...

    async def relation_add(self, me: str, kind: str, other: str) -> None: ...

    async def relation_drop(self, me: str, kind: str, other: str) -> None: ...

    async def relation_size(self, me: str, kind: str) -> int: ...

    async def relations(self, me: str, kinds: Sequence[str]) -> dict[str, set[str]]:
        """Everyone in each of ``me``'s ``kinds`` lists."""
        ...

    async def relation_has(self, me: str, kind: str, others: Sequence[str]) -> list[bool]:
        """Whether each of ``others`` is in ``me``'s ``kind`` list."""
        ...

    async def relation_in(self, others: Sequence[str], kind: str, me: str) -> list[bool]:
        """Whether ``me`` is in the ``kind`` list of each of ``others``."""
        ...

    async def relation_sizes(self, identities: Sequence[str], kind: str) -> list[int]: ...

    async def go_online(
        self, identity: str, sid: str, name: str, now: float, sockets_ttl: int
    ) -> None:
        """Socket ``sid`` of ``identity`` (listed under ``name``) is online at ``now``; the
        identity's socket list lives ``sockets_ttl`` seconds unless refreshed."""
        ...

    async def refresh_online(
        self, online: Sequence[tuple[str, str, str]], now: float, sockets_ttl: int
    ) -> None:
        """:meth:`go_online` for each (identity, sid, name), in few round trips."""
        ...

    async def go_offline(self, identity: str, sid: str, stale_before: float) -> None:
        """Socket ``sid`` is gone (and those not seen since ``stale_before``); the identity is
        offline once it has no socket left (and then is at no table: :meth:`at_get`)."""
        ...

    async def prune_online(self, stale_before: float) -> int:
        """Take identities not seen since ``stale_before`` offline (and from their tables);
        how many."""
        ...

    async def at_set(self, identity: str, code: str) -> None:
        """Remember the room ``identity`` last joined (the lobby's "at a table")."""
        ...

    async def at_set_many(self, where: dict[str, str]) -> None:
        """:meth:`at_set` for each identity -> room code, in one round trip."""
        ...

    async def at_drop(self, identity: str, code: str) -> None:
        """``identity`` left room ``code``: forget it is there, unless it joined another since."""
        ...

    async def at_get(self, identities: Sequence[str]) -> list[str | None]:
        """The room each of ``identities`` last joined (None: none)."""
        ...

    async def last_seen(self, identity: str) -> float | None:
        """When ``identity`` was last seen online (None: it is offline)."""
        ...

    async def online_page(
        self, prefix: str | None, start: int, count: int, favourites_of: str | None
    ) -> tuple[int, list[str], set[str]]:
        """Online identities by name (from ``start``, at most ``count``; with ``prefix``, those
        whose name starts with it, case-folded): how many match in all, the page's
        identities, and the favourites of ``favourites_of`` (empty for None)."""
        ...

    async def public_add(self, code: str, now: float) -> None: ...

    async def public_drop(self, code: str) -> None: ...

    async def public_newest(self, most: int) -> list[str]:
        """The codes of the newest public rooms, newest first."""
        ...

    async def challenge_open(
        self, challenge: str, fields: dict[str, str], keep: int, due: float
    ) -> None:
        """Keep an open challenge's ``fields`` ``keep`` seconds; it expires at ``due``."""
        ...

    async def challenge_fields(self, challenge: str) -> dict[str, str]:
        """An open challenge's fields (empty if it is gone)."""
        ...

    async def challenge_take(self, challenge: str, now: float) -> int:
        """Remove a challenge in one step: 0 it was gone, 1 it was open, 2 it had expired (a
        sweep marked it, or it was due by ``now``). Only one caller ever gets 1 or 2."""
        ...

    async def challenge_sweep(self, now: float, most: int) -> list[tuple[str, str, str, str]]:
        """Mark at most ``most`` challenges due by ``now`` expired: (id, sender, sender's
        name, target) of each this call marked (no other call marks them again)."""
        ...

    async def chat_add(self, code: str, line: dict[str, Any], keep: int, ttl: int) -> None:
        """Append a chat line to room ``code``'s history, which keeps the last ``keep`` lines
        for ``ttl`` seconds."""
        ...

    async def chat_lines(self, code: str) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class FeedMessage:
    """What a feed subscription reads: ``subscribed`` (room ``code``'s commits are read from
    now on) or ``entry`` (the op-log entry of a commit in room ``code``, any process's)."""

    kind: str
    code: str
    data: bytes = b""


class FeedSubscription(Protocol):
    """One reader of the entries every process's commits publish, for the rooms subscribed."""

    async def subscribe(self, code: str) -> None: ...

    async def unsubscribe(self, code: str) -> None: ...

    async def next(self, timeout: float) -> FeedMessage | None:
        """The next message, or None after ``timeout`` seconds without one; raises when the
        connection is lost (call again to retry)."""
        ...

    async def close(self) -> None: ...


class Store(Protocol):
    @property
    def social(self) -> SocialStore:
        """Where the social features keep their data."""
        ...

    def subscription(self) -> FeedSubscription:
        """A new reader of the rooms' commits, in commit order per room."""
        ...

    async def put_image(self, code: str, digest: str, data: bytes, most: int) -> int:
        """Keep an image with room ``code`` under its sha256: 1 stored, 0 already there, -1 no
        such room, -2 the room already holds ``most`` images."""
        ...

    async def get_image(self, code: str, digest: str) -> bytes | None: ...

    async def get_images(self, code: str, digests: Sequence[str]) -> dict[str, bytes]:
        """The room's images among ``digests`` (missing ones left out)."""
        ...

    async def create_with_images(
        self, code: str, blob: bytes, version: int, images: dict[str, bytes]
    ) -> bool:
        """:meth:`create` and the room's images in one atomic step; False if the code is taken
        (then nothing is written)."""
        ...

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
        hands: Sequence[bytes] = (),
    ) -> None: ...

    async def hand_records(self, code: str) -> list[bytes]:
        """The room's finished hands' records (JSON), oldest first (``ct:{CODE}:hands``)."""
        ...

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
