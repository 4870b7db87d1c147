"""Gin Rummy rooms over real sockets: drags become engine actions, illegal ones are refused
with the rule in plain words, every seat gets only its own view, and whole hands play out."""

from __future__ import annotations

import random

import aiohttp
import pytest

from cardtable_client import OpFailed, TableClient
from plugins.cards import card_name
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from tests.server.helpers import (
    allowed_faces,
    check_table_invariants,
    game_after,
    server_table,
    view_by_id,
)


async def gin_room(server) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/api/rooms", json={"game": "gin_rummy", "options": {"target": 100}}
        ) as r,
    ):
        assert r.status == 201
        body = await r.json()
    assert body["game"] == "gin_rummy" and body["seats"] == 2
    return body["code"]


def game(c: TableClient, table=None) -> dict:
    return ENGINE.load(table.game.state) if table is not None else None


def card_id(c: TableClient, face: str) -> str:
    return next(o["id"] for o in c.objects.values() if o["t"] == "card" and o.get("face") == face)


async def play(c: TableClient, action: dict) -> dict:
    """Do an engine action the way a person would: by dragging when it is a drag."""
    kind = action["type"]
    hand = f"hand{c.seat}"
    if kind == "draw" and action["source"] == "stock":
        return await c.op("take", id="stock")
    if kind == "take_upcard" or (kind == "draw" and action["source"] == "discard"):
        return await c.op("move", id=c.objects["discard"]["cards"][-1], to=hand)
    if kind == "discard":
        return await c.op("move", id=card_id(c, action["card"]), to="discard", up=True)
    if kind == "lay_off":
        return await c.op("move", id=card_id(c, action["card"]), to=f"meld{action['meld']}")
    return await c.request("game", {"action": action})


async def test_illegal_drags_are_refused_with_the_rule(server, make_client):
    code = await gin_room(server)
    a, b = await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    table = await server_table(server, code)
    state = ENGINE.load(table.game.state)
    first = a if state.turn == 0 else b
    other = b if first is a else a
    with pytest.raises(OpFailed) as err:  # not your turn
        await other.op("take", id="stock")
    assert err.value.code == "rules" and "not your turn" in err.value.payload["message"]
    with pytest.raises(OpFailed) as err:  # first turn: the upcard offer, not the stock
        await first.op("take", id="stock")
    assert err.value.code == "rules"
    with pytest.raises(OpFailed) as err:  # free-play operations are off
        await first.op("shuffle", id="stock")
    assert err.value.code == "rules"
    await first.op("move", id=first.objects["discard"]["cards"][-1], to=f"hand{first.seat}")
    taken = state.discard[-1]
    with pytest.raises(OpFailed) as err:
        await first.op("move", id=card_id(first, taken), to="discard", up=True)
    assert err.value.payload["message"] == (
        f"You can't discard the {card_name(taken)}: you just took it from the discard pile."
    )
    assert err.value.payload["rule"] == "discard_taken_card"
    with pytest.raises(OpFailed) as err:
        await first.request(
            "game", {"action": {"type": "knock", "card": first.faces_seen()[first.hand()[0]]}}
        )
    assert err.value.payload["rule"] in ("deadwood_too_high", "discard_taken_card")
    # Reordering your own hand stays allowed (cosmetic) and tells nobody anything.
    mine = first.hand()
    await first.op("move", id=mine[0], to=f"hand{first.seat}", index=len(mine))
    # A legal discard is applied for everyone: the discard pile's top shows to both.
    face = next(f for cid, f in first.faces_seen().items() if cid in first.hand() and f != taken)
    ack = await first.op("move", id=card_id(first, face), to="discard", up=True)
    await other.wait_version(ack["v"])
    for c in (first, other):
        top = c.objects["discard"]["cards"][-1]
        assert c.objects[top]["face"] == face
    assert other.log[-1] == f"{'Ana' if first is a else 'Ben'} discarded the {card_name(face)}"


async def test_bot_vs_bot_hands_over_sockets_only_own_view(server, make_client):
    rng = random.Random(7)
    code = await gin_room(server)
    a, b, spec = await make_client(), await make_client(), await make_client()
    truth = {}
    for c, name, seat in ((a, "Ana", "auto"), (b, "Ben", "auto"), (spec, "Spec", None)):
        await c.join(code, name, seat=seat)
        table = await server_table(server, code)
        waiting = table.game.state is None  # the deal comes once both seats are taken
        truth[table.version] = (
            allowed_faces(table),
            None if waiting else ENGINE.load(table.game.state),
        )
    seats = {0: a, 1: b}
    hands_done = 0
    for _ in range(600):
        table = await server_table(server, code)
        state = ENGINE.load(table.game.state)
        truth[table.version] = (allowed_faces(table), state)
        check_table_invariants(table)
        if state.phase == "game_over" or hands_done >= 3:
            break
        if state.phase == "hand_over":
            hands_done += 1
            if hands_done >= 3:
                break
        actor = state.turn if state.turn is not None else 0
        if state.phase == "layoff":
            actor = 1 - state.knock.knocker
        action = choose_action(ENGINE, state, actor, rng)
        assert action is not None
        await play(seats[actor], action)
    assert hands_done >= 1
    table = await server_table(server, code)
    truth[table.version] = (allowed_faces(table), ENGINE.load(table.game.state))
    for c in (a, b, spec):
        await c.wait_version(table.version)
        game: dict | None = None
        for name, payload in c.received:
            if name not in ("snapshot", "delta"):
                continue
            game = game_after(game, payload)  # (a patch of the view this seat held)
            faces, state = truth[payload["v"]]
            for obj in payload.get("objects", payload.get("set", [])):
                if obj["t"] == "card" and "face" in obj:
                    assert faces[c.seat].get(obj["id"]) == obj["face"]
            changed = "game" in payload or "game_patch" in payload
            if changed and game is not None and state is not None:
                # Each seat gets exactly the engine's view for that seat, nobody else's.
                assert game["view"] == _plain(ENGINE.view(state, c.seat))
        assert c.objects == view_by_id(table, c.seat)


def _plain(obj):
    import json

    return json.loads(json.dumps(obj))


async def test_host_switches_room_to_gin_and_back(server, make_client):
    from tests.conftest import new_room

    code = await new_room(server, "standard", seats=2)
    host, guest = await make_client(), await make_client()
    await host.join(code, "Host")
    await guest.join(code, "Guest")
    with pytest.raises(OpFailed) as err:
        await guest.request("host", {"action": "game", "game": "gin_rummy"})
    assert err.value.code == "forbidden"
    with pytest.raises(OpFailed) as err:
        await host.request(
            "host", {"action": "game", "game": "gin_rummy", "options": {"target": 42}}
        )
    assert err.value.code == "bad_request"
    await host.request("host", {"action": "game", "game": "gin_rummy"})
    await guest.wait_for(lambda: "stock" in guest.objects)
    assert len(host.hand()) in (10, 11) and len(guest.hand(1)) in (10, 11)
    assert "deck" not in guest.objects
    await host.request("host", {"action": "game", "game": None})
    ack = await host.op("shuffle", id="stock")  # free play again
    await guest.wait_version(ack["v"])
    assert guest.log[-2].endswith("free play")


async def test_computer_opponent_plays_its_turns(redis_server):
    from tests.conftest import make_config, start_server

    srv = await start_server(make_config(redis_server.url, bot_delay_seconds=0.0))
    try:
        code = await gin_room(srv)
        me = await srv.client()
        await me.join(code, "Ana")
        with pytest.raises(OpFailed):
            await me.request("host", {"action": "bot", "seat": 0})  # taken by Ana
        await me.request("host", {"action": "bot", "seat": 1})
        assert any(p["bot"] and p["seat"] == 1 for p in me.players)
        rng = random.Random(3)
        for _ in range(300):
            table = await server_table(srv, code)
            # Act on what the page shows: the state we read, once our view has caught up to it
            # (the computer may have moved since our last acknowledgement).
            await me.wait_version(table.version)
            state = ENGINE.load(table.game.state)
            if state.phase in ("hand_over", "game_over"):
                break
            legal = ENGINE.legal_actions(state, 0)
            if not legal:  # the computer's turn: it moves by itself
                await me.wait_version(table.version + 1, timeout=5)
                continue
            await play(me, choose_action(ENGINE, state, 0, rng))
            await me.wait_version(table.version + 1)
        assert state.phase in ("hand_over", "game_over")
        assert any(line.startswith("Computer 2 ") for line in me.log)
        await me.close()
    finally:
        await srv.stop()
