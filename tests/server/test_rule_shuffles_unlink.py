"""Rule games over real sockets: a card seen face up never turns up face down in a pile under
the id it was seen with, and a new deal links nothing ("Hidden information" in
docs/architecture.md).

Every path of that kind in the four games is played here by people in every seat and a
spectator, and every message each of them received is searched for the ids they saw: Rummy's
stock rebuilt from the discard pile, and the end of a hand and the next deal of Gin Rummy,
Rummy, Spades (tricks gathered face down) and Pennies (a new round). Pennies' rebuilt stock is
in ``test_rummy_pennies_rooms.py``; free play's shuffle in ``test_hidden_information.py`` and
``tests/table/test_shuffle.py``.
"""

from __future__ import annotations

import random
from typing import Any

import aiohttp
import pytest

from cardtable_client import TableClient
from server.net.http import ROOMS_KEY
from server.table.objects import Card, Stack, Table
from tests.server.helpers import game_after, server_table


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
    return {
        o["id"]
        for name, payload in c.received
        if name in ("snapshot", "delta")
        for o in payload.get("objects", payload.get("set", []))
        if o["t"] == "card"
    }


def face_down_in_zones(table: Table) -> dict[str, list[str]]:
    """Each pile's face-down cards (bottom first), as the server stores them."""
    out: dict[str, list[str]] = {}
    for obj in table.objects.values():
        if isinstance(obj, Stack):
            down = [
                cid for cid in obj.cards if isinstance(c := table.objects[cid], Card) and not c.up
            ]
            if down:
                out[obj.id] = down
    return out


def all_cards(table: Table) -> set[str]:
    return {o.id for o in table.objects.values() if isinstance(o, Card)}


async def people_and_a_spectator(
    server: Any, game: str, n: int = 2
) -> tuple[str, list[TableClient], TableClient]:
    """A room of ``game`` with ``n`` people in seats 0 to n-1 (Ana, Ben, ...) and Eve
    watching; the game started with those seats."""
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": game}) as r,
    ):
        assert r.status == 201, await r.text()
        code = str((await r.json())["code"])
    people = [await server.client() for _ in range(n)]
    for seat, c in enumerate(people):
        await c.join(code, ("Ana", "Ben", "Cy", "Dee")[seat], seat=seat)
    ana = people[0]
    if ana.game is not None and ana.game["waiting"]:
        await ana.request("host", {"action": "start"})
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    eve = await server.client()
    await eve.join(code, "Eve", seat=None)
    return code, people, eve


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

    code, (ana, ben), eve = await people_and_a_spectator(server, "rummy")
    everyone = [ana, ben, eve]
    try:
        hands = [
            ["C1", "C3", "C5", "C7", "C9", "C11", "C13", "D2", "D4", "D6"],
            ["D8", "D10", "D12", "H1", "H3", "H5", "H7", "H9", "H11", "H13"],
        ]
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


# --- every game: the end of a hand and the next deal, every message judged -------------------


DEAL_NO = {"gin_rummy": "hand_no", "rummy": "hand_no", "pennies": "round_no", "spades": "deal_no"}
PLAYERS = {"gin_rummy": 2, "rummy": 2, "pennies": 2, "spades": 4}


def judge(c: TableClient, deal_no: str) -> tuple[int, int]:
    """Replay what ``c`` received, in version order, and hold it to "Hidden information":
    (a) no card lies face down in a pile under an id ``c`` saw face up (or with its face) in
    any earlier message; (b) when a new deal begins, every card ``c`` holds is one it never
    saw before. Returns how many face-down pile cards were judged and how many new deals."""
    snap = next(p for name, p in c.received if name == "snapshot")
    deltas = {p["v"]: p for name, p in c.received if name == "delta" and p["v"] > snap["v"]}
    objs: dict[str, dict[str, Any]] = {}
    seen_up: set[str] = set()
    seen: set[str] = set()
    deal = None
    judged = deals = 0
    game: dict[str, Any] | None = None
    for p in [snap, *(deltas[v] for v in sorted(deltas))]:
        came = p.get("objects", p.get("set", []))
        for oid in p.get("del", []):
            objs.pop(oid, None)
        objs.update({o["id"]: o for o in came})
        for o in came:
            parent = objs.get(o.get("parent") or "")
            if o["t"] == "card" and not o["up"] and parent is not None and parent["t"] == "stack":
                judged += 1
                assert o["id"] not in seen_up, (
                    f"seat {c.seat} at v{p['v']}: {o['id']} lies face down in {parent['id']}, "
                    "seen face up before"
                )
        changed = "game" in p or "game_patch" in p
        game = game_after(game, p)
        view = (game or {}).get("view") if changed else None
        now = view[deal_no] if view else deal
        if deal is not None and now != deal:
            deals += 1
            cards = {oid for oid, o in objs.items() if o["t"] == "card"}
            assert not cards & seen, f"seat {c.seat}: an old id in deal {now}"
        deal = now
        seen |= {o["id"] for o in came if o["t"] == "card"}
        seen_up |= {o["id"] for o in came if o["t"] == "card" and (o["up"] or "face" in o)}
    return judged, deals


def hand_end(name: str, seed: int, before: int, after: int) -> tuple[Any, list[Any]]:
    """In-process, the registered bots play game ``name`` from ``seed``: the state ``before``
    actions ahead of the first new deal, and the actions from there to ``after`` actions into
    the new deal, each as (player, action, state after)."""
    from plugins.registry import get
    from plugins.simulate import drive

    game = get(name)
    engine = game.engine
    start = engine.new_game(PLAYERS[name], {}, seed)
    first = game.binding.project(start).deal
    steps: list[tuple[Any, Any, Any, Any]] = []
    into = [0]

    def observe(before_state: Any, player: Any, action: Any, state: Any) -> None:
        steps.append((before_state, player, action, state))
        if game.binding.project(state).deal != first:
            into[0] += 1

    rng = random.Random(seed)
    played = drive(
        engine,
        start,
        [game.bot] * PLAYERS[name],
        [rng] * PLAYERS[name],
        observe=observe,
        stop=lambda s: into[0] > after,
    )
    assert played.ok, played.failure
    new_deal = next(i for i, s in enumerate(steps) if game.binding.project(s[3]).deal != first)
    tail = steps[new_deal - before :]
    return tail[0][0], [(p, a, s) for _, p, a, s in tail]


@pytest.mark.parametrize("name", sorted(DEAL_NO))
async def test_the_end_of_a_hand_and_the_next_deal_link_nothing(server, name):
    """The last actions of a hand (tricks gathered face down, a knock, going out, melds laid)
    and the next deal, played over real sockets by people in every seat and watched by a
    spectator: every message each of them received is judged (see :func:`judge`)."""
    from plugins.registry import get

    engine = get(name).engine
    start, script = hand_end(name, seed=11, before=14, after=6)
    code, people, eve = await people_and_a_spectator(server, name, PLAYERS[name])
    everyone = [*people, eve]
    try:
        await server.app[ROOMS_KEY].set_game_state(code, engine.dump(start))
        table = await settle(server, code, everyone)
        for player, action, after in script:
            assert table.game is not None
            if engine.to_act(engine.load(table.game.state)):
                await people[player].request("game", {"action": action})
            else:  # the server's own timed move (Spades gathers the trick)
                await eve.wait_for(lambda v=table.version: eve.version > v)
            table = await settle(server, code, everyone)
            assert table.game is not None
            assert engine.dump(engine.load(table.game.state)) == engine.dump(after)
        for c in everyone:
            judged, deals = judge(c, DEAL_NO[name])
            assert deals == 1 and judged > 0, (c.seat, judged, deals)
    finally:
        await close(*everyone)
