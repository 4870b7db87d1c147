"""How the store reaches Redis: one server or a Redis Cluster, behind one code path.

``connect(url)`` makes the client: ``redis://``, ``rediss://`` and ``unix://`` are one Redis (a
blocking pool of connections); ``redis+cluster://host:port,host:port,...`` (or
``rediss+cluster://``) is a Redis Cluster through redis-py's asyncio ``RedisCluster``, which
keeps the slot map, sends each command to the master of its key's slot and follows MOVED/ASK.
Both clients take the same commands, pipelines (on a cluster split by node; the store only
pipelines commands whose outcome does not depend on their neighbours) and scripts (EVALSHA is
routed by its first key: every script's keys share one hash tag, see :mod:`server.store.keys`).

A write script is the one thing run by hand (:class:`ScriptRunner`), because a failure must say
whether the command was sent (``StoreUnavailable.maybe_applied``): the cluster client resends a
command after a timeout, which for a commit would turn "maybe applied" into a version mismatch.
On a cluster the runner takes a connection of the slot's master itself; a MOVED answer (the slot
moved: a failover, a resharding) is followed, not run, so it is sent again at once; a node that
cannot be reached makes the client ask the cluster for its slot map again (at most every
``REFRESH_EVERY`` seconds), so once a replica has taken over the next call goes there.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.base import StoreUnavailable
from server.store.redis_calls import cancel_again, cancelling, no_node_answers
from server.store.replicas import wait_for_replicas

Client = aioredis.Redis | RedisCluster

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
REFRESH_EVERY = 0.25  # seconds between two slot-map refreshes after unreachable nodes
_NOT_RUN = ("MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "LOADING")
_UNREACHED = (RedisConnectionError, RedisTimeoutError, OSError)

try:  # hiredis packs a command in C: a commit's EVALSHA in 2.8 us, redis-py's asyncio one in 10
    from hiredis import pack_command as _c_pack
except ImportError:  # pragma: no cover - hiredis is optional (the ``fast`` extra)
    _c_pack = None  # type: ignore[assignment]
_C_PACKED = frozenset({str, bytes, int})  # packed as redis-py packs them (not bool, not float)


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def cluster_nodes(url: str) -> list[tuple[str, int]]:
    """The startup nodes of a cluster URL (at least one; any live one finds the rest)."""
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    nodes = []
    for part in netloc.split(","):
        if not part.strip():
            continue
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"not host:port in a Redis Cluster URL: {part!r}")
        nodes.append((host.strip("[]"), int(port)))
    if not nodes:
        raise ValueError(f"a Redis Cluster URL names no node: {url!r}")
    return nodes


def node_url(url: str) -> str:
    """A plain ``redis://`` URL of one server: ``url`` itself, or a cluster URL's first node
    (what a client that only speaks to one server, python-socketio's manager, is given: plain
    pub/sub on any node of a cluster reaches every node)."""
    if not is_cluster_url(url):
        return url
    parts = urlsplit(url)
    host, port = cluster_nodes(url)[0]
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    scheme = "rediss" if parts.scheme.lower().startswith("rediss") else "redis"
    return f"{scheme}://{auth}{host}:{port}"


def connect(url: str, *, socket_timeout: float, max_connections: int, pool_wait: float) -> Client:
    """The client for ``url`` (see the module doc)."""
    if is_cluster_url(url):
        parts = urlsplit(url)
        return RedisCluster(
            startup_nodes=[ClusterNode(h, p) for h, p in cluster_nodes(url)],
            username=parts.username,
            password=parts.password,
            ssl=parts.scheme.lower().startswith("rediss"),
            socket_timeout=socket_timeout,
            socket_connect_timeout=socket_timeout,
            health_check_interval=5,
            # Per node; past it a command fails at once (MaxConnectionsError: unavailable)
            # instead of waiting, so each node gets the single server's pool several times.
            max_connections=4 * max_connections,
            # While one shard fails over, the rooms on the others carry on.
            require_full_coverage=False,
        )
    # A blocking pool: with thousands of players more commands are in flight at once than
    # redis-py's default pool holds (100, and past that it raises at once); here they wait
    # for a free connection (one Redis thread serves them all anyway), and only a wait past
    # ``pool_wait`` counts as the store being unavailable.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_wait,
        socket_timeout=socket_timeout,
        socket_connect_timeout=socket_timeout,
        health_check_interval=5,
        retry_on_timeout=False,
    )
    return aioredis.Redis.from_pool(pool)  # closes the pool with it


def _one_word(name: Any) -> bool:
    return type(name) is str and " " not in name


def packed(conn: Any, *args: Any) -> Any:
    """The command as ``conn.send_command(*args)`` would send it: by hiredis where it packs the
    arguments' types byte for byte as redis-py does, else by the connection (which also splits
    a command name of several words)."""
    if _c_pack is not None and _one_word(args[0]) and all(type(a) in _C_PACKED for a in args):
        return _c_pack(args)
    return conn.pack_command(*args)


async def _send(conn: Any, script: Any, keys: list[str], args: list[Any], asking: bool) -> Any:
    """EVALSHA on ``conn`` (EVAL when Redis lost its script cache: nothing ran then)."""
    if asking:
        await conn.send_command("ASKING", check_health=False)
        await conn.read_response()
    command = packed(conn, "EVALSHA", script.sha, len(keys), *keys, *args)
    await conn.send_packed_command(command, check_health=False)
    try:
        return await conn.read_response()
    except NoScriptError:
        if asking:
            await conn.send_command("ASKING", check_health=False)
            await conn.read_response()
        await conn.send_command("EVAL", script.script, len(keys), *keys, *args, check_health=False)
        return await conn.read_response()


class Script:
    """A Lua script the store runs through its :class:`ScriptRunner` (on a cluster, at the
    master of its first key's slot); called like redis-py's: ``await script(keys=, args=)``."""

    def __init__(self, runner: ScriptRunner, source: str, waits: bool = True) -> None:
        self.runner = runner
        self.script = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 - Redis names it so
        self.waits = waits  # for the runner's replicas after it runs (False: reads, rate limits)

    async def __call__(self, keys: Sequence[str], args: Sequence[Any] = ()) -> Any:
        return await self.runner.run(self, list(keys), list(args))


class ScriptRunner:
    """Runs scripts so that a failure says whether Redis may have run them.

    Every script of the store goes through here rather than redis-py's ``register_script``:
    EVALSHA, then EVAL on the same connection when the server lost its script cache (the
    cluster client's SCRIPT LOAD to every master, raced by concurrent first calls, broke its
    connections in tests/store on redis-py 8.1).
    """

    def __init__(self, client: Client, *, in_flight: int = 0, wait: float = 5.0) -> None:
        self.client = client
        self.refreshed = 0.0
        # On a cluster, at most ``in_flight`` scripts at once per node (0: no limit); the rest
        # wait up to ``wait`` seconds, as one Redis's blocking pool makes them: redis-py's
        # cluster client raises at once past its per-node connections.
        self.in_flight = in_flight
        self.wait = wait
        self.gates: dict[str, asyncio.Semaphore] = {}
        # Replicas that must have a write before it is answered (WAIT: server/store/replicas.py).
        self.replicas = 0
        self.replica_timeout_ms = 1000

    def register(self, source: str, *, waits: bool = True) -> Script:
        """``waits``: a write whose answer waits for :attr:`replicas` (not a read, nor a write
        whose loss on failover is harmless, e.g. a rate-limit window)."""
        return Script(self, source, waits)

    async def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The script's answer. Raises ``StoreUnavailable``: ``maybe_applied`` when it was sent
        and no answer came (a timeout, a dropped connection), not when it is known that it did
        not run (no connection, a failed health check, Redis loading, a shard without master)."""
        if isinstance(self.client, RedisCluster):
            return await self._run_cluster(self.client, script, keys, args)
        pool = self.client.connection_pool
        try:
            conn = await pool.get_connection()
        except _UNREACHED as exc:
            raise StoreUnavailable(str(exc)) from exc
        try:
            return await self._on(conn, script, keys, args, asking=False)
        finally:
            await pool.release(conn)

    async def _on(
        self, conn: Any, script: Any, keys: list[str], args: list[Any], *, asking: bool
    ) -> Any:
        try:
            await conn.check_health()
        except _UNREACHED as exc:
            await conn.disconnect(nowait=True)
            raise StoreUnavailable(str(exc)) from exc
        before = cancelling()
        try:
            got = await _send(conn, script, keys, args, asking)
            if getattr(script, "waits", True):
                await wait_for_replicas(conn, self.replicas, self.replica_timeout_ms)
            cancel_again(before)  # a cancellation redis-py took in a read, raised again
            return got
        except (BusyLoadingError, ClusterDownError, TryAgainError) as exc:  # refused, not run
            raise StoreUnavailable(str(exc)) from exc
        except _UNREACHED as exc:
            await conn.disconnect(nowait=True)
            raise StoreUnavailable(str(exc), maybe_applied=True) from exc
        except AskError:
            raise  # MOVED and ASK: not run, the cluster path follows them
        except RedisError as exc:
            if any(word in str(exc) for word in _NOT_RUN):  # refused, not run
                raise StoreUnavailable(str(exc)) from exc
            raise

    async def _run_cluster(
        self, cluster: RedisCluster, script: Any, keys: list[str], args: list[Any]
    ) -> Any:
        if cluster._initialize:  # noqa: SLF001 - the client's own "not connected yet"
            await self._reach(cluster.initialize())
        slot = cluster.keyslot(keys[0])
        asking_node: str | None = None
        for _ in range(cluster.RedisClusterRequestTTL):
            try:
                if asking_node is not None:
                    node = cluster.get_node(node_name=asking_node)
                    if node is None:
                        raise StoreUnavailable(f"no node {asking_node} in the slot map")
                else:
                    node = cluster.nodes_manager.get_node_from_slot(slot)
            except SlotNotCoveredError as exc:
                await self._refresh(cluster)
                raise StoreUnavailable(str(exc)) from exc
            gate = self._gate(node.name)
            if gate is not None:
                try:
                    # Not ``wait_for``, which makes a task per call (Python 3.11): once a commit.
                    async with asyncio.timeout(self.wait):
                        await gate.acquire()
                except TimeoutError:
                    raise StoreUnavailable(f"no connection to {node.name} free in time") from None
            try:
                conn = node.acquire_connection()
            except _UNREACHED as exc:  # MaxConnectionsError: every connection is busy
                if gate is not None:
                    gate.release()
                raise StoreUnavailable(str(exc)) from exc
            try:
                await node.disconnect_if_needed(conn)
                return await self._on(conn, script, keys, args, asking=asking_node is not None)
            except StoreUnavailable as exc:
                if not exc.maybe_applied or isinstance(exc.__cause__, _UNREACHED):
                    await self._refresh(cluster)
                raise
            except AskError as exc:  # MovedError too: not run, so sent again where it is now
                if isinstance(exc, MovedError):
                    await self._reach(cluster.nodes_manager.move_slot(exc))
                    asking_node = None
                else:
                    asking_node = f"{exc.host}:{exc.port}"
            finally:
                node.release(conn)
                if gate is not None:
                    gate.release()
        raise StoreUnavailable(f"slot {slot} kept moving")

    def _gate(self, node: str) -> asyncio.Semaphore | None:
        if not self.in_flight:
            return None
        if node not in self.gates:
            self.gates[node] = asyncio.Semaphore(self.in_flight)
        return self.gates[node]

    async def _refresh(self, cluster: RedisCluster) -> None:
        """Ask the cluster for its slot map again (not more often than ``REFRESH_EVERY``)."""
        now = time.monotonic()
        if now - self.refreshed < REFRESH_EVERY:
            return
        self.refreshed = now
        try:
            await cluster.nodes_manager.initialize()
        except (RedisError, OSError, RedisClusterException):
            cluster._initialize = True  # noqa: SLF001 - let its next command try again

    @staticmethod
    async def _reach(call: Any) -> Any:
        try:
            return await call
        except (*_UNREACHED, SlotNotCoveredError) as exc:
            raise StoreUnavailable(str(exc)) from exc
        except RedisClusterException as exc:
            if no_node_answers(exc):
                raise StoreUnavailable(str(exc)) from exc
            raise
