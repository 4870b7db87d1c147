"""A seat's view follows the seat, in version order, on one server process and across two.

A player hops between seats (and to spectating) while, at the same moment, another deals to
those seats, gives them cards, and a third takes cards into their own hand. Every message the
hopper receives is judged in order: a card face inside a hand may only arrive for the seat the
hopper holds at that message's version, and after each race the hopper's table equals the
server's view for its seat. Races are forced with ``asyncio.gather``; nothing sleeps.
"""

from __future__ import annotations

import random
from typing import Any

from cardtable_client import OpFailed, TableClient
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import server_table, view_by_id

HOP = [1, 2, None]


def foreign_faces(received: list[tuple[str, Any]], player: str) -> list[tuple[int, str, str]]:
    """(version, card id, hand) for every hand card face sent while ``player`` sat elsewhere."""
    seat: int | None = None
    bad = []
    for name, data in received:
        if name == "joined":
            seat = data["seat"]
            continue
        if name not in ("snapshot", "delta"):
            continue
        for p in data.get("players") or []:
            if p["id"] == player:
                seat = p["seat"]
        objs = data["objects"] if name == "snapshot" else data["set"]
        for o in objs:
            parent = o.get("parent") or ""
            if (
                o["t"] == "card"
                and "face" in o
                and parent.startswith("hand")
                and parent != f"hand{seat}"
            ):
                bad.append((data["v"], o["id"], parent))
    return bad


async def settled(srv: Any, code: str, client: TableClient) -> tuple[int, dict[str, Any]]:
    """The room's version once ``client`` holds it, and the server's view for its seat."""
    for _ in range(20):
        table = await server_table(srv, code)
        await client.wait_version(table.version)
        again = await server_table(srv, code)
        if again.version == table.version == client.version:
            me = table.players[client.player or ""]
            return table.version, view_by_id(table, me.seat)
    raise AssertionError("the room kept changing")


async def race(rounds: int, srv_a: Any, srv_b: Any, seed: int) -> None:
    code = await new_room(srv_a)
    dealer = await TableClient(srv_a.url).connect()
    hopper = await TableClient(srv_b.url).connect()
    taker = await TableClient(srv_a.url).connect()
    rng = random.Random(seed)
    try:
        await dealer.join(code, "Dealer", seat=0)
        await taker.join(code, "Taker", seat=3)
        await hopper.join(code, "Hopper", seat=1)
        stale = 0
        for _ in range(rounds):
            piles = [
                o for o in dealer.objects.values() if o["t"] == "stack" and len(o["cards"]) >= 2
            ]
            if not piles:
                await dealer.op("create", kind="deck", x=100.0, y=100.0)  # a fresh deck
                piles = [
                    o for o in dealer.objects.values() if o["t"] == "stack" and len(o["cards"]) >= 2
                ]
            deck = piles[0]
            target = rng.choice([s for s in HOP if s != hopper.seat])
            kind = rng.choice(["deal", "give", "take"])
            dest = rng.choice([1, 2])
            if kind == "deal":
                act = dealer.op("deal", id=deck["id"], n=1, seats=[1, 2])
            elif kind == "give":
                act = dealer.op("move", id=deck["cards"][-1], to=f"hand{dest}")
            else:
                act = taker.op("take", id=deck["id"], n=1)
            results = await _gather(hopper.request("seat", {"seat": target}), act)
            assert not [
                r
                for r in results
                if isinstance(r, Exception)
                and not (
                    isinstance(r, OpFailed)
                    and r.code in ("conflict", "invalid_move", "unknown_object")
                )
            ]
            version, truth = await settled(srv_a, code, hopper)
            if hopper.objects != truth:
                stale += 1
        assert stale == 0, f"{stale} of {rounds} races ended on a stale table"
        assert foreign_faces(hopper.received, hopper.player or "") == []
        # The hopper did see the cards of the hands it sat at (in deltas or, when its seat
        # change landed after the deal, in the snapshot that followed it).
        own = sum(
            1
            for name, d in hopper.received
            if name in ("delta", "snapshot")
            for o in (d["set"] if name == "delta" else d["objects"])
            if o["t"] == "card" and "face" in o and (o.get("parent") or "").startswith("hand")
        )
        assert own > rounds // 20
    finally:
        for c in (dealer, hopper, taker):
            await c.close()


async def _gather(*aws: Any) -> list[Any]:
    import asyncio

    return list(await asyncio.gather(*aws, return_exceptions=True))


async def test_seat_changes_race_deals_gifts_and_takes_on_one_process(server):
    await race(200, server, server, seed=1)


async def test_seat_changes_race_across_two_processes(redis_server):
    one = await start_server(make_config(redis_server.url))
    two = await start_server(make_config(redis_server.url))
    try:
        await race(150, one, two, seed=2)
    finally:
        await one.stop()
        await two.stop()
