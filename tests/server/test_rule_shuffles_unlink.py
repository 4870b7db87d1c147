"""Rule games over real sockets: a card seen face up never turns up face down in a shuffled
place under the id it was seen with ("Hidden information" in docs/architecture.md).

Every path of that kind in the four games is played here with two people and a spectator, and
every message each of them received is searched for the ids they saw: Rummy's stock rebuilt
from the discard pile, a new hand of Rummy, Gin Rummy and Spades, and a new round of Pennies
(Pennies' rebuilt stock is in ``test_rummy_pennies_rooms.py``, free play's shuffle in
``test_hidden_information.py`` and ``tests/table/test_shuffle.py``).
"""

from __future__ import annotations

from typing import Any

import aiohttp

from server.client import TableClient
from server.http import ROOMS_KEY
from server.table.objects import Card, Stack, Table
from tests.server.helpers import server_table


def seen_up(c: TableClient) -> set[str]:
    """Every card id ``c`` received lying face up or with its face (its own hand's cards too)."""
    out: set[str] = set()
    for name, payload in c.received:
        if name in ("snapshot", "delta"):
            for o in payload.get("objects", payload.get("set", [])):
                if o["t"] == "card" and (o.get("up") or "face" in o):
                    out.add(o["id"])
    return out


def seen_at_all(c: TableClient) -> set[str]:
    """Every card id ``c`` ever received."""
    return {o["id"] for name, payload in c.received if name in ("snapshot", "delta")
            for o in payload.get("objects", payload.get("set", [])) if o["t"] == "card"}


def face_down_in_zones(table: Table) -> dict[str, list[str]]:
    """Each pile's face-down cards (bottom first), as the server stores them."""
    out: dict[str, list[str]] = {}
    for obj in table.objects.values():
        if isinstance(obj, Stack):
            down = [cid for cid in obj.cards
                    if isinstance(c := table.objects[cid], Card) and not c.up]
            if down:
                out[obj.id] = down
    return out


def all_cards(table: Table) -> set[str]:
    return {o.id for o in table.objects.values() if isinstance(o, Card)}


async def two_people_and_a_spectator(server: Any, game: str, **options: Any
                                     ) -> tuple[str, TableClient, TableClient, TableClient]:
    """A room of ``game`` with Ana in seat 0, Ben in seat 1 and Eve watching; started."""
    async with aiohttp.ClientSession() as http, http.post(
        f"{server.url}/api/rooms", json={"game": game, "options": options}
    ) as r:
        assert r.status == 201, await r.text()
        code = str((await r.json())["code"])
    ana, ben, eve = [await server.client() for _ in range(3)]
    await ana.join(code, "Ana", seat=0)
    await ben.join(code, "Ben", seat=1)
    if ana.game is not None and ana.game["waiting"]:
        await ana.request("host", {"action": "start"})
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    await eve.join(code, "Eve", seat=None)
    return code, ana, ben, eve


async def settle(server: Any, code: str, clients: list[TableClient]) -> Table:
    table = await server_table(server, code)
    for c in clients:
        await c.wait_version(table.version)
    return table


async def close(*clients: TableClient) -> None:
    for c in clients:
        await c.close()


# --- Rummy: the stock rebuilt from the discard pile --------------------------------------------


async def test_rummy_a_rebuilt_stock_holds_no_id_seen_face_up(server):
    """Rule 7: the stock runs out, and every discard but the top one is shuffled into a new
    stock. Nobody (the two players, the spectator) finds an id they saw face up on the discard
    pile, or anywhere else, on a face-down card of the new stock."""
    from plugins.rummy.rules import ENGINE
    from tests.plugins.test_rummy_rules import make

    code, ana, ben, eve = await two_people_and_a_spectator(server, "rummy")
    everyone = [ana, ben, eve]
    try:
        hands = [["C1", "C3", "C5", "C7", "C9", "C11", "C13", "D2", "D4", "D6"],
                 ["D8", "D10", "D12", "H1", "H3", "H5", "H7", "H9", "H11", "H13"]]
        # Ana is to draw the last card of the stock; the discard pile holds the other 31.
        state = make(hands, turn=0, pile=("S13",), stock_size=1)
        assert len(state.discard) == 31
        await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(state))
        await eve.wait_for(lambda: eve.game["view"]["stock_count"] == 1)
        pile = list(eve.objects["discard"]["cards"])
        assert len(pile) == 31 and all(eve.objects[cid]["up"] for cid in pile)

        (last,) = ana.objects["stock"]["cards"]
        await ana.op("move", id=last, to="hand0")
        drawn = ana.objects[last]["face"]
        await ana.op("move", id=ana.hand_faces()[drawn], to="discard", up=True)
        await eve.wait_for(lambda: eve.game["view"]["reshuffles"] == 1)
        table = await settle(server, code, everyone)

        stock = table.objects["stock"]
        assert isinstance(stock, Stack) and len(stock.cards) == 31
        assert face_down_in_zones(table) == {"stock": stock.cards}
        for c in everyone:
            assert c.objects["stock"]["cards"] == stock.cards
            linked = set(stock.cards) & seen_up(c)
            assert not linked, f"seat {c.seat} saw {len(linked)} stock cards face up before"
    finally:
        await close(*everyone)
