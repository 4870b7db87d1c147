"""Deal 1 of a one-click game against computers is fair too (docs/fairness.md, "Your page's
value"): the person's join fills the room, but the game waits for their page's value for deal 1
(the ``fair`` event), or ``VALUE_WAIT`` seconds, before it deals. Over sockets: the value sent
goes into deal 1 (the deal verifies with it); a silent page's seat is null once the deadline
has passed. Through the reducer with the injected clock: no start a moment before the deadline,
the start at it."""

from __future__ import annotations

import random
from typing import Any

import aiohttp

from cardtable_client import TableClient
from plugins import fair
from plugins.gin_rummy.rules import ENGINE as GIN
from server.game import fairness
from server.game import rules as games
from server.room.players import hash_token
from server.room.reducer import Auto, Env, Join, SetUpGame, reduce
from server.table.objects import Table
from server.table.templates import new_table
from tests.server.helpers import server_table

VALUE = "5a" * 16


async def _quick_room(url: str) -> str:
    body = {"game": "gin_rummy", "computers": "normal"}
    async with aiohttp.ClientSession() as http, http.post(f"{url}/api/rooms", json=body) as r:
        assert r.status == 201
        return str((await r.json())["code"])


def _deal_1(table: Table, values: list[str | None]) -> dict[str, Any]:
    """Deal 1 as dealt, as a record with its seed (read from the store, as a test may)."""
    slot = table.game
    assert slot is not None and slot.fair_now is not None and slot.state is not None
    assert slot.fair_now.deal == 1
    assert fairness.values(slot, slot.fair_now) == values
    made = GIN.deal_record(GIN.load(slot.state))
    assert made is not None
    return {
        "version": 1,
        "room": table.code,
        "game": "gin_rummy",
        "deal": 1,
        "players": [{"seat": s, "name": "", "computer": s != 0} for s in slot.seats],
        "commitment": slot.fair_now.commitment,
        "seed": slot.fair_now.seed,
        "values": values,
        "deck": made["deck"],
        "order": made["order"],
        "dealt": made["dealt"],
    }


async def test_the_persons_value_goes_into_deal_1(server, make_client):
    code = await _quick_room(server.url)
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    assert ana.seat == 0
    # The room is full, but deal 1 waits for Ana's page: its commitment is in her view.
    assert ana.game is not None and ana.game["waiting"] and ana.game["fair"]["deal"] == 1
    assert not games.started(await server_table(server, code))
    await ana.request("fair", {"deal": 1, "value": VALUE})
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    record = _deal_1(await server_table(server, code), [VALUE, None])
    verdict = fair.verify(record)
    assert verdict.ok, verdict.problems
    assert not fair.verify(dict(record, values=[None, None])).ok  # her value made this deal


async def test_a_silent_page_counts_as_null_after_the_deadline(server, make_client):
    code = await _quick_room(server.url)
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")  # a client that never sends a value
    assert ana.game is not None and ana.game["waiting"]
    table = await server_table(server, code)
    assert table.game is not None and table.game.start_due is not None
    # The scheduler wakes the room when the wait is over, and the game deals without her value.
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    record = _deal_1(await server_table(server, code), [None, None])
    assert fair.verify(record).ok


def test_the_wait_ends_at_its_deadline_on_the_injected_clock() -> None:
    rng = random.Random(3)
    table = new_table("QUICK123", "blank", 2, 0.0, rng)
    reduce(table, SetUpGame("gin_rummy", None, "easy"), Env(now=100.0, rng=rng))
    reduce(table, Join("ana", "Ana", hash_token("a")), Env(now=100.0, rng=rng))
    assert table.game is not None and not games.started(table)
    due = 100.0 + fairness.VALUE_WAIT
    assert games.next_wake(table) == due  # the scheduler looks again then
    assert reduce(table, Auto(), Env(now=due - 0.01, rng=rng)) is None
    assert not games.started(table)
    change = reduce(table, Auto(), Env(now=due, rng=rng))
    assert change is not None and games.started(table)
    assert table.game.fair_now is not None and table.game.fair_now.values == {}
    assert table.game.start_due is None and games.next_wake(table) != due
