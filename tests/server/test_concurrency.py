"""Two clients grabbing the same card at once: exactly one wins, everyone converges."""

from __future__ import annotations

import asyncio
import random

from cardtable_client import OpFailed
from tests.conftest import new_room
from tests.server.helpers import random_op, server_table, try_op, view_by_id


async def _results(*coros):
    out = []
    for r in await asyncio.gather(*coros, return_exceptions=True):
        if isinstance(r, OpFailed):
            out.append(("error", r.code))
        elif isinstance(r, BaseException):
            raise r
        else:
            out.append(("ack", r["v"]))
    return out


async def test_same_card_moved_at_once_exactly_one_wins(server, make_client):
    code = await new_room(server)
    a, b, c = await make_client(), await make_client(), await make_client()
    for i, cl in enumerate((a, b, c)):
        await cl.join(code, f"P{i}")
    await a.op("move", id=a.objects["deck"]["cards"][-1], x=100, y=100, up=True)
    await c.wait_version(a.version)
    for round_ in range(20):
        loose = next(o for o in a.objects.values() if o["t"] == "card" and o["parent"] is None)
        ov = loose["v"]
        await b.wait_version(a.version)
        results = await _results(
            a.op("move", id=loose["id"], x=200 + round_, y=300, ov=ov),
            b.op("move", id=loose["id"], x=900 + round_, y=300, ov=ov),
        )
        kinds = sorted(k for k, _ in results)
        assert kinds == ["ack", "error"], results
        assert next(v for k, v in results if k == "error") == "conflict"
        winner_x = 200 + round_ if results[0][0] == "ack" else 900 + round_
        table = await server_table(server, code)
        assert table.objects[loose["id"]].x == winner_x
    for cl in (a, b, c):
        await cl.wait_version(table.version)
        assert cl.objects == view_by_id(table, cl.seat)


async def test_everyone_converges_under_concurrent_random_play(server, make_client):
    code = await new_room(server, "standard-jokers")
    clients = [await make_client() for _ in range(4)]
    for i, cl in enumerate(clients):
        await cl.join(code, f"P{i}")
    await clients[0].op("deal", id="deck", n=4)

    async def play(cl, seed):
        rng = random.Random(seed)
        for _ in range(60):
            await try_op(cl, random_op(rng, cl))

    await asyncio.gather(*(play(cl, i) for i, cl in enumerate(clients)))
    table = await server_table(server, code)
    assert table.version > 60
    for cl in clients:
        await cl.wait_version(table.version)
        assert cl.objects == view_by_id(table, cl.seat)
