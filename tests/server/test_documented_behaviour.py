"""What docs/protocol.md promises about the less obvious answers, checked over real sockets:
gifts to another seat, undo after a deal, 1-based seats in log lines, what spectators and
free-play rooms get for game commands, rule errors that always name their rule, acks with a
version for game and host commands, and what turning the rules off leaves behind."""

from __future__ import annotations

import aiohttp
import pytest

from cardtable_client import OpFailed, TableClient
from tests.conftest import new_room
from tests.server.helpers import server_table


async def _gin_room(server) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "gin_rummy"}) as r,
    ):
        assert r.status == 201
        return str((await r.json())["code"])


async def _refused(coro) -> dict:
    with pytest.raises(OpFailed) as err:
        await coro
    return err.value.payload


async def test_a_card_given_to_another_seat_is_theirs_and_leaves_your_view(server, make_client):
    code = await new_room(server)
    ana: TableClient = await make_client()
    ben: TableClient = await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    ack = await ana.op("take", id="deck", n=1)
    await ben.wait_version(ack["v"])
    card = ana.hand()[0]
    face = ana.objects[card]["face"]
    ack = await ana.op("move", id=card, to="hand1")
    await ben.wait_version(ack["v"])
    assert card not in ana.objects  # gone from the giver's view
    assert face in [ben.objects[c]["face"] for c in ben.hand()]
    table = await server_table(server, code)
    assert len(table.objects["hand1"].cards) == 1 and not table.objects["hand0"].cards
    assert "Ana joined seat 1" in table.log[0] and "Ben joined seat 2" in table.log[1]


async def test_undo_after_a_deal_or_shuffle_has_nothing_to_undo(server, make_client):
    code = await new_room(server)
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    await ana.op("flip", id="deck")
    await ana.op("deal", id="deck", n=2)
    assert (await _refused(ana.op("undo")))["code"] == "nothing_to_undo"
    await ana.op("flip", id="deck")
    await ana.op("shuffle", id="deck")
    assert (await _refused(ana.op("undo")))["code"] == "nothing_to_undo"


async def test_free_play_rooms_answer_game_commands_with_bad_request(server, make_client):
    code = await new_room(server)
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    err = await _refused(ana.request("game", {"action": {"type": "draw"}}))
    assert err["code"] == "bad_request" and "No game" in err["message"]
    err = await _refused(ana.request("host", {"action": "bot", "seat": 1}))
    assert err["code"] == "bad_request" and "game" in err["message"]


async def test_game_rooms_answer_spectators_rules_and_acks_as_documented(server, make_client):
    code = await _gin_room(server)
    ana: TableClient = await make_client()
    ben: TableClient = await make_client()
    eve: TableClient = await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await eve.join(code, "Eve", seat=None)
    assert (await _refused(eve.request("game", {"action": {"type": "pass"}})))[
        "code"
    ] == "forbidden"
    assert (await _refused(eve.op("take", id="stock")))["code"] == "not_seated"
    for op in (
        {"op": "rotate", "id": "stock", "rot": 90},
        {"op": "shuffle", "id": "stock"},
        {"op": "move", "id": "stock", "x": 10.0, "y": 10.0},
    ):
        err = await _refused(ana.request("op", op))
        assert err["code"] == "rules" and err.get("rule"), err
    table = await server_table(server, code)
    state = table.game.state
    mover = ana if state["turn"] == ana.seat else ben
    waiter = ben if mover is ana else ana
    err = await _refused(waiter.request("game", {"action": {"type": "pass"}}))
    assert err["code"] == "rules" and err["rule"] == "not_your_turn"
    ack = await mover.request("game", {"action": {"type": "pass"}})
    assert isinstance(ack["v"], int) and ack["v"] == (await server_table(server, code)).version
    ack = await ana.request("host", {"action": "lock"})
    assert ack["v"] == (await server_table(server, code)).version


async def test_rules_off_unlocks_the_zones_and_sends_them(server, make_client):
    code = await _gin_room(server)
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    await ana.request("host", {"action": "bot", "seat": 1})  # both seats taken: dealt
    assert ana.objects["stock"]["locked"] and ana.objects["discard"]["locked"]
    before = len(ana.received)
    ack = await ana.request("host", {"action": "game", "game": None})
    delta = next(d for name, d in ana.received[before:] if name == "delta" and d["v"] == ack["v"])
    sent = {o["id"]: o for o in delta["set"]}
    assert {"stock", "discard"} <= set(sent)
    assert not sent["stock"]["locked"] and not sent["discard"]["locked"]
    assert delta["game"] is None
    ack = await ana.op("move", id="stock", x=50.0, y=60.0)  # moves freely again
    assert ana.objects["stock"]["x"] == 50.0
