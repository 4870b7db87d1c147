"""Several players change seats at once: each connection's messages stay in version order.

Five players in a six-seat room all ask for another seat (or to watch) at the same moment, some
twice in a row, while others ask for a ``sync`` or drop their connection and come back with
``join {token, since}``; on one process, and with the players spread over two processes that
share Redis. Every message each connection receives is recorded and judged in order: no
``snapshot`` may be older than the highest version that connection already holds, and every
``delta`` must continue exactly from it (no gap, no step back). Races are forced with
``asyncio.gather``; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from cardtable_client import OpFailed, TableClient
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import server_table, view_by_id

SEATS = 6
PLAYERS = 5
REFUSED = ("seat_taken", "bad_request", "conflict")  # a seat someone got first, or already there
RECONNECT = "reconnect"  # marker put in a client's record where its new connection begins


def order_faults(received: list[tuple[str, Any]]) -> list[str]:
    """Each message that breaks its connection's version order, described.

    A connection holds the highest version it was sent (a reconnect starts from the ``since``
    it sends). A snapshot must not be older than that; a delta must be exactly one more.
    """
    high = -1
    bad = []
    for name, data in received:
        if name == RECONNECT:
            high = data
        elif name == "snapshot":
            if data["v"] < high:
                bad.append(f"stale snapshot v{data['v']} after v{high}")
            high = max(high, data["v"])
        elif name == "delta":
            if data["v"] != high + 1:
                bad.append(f"delta v{data['v']} after v{high}")
            high = max(high, data["v"])
    return bad


async def reconnect(client: TableClient, url: str) -> None:
    """Drop the connection and open a new one, which rejoins with ``join {token, since}`` (the
    client does that on connect, as the page does); returns once the rejoin was answered."""
    await client.sio.disconnect()
    client.received.append((RECONNECT, client.version))
    joins = sum(1 for name, _ in client.received if name == "joined")
    await client.sio.connect(url, transports=["websocket"])
    await client.wait_for(lambda: sum(1 for n, _ in client.received if n == "joined") > joins)
    # The feed answers a sync after the rejoin's catch-up (one queue per room).
    await client.request("sync", {"since": client.version})


async def settle(srv: Any, code: str, clients: list[TableClient]) -> None:
    """Wait until every client holds the room's latest version, and check each one's table."""
    for _ in range(20):
        table = await server_table(srv, code)
        for c in clients:
            await c.wait_version(table.version)
        again = await server_table(srv, code)
        if again.version == table.version:
            for c in clients:
                assert c.version == table.version
                assert c.objects == view_by_id(table, table.players[c.player or ""].seat)
            return
    raise AssertionError("the room kept changing")


async def crowd(rounds: int, servers: list[Any], seed: int) -> tuple[int, dict[str, list[str]]]:
    """Run the races; returns how many seat changes landed, and each player's order faults
    (judged before the room is let settle, so a connection left stuck still shows why, and
    again after)."""
    code = await new_room(servers[0], seats=SEATS)
    urls = [servers[i % len(servers)].url for i in range(PLAYERS)]
    clients = [await TableClient(url).connect() for url in urls]
    rng = random.Random(seed)
    moved = 0
    try:
        for i, c in enumerate(clients):
            await c.join(code, f"P{i}", seat=i)
        for _ in range(rounds):
            acts = []
            for i, c in enumerate(clients):
                roll = rng.random()
                hops = 2 if roll < 0.2 else 1 if roll < 0.85 else 0
                for _ in range(hops):  # two of the same player's seat changes race too
                    target = rng.choice([s for s in [None, *range(SEATS)] if s != c.seat])
                    acts.append(c.request("seat", {"seat": target}))
                if hops == 0:
                    acts.append(
                        reconnect(c, urls[i])
                        if roll < 0.93
                        else c.request("sync", {"since": c.version})
                    )
            results = await asyncio.gather(*acts, return_exceptions=True)
            unexpected = [
                r
                for r in results
                if isinstance(r, BaseException)
                and not (isinstance(r, OpFailed) and r.code in REFUSED)
            ]
            assert not unexpected, unexpected
            moved += sum(1 for r in results if isinstance(r, dict) and r.get("v") is not None)
        faults = {c.player or "": order_faults(c.received) for c in clients}
        if not any(faults.values()):
            await settle(servers[0], code, clients)
            faults = {c.player or "": order_faults(c.received) for c in clients}
        return moved, faults
    finally:
        for c in clients:
            await c.close()


async def judge(rounds: int, servers: list[Any], seed: int) -> None:
    moved, faults = await crowd(rounds, servers, seed)
    stale = sum(1 for f in faults.values() for x in f if x.startswith("stale"))
    assert not any(faults.values()), (
        f"{stale} stale snapshots, {sum(map(len, faults.values()))} faults: {faults}"
    )
    assert moved > rounds  # the races did change seats


async def test_many_seat_changes_at_once_on_one_process(server):
    await judge(60, [server], seed=3)


async def test_many_seat_changes_at_once_across_two_processes(redis_server):
    one = await start_server(make_config(redis_server.url))
    two = await start_server(make_config(redis_server.url))
    try:
        await judge(50, [one, two], seed=4)
    finally:
        await one.stop()
        await two.stop()
