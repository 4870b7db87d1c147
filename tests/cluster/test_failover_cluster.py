"""Nothing acknowledged is lost when a cluster master is killed (issue 24 item 4).

Redis replicates asynchronously, so the store waits for a replica (``WAIT 1``) before a write is
answered (server/store/replicas.py). The test makes the loss certain without that wait: the
victim master's replica is stopped (SIGSTOP) and a filler value larger than the loopback socket
buffers is written on the shard first, so whatever is committed next sits in the master's own
output buffer, which kill -9 throws away. Acknowledged commits there would be lost; with the
wait none is acknowledged (each is a retryable "unavailable", maybe applied). Then the master is
killed, the replica resumes and takes over, and the shard's room carries on. Rooms on the other
shards commit all along and never see an error; a feed subscribed to every room is subscribed
again on the new master and delivers the room's next commit.
"""

from __future__ import annotations

import asyncio
import signal
import time

import msgspec
import pytest

from cardtable_client import OpFailed, TableClient
from server.store.base import StoreUnavailable
from server.store.feed import feed_channel
from server.store.keys import room_key
from server.store.redis_store import RedisStore
from tests.clusterredis import ClusterNode, LocalCluster
from tests.conftest import make_config, new_room, start_server

_pack = msgspec.msgpack.encode
FILLER = 24 * 1024 * 1024  # past the loopback socket buffers (a few MB each way)


def _room_on(cluster: LocalCluster, port: int, prefix: str) -> str:
    for n in range(10_000):
        code = f"{prefix}{n:04d}"
        if cluster.master_of_key(feed_channel(code)).port == port:
            return code
    raise AssertionError("no code on that shard")


def _replica_of(cluster: LocalCluster, master: ClusterNode) -> ClusterNode:
    with master.client() as r:
        port = int(r.info("replication")["slave0"]["port"])
    return next(n for n in cluster.nodes if n.port == port)


def _v(entry: bytes) -> int:
    return int(msgspec.msgpack.decode(entry)["v"])


async def _until(what: str, ready, timeout: float = 30.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not await ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)


async def _kill_and_fail_over(victim: ClusterNode, replica: ClusterNode) -> None:
    """kill -9 the master, let its (paused) replica go on, and wait until it is the master."""
    victim.kill()
    replica.proc.send_signal(signal.SIGCONT)

    async def promoted() -> bool:
        try:
            with replica.client() as r:
                return r.info("replication").get("role") == "master"
        except Exception:
            return False

    await _until("the replica takes over", promoted)


async def test_kill_9_of_a_master_loses_no_acknowledged_commit(
    private_cluster: LocalCluster,
) -> None:
    cluster = private_cluster
    masters = cluster.live_masters()
    victim = masters[0]
    replica = _replica_of(cluster, victim)
    lost_code = _room_on(cluster, victim.port, "FA")
    others = [_room_on(cluster, m.port, "FB") for m in masters[1:]]
    store = RedisStore(cluster.url, replicas=1)
    feed = store.subscription()
    acked: dict[str, list[int]] = {c: [] for c in [lost_code, *others]}
    errors: dict[str, list[str]] = {c: [] for c in acked}
    version = dict.fromkeys(acked, 0)

    async def commit(code: str) -> bool:
        v = version[code] + 1
        try:
            await store.commit(code, v - 1, v, b"s%d" % v, _pack({"v": v, "d": {}}))
        except StoreUnavailable as exc:
            errors[code].append(str(exc))
            return False
        version[code] = v
        acked[code].append(v)
        return True

    stop = asyncio.Event()

    async def elsewhere(code: str) -> None:
        """The other shards' rooms: a commit after another, all through the failover."""
        while not stop.is_set():
            await commit(code)
            await asyncio.sleep(0)

    try:
        for code in acked:
            assert await store.create(code, b"s0")
            await feed.subscribe(code)
            assert await commit(code)
        busy = [asyncio.create_task(elsewhere(c)) for c in others]

        # The victim's replica stops reading; a filler fills the link, so the next writes on
        # the shard stay in the master's memory only.
        assert replica.proc is not None
        replica.proc.send_signal(signal.SIGSTOP)
        with victim.client() as r:
            r.set(f"filler:{{{lost_code}}}", b"x" * FILLER)
        for _ in range(2):
            await commit(lost_code)
        assert acked[lost_code] == [1], "a commit no replica has was acknowledged"
        assert errors[lost_code], "the shard's room was told to retry"

        await _kill_and_fail_over(victim, replica)
        # The killed node comes back (a supervisor restarts it) and joins as the new master's
        # replica: until a shard has a replica again its writes are refused (WAIT 1), retryably.
        victim.start()

        # The shard's room carries on: its version is read again (a retry after "maybe
        # applied") and the next commit lands, on the new master.
        async def carried_on() -> bool:
            try:
                version[lost_code] = await store.version(lost_code) or 0
                return await commit(lost_code)
            except StoreUnavailable:
                return False

        await _until("the room on the failed shard commits again", carried_on)
        stop.set()
        await asyncio.gather(*busy)
        for code in others:
            assert not errors[code], f"a room on another shard saw {errors[code][:3]}"
            assert len(acked[code]) > 3

        # Every acknowledged commit is there, entry and all.
        for code, versions in acked.items():
            now = await store.version(code)
            assert now is not None and now >= versions[-1]
            recent = versions[-100:]  # the log keeps the newest 200
            log = await store.log_since(code, recent[0] - 1, versions[-1])
            assert log is not None
            got = {msgspec.msgpack.decode(e)["v"] for e in log}
            assert set(recent) <= got, code

        # The feed follows the room to its new master: the last commit arrives.
        last = acked[lost_code][-1]

        async def delivered() -> bool:
            while True:  # everything read so far (the other rooms' entries too), then wait
                try:
                    msg = await feed.next(0.5)
                except Exception:
                    return False
                if msg is None:
                    return False
                if msg.kind == "entry" and msg.code == lost_code and _v(msg.data) == last:
                    return True

        await _until("the feed delivers the commit made after the failover", delivered)
    finally:
        stop.set()
        if replica.proc is not None and replica.alive:
            replica.proc.send_signal(signal.SIGCONT)
        await feed.close()
        await store.close()


async def test_players_on_the_failed_shard_retry_and_carry_on_others_never_notice(
    private_cluster: LocalCluster,
) -> None:
    """The same failure seen by players: a server on the cluster (which waits for a replica by
    default), one room on each shard. The room on the killed master's shard is told
    ``unconfirmed`` (retryable), sends the same move again and carries on, its view the
    store's; the other rooms' players move all along without an error; every acknowledged
    move is in the store."""
    cluster = private_cluster
    server = await start_server(make_config(cluster.url))
    store = RedisStore(cluster.url)
    clients: list[TableClient] = []
    stop = asyncio.Event()
    try:
        by_port: dict[int, str] = {}
        while len(by_port) < cluster.masters:
            code = await new_room(server)
            by_port.setdefault(cluster.master_of_key(room_key(code)).port, code)
        victim = cluster.master_of_key(room_key(next(iter(by_port.values()))))
        replica = _replica_of(cluster, victim)
        lost_code = by_port[victim.port]
        others = [c for p, c in by_port.items() if p != victim.port]
        player: dict[str, TableClient] = {}
        for code in by_port.values():
            player[code] = c = await server.client()
            clients.append(c)
            await c.join(code, "P")
        acked: dict[str, list[tuple[int, float]]] = {c: [] for c in by_port.values()}
        x = iter(range(1, 1_000_000))

        async def move(code: str, payload: dict | None = None) -> dict:
            payload = payload or {
                "op": "move",
                "id": "deck",
                "x": float(next(x) % 9000 + 1),
                "y": 100.0,
            }
            got = await player[code].request("op", payload)
            acked[code].append((got["v"], payload["x"]))
            return got

        async def elsewhere(code: str) -> None:
            while not stop.is_set():
                await move(code)

        for code in by_port.values():
            await move(code)
        busy = [asyncio.create_task(elsewhere(c)) for c in others]

        assert replica.proc is not None
        replica.proc.send_signal(signal.SIGSTOP)
        with victim.client() as r:
            r.set(f"filler:{{{lost_code}}}", b"x" * FILLER)
        retry = {"op": "move", "id": "deck", "x": -1.0, "y": 100.0, "opid": "lost-move-1"}
        with pytest.raises(OpFailed) as refused:
            await move(lost_code, retry)
        assert refused.value.payload["code"] == "unconfirmed"
        assert refused.value.payload["retryable"]
        lost_v = acked[lost_code][-1][0] + 1  # committed on the master alone, then lost
        c = player[lost_code]
        pile = next(o["id"] for o in c.objects.values() if o["t"] == "stack" and o["id"] != "deck")

        await _kill_and_fail_over(victim, replica)
        victim.start()  # back, as the new master's replica

        async def sent(payload: dict) -> bool:
            try:
                await move(lost_code, payload)
                return True
            except OpFailed as err:
                assert err.payload.get("retryable"), err.payload
                return False

        # First another move (of the other pile): it takes the lost move's version number.
        other = {"op": "move", "id": pile, "x": -2.0, "y": 100.0, "opid": "after-failover"}
        await _until("a move on the failed shard is acknowledged again", lambda: sent(other))
        assert acked[lost_code][-1][0] == lost_v
        # The lost move sent again, the very same: it lands (once).
        await _until("the lost move, sent again, is acknowledged", lambda: sent(retry))
        for _ in range(3):
            await move(lost_code)
        stop.set()
        await asyncio.gather(*busy)

        for code in others:
            assert not player[code].errors, player[code].errors[:3]
            assert len(acked[code]) > 3
        for code, moves in acked.items():
            recent = moves[-100:]  # the log keeps the newest 200
            log = await store.log_since(code, recent[0][0] - 1, recent[-1][0])
            assert log is not None
            at = {}
            for raw in log:
                entry = msgspec.msgpack.decode(raw)
                at[entry["v"]] = entry["d"]["all"]["set"][0]["x"]
            assert all(at.get(v) == mx for v, mx in recent), code
        # The room's player sees the room as the store has it: the move it was shown from the
        # dead master at lost_v is not taken for the one that has that number now.
        last_v, last_x = acked[lost_code][-1]
        await c.wait_version(last_v, timeout=15)
        assert c.objects["deck"]["x"] == last_x
        assert c.objects[pile]["x"] == -2.0
    finally:
        stop.set()
        if replica.proc is not None and replica.alive:
            replica.proc.send_signal(signal.SIGCONT)
        for c in clients:
            await c.close()
        await store.close()
        await server.stop()


async def test_only_writes_wait_for_a_replica(redis_server) -> None:  # noqa: ANN001
    """On a Redis with no replica, a store that waits for one refuses writes (retryably, maybe
    applied) but reads the log and counts rate-limit windows without waiting: those scripts
    are not worth an acknowledgement's wait, and must not fail while a shard has no replica."""
    plain = RedisStore(redis_server.url)
    waiting = RedisStore(redis_server.url, replicas=1)
    try:
        await plain.create("WAITS1", b"s0")
        await plain.commit("WAITS1", 0, 1, b"s1", _pack({"v": 1, "d": {}}))
        with pytest.raises(StoreUnavailable) as refused:
            await waiting.commit("WAITS1", 1, 2, b"s2", _pack({"v": 2, "d": {}}))
        assert refused.value.maybe_applied
        log = await waiting.log_since("WAITS1", 0, 2)  # the write ran: it was not confirmed
        assert log is not None and [_v(e) for e in log] == [1, 2]
        assert await waiting.window_add("ct:sw:{join:test}", "m1", 1.0, [(60.0, 5)]) is None
    finally:
        await plain.close()
        await waiting.close()
