"""An acknowledgement waits for a replica: ``WAIT`` after a write, on the write's connection.

Redis replicates asynchronously: a master killed right after a commit may take it with it, and
the replica promoted in its place never had it. So where a shard has replicas (a cluster, or one
Redis with a replica behind Sentinel) the store runs ``WAIT <replicas> <timeout>`` on the same
connection right after each write script: it returns once that many replicas have everything
the connection wrote (its replication offset), or at the timeout with how many did. Only then is
the move acknowledged; a commit no replica confirmed in time is answered as the store being
unreachable *with the write maybe applied* (:class:`server.store.base.StoreUnavailable`), which a
player sees as a retryable ``unavailable`` and resends with the same operation id: it lands once.

With one replica per master a failover promotes that replica (``cluster-replica-validity-factor
0``), which has every acknowledged write. ``WAITAOF`` (Redis >= 7.2) would also wait for the
replica's disk; Debian's 7.0 has ``WAIT`` only, and a replica that loses its memory too is a
second failure. What it costs per commit is measured by ``python -m bench --target cluster``.
"""

from __future__ import annotations

from typing import Any, Protocol

from server.store.base import StoreUnavailable


class Connection(Protocol):
    """A redis-py (asyncio) connection: what ``WAIT`` is sent on."""

    async def send_command(self, *args: Any, **kwargs: Any) -> None: ...

    async def read_response(self, *args: Any, **kwargs: Any) -> Any: ...


async def wait_for_replicas(conn: Connection, replicas: int, timeout_ms: int) -> None:
    """Return once ``replicas`` replicas have what ``conn`` wrote; raise ``StoreUnavailable``
    (maybe applied) if fewer confirm within ``timeout_ms``. Nothing to wait for at 0."""
    if replicas <= 0:
        return
    await conn.send_command("WAIT", replicas, timeout_ms, check_health=False)
    confirmed = int(await conn.read_response())
    if confirmed < replicas:
        raise StoreUnavailable(
            f"{confirmed} of {replicas} replicas confirmed the write within {timeout_ms} ms",
            maybe_applied=True,
        )
