"""Socket.IO's cross-process events on a Redis Cluster survive the failover of their shard.

Two real ``cardtable serve`` processes on a cluster: a challenge sent from a page on process A
reaches the challenged identity's page on process B through the Socket.IO manager's channel
(``ct:{s}:sio``, server/store/sio_manager.py). The master that owns that channel's slot is killed
with kill -9 (the cluster URL names it first, the one node python-socketio's own manager was
given) and stays dead, as a lost machine does; once a replica has taken over, a second
challenge still crosses processes. Two replicas per master, so that the new master still has
one and the store's writes (which wait for a replica) carry on without the dead node.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from cardtable_client import OpFailed
from server.store.sio_manager import SIO_CHANNEL
from tests.cluster.procs import ServerProcess
from tests.clusterredis import ClusterNode, LocalCluster, redis7_available
from tests.conftest import skip_or_fail
from tests.social.helpers import SocialClient, social_client


async def _until(what: str, ready: Callable[[], Awaitable[bool]], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not await ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)


def _replicas_of(master: ClusterNode, cluster: LocalCluster) -> list[ClusterNode]:
    with master.client() as r:
        info = r.info("replication")
    ports = {int(info[f"slave{i}"]["port"]) for i in range(int(info["connected_slaves"]))}
    return [n for n in cluster.nodes if n.port in ports]


async def _challenge(ana: SocialClient, ben: SocialClient) -> dict:
    """Ana challenges Ben; retried while the store says so (its shard failing over)."""
    sent: dict = {}

    async def sent_once() -> bool:
        try:
            sent.update(await ana.request("challenge", {"to": ben.identity, "game": "pennies"}))
            return True
        except OpFailed as err:
            assert err.payload.get("retryable"), err.payload
            return False

    await _until("a challenge is accepted by the store", sent_once)
    return sent


@pytest.fixture
async def on_cluster(
    tmp_path: Path,
) -> AsyncIterator[tuple[LocalCluster, ClusterNode, list[ServerProcess]]]:
    missing = redis7_available()
    if missing:
        skip_or_fail(f"Redis Cluster unavailable: {missing}")
    cluster = LocalCluster(tmp_path / "cluster", replicas=2, node_timeout_ms=1000).start()
    victim = cluster.master_of_key(SIO_CHANNEL)
    first = [victim.address] + [a for a in cluster.startup_nodes if a != victim.address]
    url = "redis+cluster://" + ",".join(first)
    procs = [ServerProcess(redis_url=url, log_path=tmp_path / f"s{i}.log") for i in range(2)]
    try:
        await asyncio.gather(*(p.start() for p in procs))
        yield cluster, victim, procs
    finally:
        for p in procs:
            p.stop()
        cluster.stop()


@pytest.mark.cluster
async def test_a_challenge_crosses_processes_after_its_channels_master_is_killed(
    on_cluster,  # noqa: ANN001
) -> None:
    cluster, victim, (a, b) = on_cluster
    replicas = _replicas_of(victim, cluster)
    assert len(replicas) == 2
    p = "Sf" + secrets.token_hex(3)
    ana = await social_client(a.url, f"{p}Ana")
    ben = await social_client(b.url, f"{p}Ben")
    try:
        first = await _challenge(ana, ben)
        got = await ben.event("challenged")
        assert got["id"] == first["id"]
        await ben.request("challenge_answer", {"id": first["id"], "accept": False})

        victim.kill()

        new: list[ClusterNode] = []

        async def promoted() -> bool:
            for node in replicas:
                try:
                    with node.client() as r:
                        if r.info("replication").get("role") == "master":
                            new.append(node)
                            return True
                except Exception:
                    pass
            return False

        await _until("a replica takes over", promoted)

        # Pub/sub is at most once: wait until both processes listen on the new master.
        async def both_listen() -> bool:
            with new[0].client() as r:
                counts = r.execute_command("PUBSUB", "SHARDNUMSUB", SIO_CHANNEL)
            return int(counts[1]) >= 2

        await _until("both processes subscribe on the new master", both_listen)

        # Ben's presence is on that shard too: his process's heartbeat writes it again.
        async def ben_online() -> bool:
            try:
                seen = await ana.request("lobby", {"q": p})
            except OpFailed as err:
                assert err.payload.get("retryable"), err.payload
                return False
            return any(x["name"] == f"{p}Ben" for x in seen["players"])

        await _until("Ana's lobby has Ben online again", ben_online)
        second = await _challenge(ana, ben)
        got = await ben.event("challenged", match=lambda d: d["id"] == second["id"])
        assert got["game"] == "pennies"
    finally:
        await ana.close()
        await ben.close()
