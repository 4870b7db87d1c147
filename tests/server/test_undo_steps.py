"""Undo over real sockets goes back several steps, one of your own operations at a time; it is
refused once another player touched what it would put back, and it never shows any client a
face that client could not see (every message the other clients receive is recorded and judged
against the room as stored at that version)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable_client import OpFailed, TableClient
from server.table.objects import Table
from tests.conftest import new_room
from tests.server.helpers import oracle_faces, view_by_id
from tests.server.test_hand_privacy import Room, audit


def faces_never_hidden(c: TableClient, tables: dict[int, Table]) -> int:
    """Every face ``c`` received was one its seat could see at that version; how many faces."""
    n = 0
    for name, p in c.received:
        if name not in ("snapshot", "delta"):
            continue
        objs = p.get("objects", p.get("set", []))
        shown = {o["id"]: o["face"] for o in objs if o.get("face")}
        if not shown:
            continue
        allowed = oracle_faces(tables[p["v"]], c.seat)
        for cid, face in shown.items():
            assert allowed.get(cid) == face, f"seat {c.seat} got {cid}={face} at v{p['v']}"
            n += 1
    return n


async def _room(
    server: Any, make_client: Any
) -> tuple[Room, TableClient, TableClient, TableClient]:
    room = Room(server, await new_room(server, "standard", seats=2))
    ana, ben, eve = [await make_client() for _ in range(3)]
    await room.join(ana, "Ana")
    await room.join(ben, "Ben")
    await room.join(eve, "Eve", seat=None)
    return room, ana, ben, eve


async def _refused(c: TableClient, op: str, **fields: Any) -> str:
    with pytest.raises(OpFailed) as err:
        await c.op(op, **fields)
    return str(err.value.code)


async def test_three_undos_in_a_row_restore_three_steps(server, make_client):
    room, ana, ben, eve = await _room(server, make_client)
    start = await room.record()
    await room.op(ana, "move", id="deck", x=900, y=100)
    await room.op(ana, "take", id="deck", n=1)
    (drawn,) = ana.hand()
    await room.op(ana, "move", id=drawn, to="discard", up=True)  # everyone sees it now
    steps = [room.tables[v] for v in sorted(room.tables) if v >= start.version]
    for want in reversed(steps[:-1]):
        v = await room.op(ana, "undo")
        for c in (ana, ben, eve):
            await c.wait_version(v)
        for c in (ana, ben, eve):  # as it was, but for the versions stamped on objects
            assert {k: {**o, "v": 0} for k, o in c.objects.items()} == {
                k: {**o, "v": 0} for k, o in view_by_id(want, c.seat).items()
            }
    assert await _refused(ana, "undo") == "nothing_to_undo"
    assert ana.objects["deck"]["cards"][-1] == drawn and not ana.hand()
    for c in (ben, eve):
        assert faces_never_hidden(c, room.tables) > 0
        assert audit(c, room.tables) >= 6


async def test_another_players_move_in_between_refuses_the_undo_that_touches_it(
    server, make_client
):
    room, ana, ben, eve = await _room(server, make_client)
    top = ana.objects["deck"]["cards"][-1]
    await room.op(ana, "move", id=top, x=300, y=300)  # face down on the table
    await room.op(ana, "move", id="deck", x=900, y=100)
    v = await room.op(ben, "move", id=top, x=400, y=400)
    await ana.wait_version(v)
    v = await room.op(ana, "undo")  # the deck: nobody else touched it
    await ana.wait_version(v)
    assert (ana.objects["deck"]["x"], ana.objects[top]["x"]) != (900, 300)
    assert await _refused(ana, "undo") == "undo_refused"  # Ben moved the card since
    after = await room.record()
    assert after.version == v and after.objects[top].x == 400  # type: ignore[union-attr]


async def test_undo_never_shows_a_face_another_client_could_not_see(server, make_client):
    room, ana, ben, eve = await _room(server, make_client)
    # Ana plays the top card face up, then turns it face down and moves it.
    top = ana.objects["deck"]["cards"][-1]
    await room.op(ana, "move", id=top, x=300, y=300, up=True)
    await room.op(ana, "flip", id=top)
    await room.op(ana, "move", id=top, x=500, y=500)
    v = await room.op(ana, "undo")  # the last move: still face down
    await ana.wait_version(v)
    assert await _refused(ana, "undo") == "undo_refused"  # it would show the face again
    # Ana draws a card, moves the deck and plays the card face up: three undos put it back on
    # the deck, and nobody else sees its face but while it lies face up.
    await room.op(ana, "take", id="deck", n=1)
    (drawn,) = ana.hand()
    await room.op(ana, "move", id="deck", x=900, y=100)
    await room.op(ana, "move", id=drawn, x=700, y=300, up=True)
    await room.op(ana, "undo")
    await room.op(ana, "undo")
    v = await room.op(ana, "undo")
    for c in (ana, ben, eve):
        await c.wait_version(v)
    assert ana.objects["deck"]["cards"][-1] == drawn and not ana.hand()
    for c in (ben, eve):
        faces_never_hidden(c, room.tables)
        assert audit(c, room.tables) >= 7
