"""The store interface the room service, presence and limits depend on.

:class:`server.store.redis_store.RedisStore` is its one implementation (an external Redis or
the embedded one); anything else that keeps these promises could stand in for it: ``commit``
writes only if the stored version is still ``expected`` and publishes the entry on the room's
channel in commit order, and never twice for one operation id (``once``: it raises ``Repeated``
with the id's first outcome instead); ``refuse`` makes a refusal of an id final;
``log_since`` returns whole runs of entries or ``None``; calls raise ``StoreUnavailable`` when
the store can't be reached (``maybe_applied`` when a write was sent and not answered).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from server.store.redis_store import Seen


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
