"""Hands link nothing, over real sockets: record every message each client receives and prove
that other seats and spectators learn only how many cards a hand holds, and that a card leaving
a hand cannot be linked to anything seen before (free play and a Gin Rummy knock).

``audit`` is the referee shared with ``test_hidden_information.py``: it judges every snapshot
and delta a client received against the room as stored at that version.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from cardtable_client import OpFailed, TableClient
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from server.game.rules import start_with
from server.net.http import ROOMS_KEY
from server.room import codes
from server.table.apply import stamp
from server.table.objects import Card, Hand, Stack, Table, encode_table
from server.table.templates import new_table
from tests.conftest import new_room
from tests.server.helpers import server_table, view_by_id
from tests.table.helpers import hidden_from


def audit(c: TableClient, tables: dict[int, Table]) -> int:
    """Judge everything ``c`` received; return how many messages carried objects.

    (a) No snapshot or delta names, anywhere but in ``del``, a card that sits in another
    seat's hand at that version, and another seat's hand comes as its count only.
    (b) Replaying the messages in version order, ``del`` names only ids the client held, and an
    id that left the client's view never comes back (except by an undo, which puts back exactly
    what one operation changed while nobody touched it).
    """
    snaps = [p for name, p in c.received if name == "snapshot"]
    deltas = {p["v"]: p for name, p in c.received if name == "delta"}
    assert len(snaps) == 1, "these tests never change seats"
    checked = 0
    for p in [*snaps, *deltas.values()]:
        objs = p.get("objects", p.get("set", []))
        if not objs and not p.get("del"):
            continue
        checked += 1
        t = tables[p["v"]]  # every version that moved objects was recorded
        secret = hidden_from(t, c.seat)
        text = json.dumps({k: x for k, x in p.items() if k != "del"})
        leaked = [cid for cid in secret if cid in text]
        assert not leaked, f"seat {c.seat} got ids in another hand at v{p['v']}: {leaked}"
        for o in objs:
            if o["t"] == "hand":
                if o["seat"] != c.seat:
                    assert "cards" not in o, f"seat {c.seat} got hand{o['seat']}'s cards"
                hand = t.objects[o["id"]]
                assert isinstance(hand, Hand) and o.get("n") == len(hand.cards)
    held = {o["id"] for o in snaps[0]["objects"]}
    vanished: set[str] = set()
    v = snaps[0]["v"]
    while v + 1 in deltas:
        v += 1
        d = deltas[v]
        stray = set(d["del"]) - held
        assert not stray, f"seat {c.seat} told at v{v} to delete ids it never held: {stray}"
        held -= set(d["del"])
        vanished |= set(d["del"])
        shown = {o["id"] for o in d["set"]}
        back = shown & vanished
        assert not back or "undid" in d.get("log", ""), f"{back} came back at v{v}"
        vanished -= back
        held |= shown
    assert v == max(deltas, default=v), "a gap in the deltas"
    return checked


def ids_received(c: TableClient, before: int) -> set[str]:
    """Every id that reached ``c`` in a snapshot or delta of a version below ``before``."""
    out: set[str] = set()
    for name, p in c.received:
        if name in ("snapshot", "delta") and p["v"] < before:
            out.update(o["id"] for o in p.get("objects", p.get("set", [])))
            out.update(p.get("del", []))
            for o in p.get("objects", p.get("set", [])):
                out.update(o.get("cards", []))
    return out


class Room:
    """Clients in one room, and the stored table at every version they made."""

    def __init__(self, server: Any, code: str) -> None:
        self.server = server
        self.code = code
        self.tables: dict[int, Table] = {}

    async def record(self) -> Table:
        t = await server_table(self.server, self.code)
        self.tables[t.version] = t
        return t

    async def op(self, c: TableClient, op: str, **fields: Any) -> int:
        ack = await c.op(op, **fields)
        t = await self.record()
        assert t.version == ack["v"]
        return int(ack["v"])

    async def join(self, c: TableClient, name: str, **extra: Any) -> None:
        await c.join(self.code, name, **extra)
        await self.record()


# --- free play ---------------------------------------------------------------------------------


async def test_a_card_seen_face_up_then_played_from_a_hand_is_a_new_card(server, make_client):
    room = Room(server, await new_room(server, "standard", seats=3))
    ana, ben, cyd, eve = [await make_client() for _ in range(4)]
    for c, name in ((ana, "Ana"), (ben, "Ben"), (cyd, "Cyd")):
        await room.join(c, name)
    await room.join(eve, "Eve", seat=None)
    everyone = [ana, ben, cyd, eve]
    await room.op(ana, "deal", id="deck", n=3)

    # Ana turns the top card up on the table: everyone sees it, id and face.
    top = ana.objects["deck"]["cards"][-1]
    await room.op(ana, "move", id=top, x=500, y=400, up=True)
    for c in everyone:
        await c.wait_version(max(room.tables))
    face = ana.objects[top]["face"]
    assert all(c.objects[top]["face"] == face for c in everyone)

    # Ben takes it into his hand: everyone else loses the id and sees four cards.
    v = await room.op(ben, "move", id=top, to="hand1")
    for c in everyone:
        await c.wait_version(v)
    assert top in ben.hand()
    for c in (ana, cyd, eve):
        assert top not in c.objects and c.objects["hand1"]["n"] == 4
        assert "cards" not in c.objects["hand1"]

    # Anyone probing the old id gets exactly what a made-up id gets.
    for c in (ana, cyd):
        with pytest.raises(OpFailed) as probe:
            await c.op("flip", id=top)
        with pytest.raises(OpFailed) as made_up:
            await c.op("flip", id="c0123456789abcdef")
        assert probe.value.code == made_up.value.code == "unknown_object"
        assert probe.value.payload["message"] == made_up.value.payload["message"].replace(
            "c0123456789abcdef", top
        )

    # Ben plays a card face down: nobody can tell it is the one they saw.
    seen = set().union(*(ids_received(c, v + 1) for c in everyone))
    v = await room.op(ben, "move", id=top, x=700, y=400, up=False)
    for c in everyone:
        await c.wait_version(v)
    (played,) = [
        o
        for o in room.tables[v].objects.values()
        if isinstance(o, Card) and o.parent is None and not o.up
    ]
    assert played.face == face and played.id not in seen
    for c in (ana, cyd, eve):
        assert "face" not in c.objects[played.id] and top not in c.objects

    # Into a pile face down, and into another hand: new ids every time.
    nxt = ben.hand()[0]
    seen = set().union(*(ids_received(c, v + 1) for c in everyone)) | {nxt}
    v = await room.op(ben, "move", id=nxt, to="deck", index=10, up=False)
    gave = ben.hand()[0]
    v = await room.op(ben, "move", id=gave, to="hand2")
    for c in everyone:
        await c.wait_version(v)
    table, earlier = room.tables[v], room.tables[v - 1]
    deck, hand2, hand2_was = table.objects["deck"], table.objects["hand2"], earlier.objects["hand2"]
    assert isinstance(deck, Stack) and isinstance(hand2, Hand) and isinstance(hand2_was, Hand)
    assert deck.cards[10] not in seen and nxt not in table.objects
    (new_in_c,) = set(hand2.cards) - set(hand2_was.cards)
    assert new_in_c not in seen and gave not in table.objects
    assert new_in_c in cyd.hand() and all(new_in_c not in c.objects for c in (ana, ben, eve))

    # Undo across a new id: Ben plays face up, takes it back; only he sees the old id again.
    mine = ben.hand()[0]
    v = await room.op(ben, "move", id=mine, to="discard", up=True)
    v = await room.op(ben, "undo")
    for c in everyone:
        await c.wait_version(v)
    assert mine in ben.hand() and all(mine not in c.objects for c in (ana, cyd, eve))

    for c in everyone:
        assert c.objects == view_by_id(room.tables[v], c.seat)
        assert audit(c, room.tables) >= 8


# --- Gin Rummy ---------------------------------------------------------------------------------


def _actor(state: Any) -> int:
    if state.phase == "layoff":
        return 1 - int(state.knock.knocker)
    return int(state.turn) if state.turn is not None else 0


def _knock_script(table: Table, rng_seed: int) -> list[tuple[int, dict[str, Any]]] | None:
    """The bots' moves from this deal up to a knock that leaves the defender laying off (a
    face-down knock discard), where the knocker lays out a card everyone saw taken from the
    discard pile (so a reused id would link it); None if the first hand goes otherwise."""
    state = ENGINE.load(table.game.state)  # type: ignore[union-attr]
    rng = random.Random(rng_seed)
    script = []
    taken: list[set[str]] = [set(), set()]  # faces each seat took from the discard pile
    for _ in range(200):
        if state.phase in ("hand_over", "game_over"):
            return None
        actor = _actor(state)
        action = choose_action(ENGINE, state, actor, rng)
        assert action is not None
        if action["type"] == "take_upcard" or action.get("source") == "discard":
            taken[actor].add(state.discard[-1])
        held = set(state.hands[actor])
        script.append((actor, action))
        state = ENGINE.apply(state, actor, action)
        if state.phase == "layoff":
            return script if action["type"] == "knock" and taken[actor] & held else None
    return None


def _face_id(c: TableClient, face: str) -> str:
    return next(o["id"] for o in c.objects.values() if o["t"] == "card" and o.get("face") == face)


async def _play(room: Room, c: TableClient, action: dict[str, Any]) -> int:
    """An engine action the way a person makes it: by a drag when it is one."""
    kind, hand = action["type"], f"hand{c.seat}"
    if kind == "draw" and action["source"] == "stock":
        return await room.op(c, "take", id="stock")
    if kind == "take_upcard" or (kind == "draw" and action["source"] == "discard"):
        return await room.op(c, "move", id=c.objects["discard"]["cards"][-1], to=hand)
    if kind == "discard":
        return await room.op(c, "move", id=_face_id(c, action["card"]), to="discard", up=True)
    ack = await c.request("game", {"action": action})
    await room.record()
    return int(ack["v"])


async def test_gin_knock_discard_cannot_be_linked_to_the_hand(server, make_client):
    # A seeded deal that the bots play to a knock with lay-offs (found offline, in the engine).
    for seed in range(200):
        code = codes.new_code()
        table = new_table(code, "blank", 2, time.time())
        stamp(
            table,
            start_with(
                table, "gin_rummy", {"target": 100}, [0, 1], seed, random.Random(seed), time.time()
            ),
        )
        script = _knock_script(table, seed)
        if script is not None:
            break
    assert script is not None
    assert await server.app[ROOMS_KEY].store.create(code, encode_table(table))
    room = Room(server, code)
    a, b, spec = await make_client(), await make_client(), await make_client()
    room.tables[table.version] = table
    # The game started with nobody seated: its seats hold dealt hands, so a newcomer takes one
    # only by naming it (an automatic seat never hands anyone a game's cards).
    await room.join(a, "Ana", seat=0)
    await room.join(b, "Ben", seat=1)
    await room.join(spec, "Eve", seat=None)
    clients = {0: a, 1: b}
    v = max(room.tables)
    for actor, action in script:
        done = await _play(room, clients[actor], action)
        assert done == v + 1
        v = done
    for c in (a, b, spec):
        await c.wait_version(v)

    t = room.tables[v]
    state = ENGINE.load(t.game.state)  # type: ignore[union-attr]
    assert state.phase == "layoff" and state.knock.discard is not None
    knocker = clients[state.knock.knocker]
    defender = clients[1 - state.knock.knocker]
    assert script[-1][1]["type"] == "knock"  # the last move made version v
    # The face-down knock discard, and every card laid out from the knocker's hand, are new
    # cards: neither the defender nor the spectator (nor the knocker) received their ids before.
    zone_cards = [
        cid
        for zid in t.game.zones
        if zid not in ("stock", "discard")  # type: ignore[union-attr]
        for cid in t.objects[zid].cards
    ]  # type: ignore[union-attr]
    (kd,) = t.objects["knockdiscard"].cards  # type: ignore[union-attr]
    assert kd in zone_cards
    for c in (defender, spec, knocker):
        earlier = ids_received(c, v)
        assert not earlier & set(zone_cards), f"seat {c.seat} can link laid-out cards"
        assert kd in c.objects and "face" not in c.objects[kd]
    for c in (a, b, spec):
        assert audit(c, room.tables) >= len(script)
