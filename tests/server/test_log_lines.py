"""Log lines over real sockets: a card is named only while its face is public (every message the
other clients receive is recorded and judged), and a burst of counter clicks is one line (the
room service's clock is a stepped one the test moves)."""

from __future__ import annotations

import re
from typing import Any

from cardtable_client import TableClient
from plugins.cards import STANDARD
from server.net.http import ROOMS_KEY
from server.table.wording import face_words
from tests.conftest import new_room
from tests.server.helpers import oracle_faces
from tests.server.test_hand_privacy import Room


class SteppedClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def names_only_public_cards(c: TableClient, room: Room) -> list[str]:
    """Every log line ``c`` received; each names no card whose face was hidden at that version."""
    lines = []
    for name, p in c.received:
        if name != "delta" or not p.get("log"):
            continue
        public = {face_words(f) for f in oracle_faces(room.tables[p["v"]], None).values()}
        for face in STANDARD:
            words = face_words(face)
            if words not in public:
                assert not re.search(rf"\b{re.escape(str(words))}\b", p["log"]), p["log"]
        lines.append(p["log"])
    return lines


async def test_a_card_is_named_only_while_its_face_is_public(server: Any, make_client: Any):
    room = Room(server, await new_room(server, "standard", seats=2))
    ana, ben, eve = [await make_client() for _ in range(3)]
    await room.join(ana, "Ana")
    await room.join(ben, "Ben")
    await room.join(eve, "Eve", seat=None)
    await room.op(ana, "deal", id="deck", n=3)
    first, second, third = ana.hand()
    faces = {cid: ana.objects[cid]["face"] for cid in (first, second, third)}
    await room.op(ana, "move", id=first, x=300, y=300, up=False)  # face down
    await room.op(ana, "move", id=second, to="deck", index=10, up=True)  # inside the deck
    v = await room.op(ana, "move", id=third, to="discard", up=True)  # face up on Discard
    for c in (ana, ben, eve):
        await c.wait_version(v)
    for c in (ben, eve):
        lines = names_only_public_cards(c, room)
        assert lines[-3:] == [
            "Ana played a card from their hand",
            "Ana put a card on Deck",
            f"Ana played {face_words(faces[third])} on Discard",
        ]


async def test_a_burst_of_counter_clicks_is_one_line(server: Any, make_client: Any):
    clock = SteppedClock()
    server.app[ROOMS_KEY].clock = clock  # the room service's injected clock
    room = Room(server, await new_room(server, "standard", seats=2))
    ana, ben = [await make_client() for _ in range(2)]
    await room.join(ana, "Ana")
    await room.join(ben, "Ben")
    ack = await ana.op("create", kind="counter", x=100, y=100)
    await ben.wait_version(ack["v"])
    (counter,) = [o["id"] for o in ana.objects.values() if o["t"] == "counter"]
    for _ in range(4):
        clock.now += 1.5
        ack = await ana.op("counter", id=counter, delta=1)
    clock.now += 60
    ack = await ana.op("counter", id=counter, delta=1)
    await ben.wait_version(ack["v"])
    lines = [
        (p["log"], p.get("log_replaces", False))
        for n, p in ben.received
        if n == "delta" and p.get("log")
    ]
    assert lines[-5:] == [
        ("Ana set a counter to 1", False),
        ("Ana set a counter to 2", True),
        ("Ana set a counter to 3", True),
        ("Ana set a counter to 4", True),
        ("Ana set a counter to 5", False),
    ]
    table = await room.record()
    assert table.log[-2:] == ["Ana set a counter to 4", "Ana set a counter to 5"]
