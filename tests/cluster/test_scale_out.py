"""Several server processes on one Redis, crashes, restarts and Redis outages lose nothing."""

from __future__ import annotations

import asyncio
import random

import pytest

from cardtable_client import OpFailed, TableClient
from server.room.service import RoomService
from server.store.redis_store import RedisStore
from server.table.view import snapshot
from tests.cluster.procs import ServerProcess, create_room, health
from tests.server.helpers import check_table_invariants, random_op, try_op


async def _table(redis_url: str, code: str):
    store = RedisStore(redis_url)
    try:
        return await RoomService(store).load_table(code)
    finally:
        await store.close()


async def _settle(redis_url: str, code: str, clients: list[TableClient]):
    for _ in range(100):
        table = await _table(redis_url, code)
        for c in clients:
            await c.wait_version(table.version, timeout=15)
        await asyncio.sleep(0.1)
        again = await _table(redis_url, code)
        if again.version == table.version:
            return again
    raise AssertionError("room never settled")


def _view(table, seat):
    return {o["id"]: o for o in snapshot(table, seat)["objects"]}


@pytest.fixture
async def two_servers(redis_server, tmp_path):
    procs = [
        ServerProcess(redis_url=redis_server.url, log_path=tmp_path / f"s{i}.log") for i in range(2)
    ]
    await asyncio.gather(*(p.start() for p in procs))
    yield procs
    for p in procs:
        p.stop()


async def test_two_processes_one_room_same_moves_same_order(redis_server, two_servers):
    s1, s2 = two_servers
    code = await create_room(s1.url)
    clients = []
    for i in range(4):
        c = await TableClient((s1 if i % 2 == 0 else s2).url).connect()
        await c.join(code, f"P{i}")
        clients.append(c)
    await clients[0].op("deal", id="deck", n=5)

    async def play(c: TableClient, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            await try_op(c, random_op(rng, c))

    await asyncio.gather(*(play(c, i) for i, c in enumerate(clients)))
    table = await _settle(redis_server.url, code, clients)
    check_table_invariants(table)
    assert table.version > 60
    for c in clients:
        assert c.objects == _view(table, c.seat)
    # Every client applied the same committed sequence, in version order, whichever process
    # delivered it (deltas can arrive out of order across processes; clients hold early ones).
    assert all(c.log[-40:] == clients[0].log[-40:] for c in clients)
    assert len(clients[0].log) > 60
    for c in clients:
        await c.close()


async def test_same_card_on_two_processes_one_wins(redis_server, two_servers):
    s1, s2 = two_servers
    code = await create_room(s1.url)
    a = await TableClient(s1.url).connect()
    b = await TableClient(s2.url).connect()
    await a.join(code, "A")
    await b.join(code, "B")
    for i in range(10):
        ov = (await _table(redis_server.url, code)).objects["deck"].v
        results = await asyncio.gather(
            a.op("move", id="deck", x=100 + i, y=100, ov=ov),
            b.op("move", id="deck", x=900 + i, y=100, ov=ov),
            return_exceptions=True,
        )
        errors = [r for r in results if isinstance(r, OpFailed)]
        assert len(errors) == 1 and errors[0].code == "conflict", results
    table = await _settle(redis_server.url, code, [a, b])
    assert a.objects == _view(table, a.seat) and b.objects == _view(table, b.seat)
    await a.close()
    await b.close()


@pytest.mark.parametrize("store", ["embedded", "external"])
async def test_kill_9_restart_loses_nothing_and_clients_resync(store, private_redis, tmp_path):
    redis_url = private_redis.url if store == "external" else None
    srv = ServerProcess(
        redis_url=redis_url, data_dir=tmp_path / "var", log_path=tmp_path / "server.log"
    )
    await srv.start()
    code = await create_room(srv.url)
    a = await TableClient(srv.url, reconnect=True).connect()
    b = await TableClient(srv.url, reconnect=True).connect()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await a.op("shuffle", id="deck")
    acked = []
    for i in range(30):
        acked.append(
            (
                await a.op(
                    "take" if i % 2 else "move",
                    **({"id": "deck"} if i % 2 else {"id": "deck", "x": i * 10, "y": 50}),
                )
            )["v"]
        )
    hand_before = a.hand()
    srv.kill()
    await asyncio.sleep(0.3)
    await srv.start()  # same port, same data
    await a.wait_for(lambda: a.reconnects >= 1 and a.version >= acked[-1], timeout=20)
    await b.wait_for(lambda: b.reconnects >= 1 and b.version >= acked[-1], timeout=20)
    ack = await a.op("take", id="deck")
    assert ack["v"] > acked[-1]
    url = redis_url or f"unix://{(tmp_path / 'var' / 'redis.sock')}"
    table = await _settle(url, code, [a, b])
    assert table.objects["hand0"].cards[: len(hand_before)] == hand_before
    assert a.objects == _view(table, 0) and b.objects == _view(table, 1)
    await a.close()
    await b.close()
    srv.stop()


async def test_redis_outage_is_unavailable_then_play_continues(private_redis, tmp_path):
    srv = ServerProcess(redis_url=private_redis.url, log_path=tmp_path / "server.log")
    await srv.start()
    code = await create_room(srv.url)
    a = await TableClient(srv.url).connect()
    await a.join(code, "Ana")
    before = (await a.op("take", id="deck"))["v"]
    private_redis.stop()
    take = {"op": "take", "id": "deck", "opid": "take-outage"}  # retried as the doc says
    with pytest.raises(OpFailed) as err:
        await a.request("op", take)
    assert err.value.code in ("unavailable", "unconfirmed")  # (known) not applied, or unknown
    assert err.value.payload.get("retryable") is True
    status, body = await health(srv.url)
    assert status == 503 and body["status"] == "degraded"
    assert a.sio.connected
    private_redis.start()
    for _ in range(50):  # redis-py reconnects on the next command; no server restart
        try:
            ack = await a.request("op", take)
            break
        except OpFailed as e:
            assert e.code in ("unavailable", "unconfirmed")
            await asyncio.sleep(0.2)
    assert ack["v"] == before + 1  # the refused take was not half-applied, nor made twice
    assert (await health(srv.url))[0] == 200
    table = await _table(private_redis.url, code)
    assert len(table.objects["hand0"].cards) == 2
    await a.close()
    srv.stop()
