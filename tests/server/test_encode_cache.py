"""The room service's encoded pieces (server.table.encoding) on a real Redis, with two services
as two server processes: what a lost race or a refusal leaves behind is never spliced into a
later commit, and every blob written is the whole encoding of the room it stores."""

from __future__ import annotations

import pytest

from server.errors import CardtableError
from server.room.service import RoomService
from server.store.redis_store import RedisStore
from server.table.objects import Card, Table, decode_table, encode_table
from server.table.ops import parse_op


async def _stored(store: RedisStore, code: str) -> Table:
    got = await store.load(code)
    assert got is not None
    blob = got[1]
    table = decode_table(blob)
    assert encode_table(table) == blob  # the blob is the whole encoding of what it holds
    return table


async def _room(rooms: RoomService) -> tuple[str, str, list[str]]:
    """A room with one seated player and two loose cards."""
    code = (await rooms.create_room("standard", seats=4)).code
    pid = (await rooms.join(code, "Ana")).player.id
    for x in (100, 300):
        op = {"op": "create", "kind": "card", "faces": ["AS"], "up": True, "x": x, "y": 10}
        await rooms.apply(code, pid, parse_op(op))
    table = await rooms.load_table(code)
    cards = [o.id for o in table.objects.values() if isinstance(o, Card) and o.parent is None]
    return code, pid, cards


async def test_an_attempt_that_lost_the_race_and_was_refused_leaves_no_pieces(redis_server):
    s1, s2 = RedisStore(redis_server.url), RedisStore(redis_server.url)
    here, there = RoomService(s1), RoomService(s2)
    code, pid, (x, y) = await _room(here)
    await here.apply(code, pid, parse_op({"op": "move", "id": x, "x": 1, "y": 1}))
    ov = (await here.known_table(code)).objects[x].v
    # Another process moves the card: its commit takes the next version, and the card has it.
    await there.apply(code, pid, parse_op({"op": "move", "id": x, "x": 99, "y": 99}))
    # This process's move of it, made on the state it has, loses the race (its attempt gave the
    # card that same version with other content), and is refused on the new state.
    move = parse_op({"op": "move", "id": x, "x": 5, "y": 5, "ov": ov})
    with pytest.raises(CardtableError) as err:
        await here.apply(code, pid, move)
    assert err.value.code == "conflict"
    await here.apply(code, pid, parse_op({"op": "move", "id": y, "x": 7, "y": 7}))
    await here.apply(code, pid, parse_op({"op": "move", "id": y, "x": 8, "y": 8}))
    table = await _stored(s1, code)
    assert (table.objects[x].x, table.objects[y].x) == (99.0, 8.0)
    await s1.close()
    await s2.close()


async def test_pieces_do_not_outlive_a_fresh_decode(redis_server):
    """An object's stored bytes are not always those of its decoded copy: an edit puts an int
    in a float field (``7``, which decodes as ``7.0``). After another process's commit this
    process decodes the room; a piece of its own commit spliced in then would write ``7``
    where the whole encoding of the decoded room has ``7.0``."""
    s1, s2 = RedisStore(redis_server.url), RedisStore(redis_server.url)
    here, there = RoomService(s1), RoomService(s2)
    code, pid, (x, y) = await _room(here)

    def int_x(t: Table) -> None:
        t.objects[x].x = 7  # type: ignore[assignment]

    await here.edit(code, int_x)
    await here.apply(code, pid, parse_op({"op": "move", "id": y, "x": 2, "y": 2}))
    await there.apply(code, pid, parse_op({"op": "move", "id": y, "x": 3, "y": 3}))
    await here.apply(code, pid, parse_op({"op": "move", "id": y, "x": 4, "y": 4}))
    table = await _stored(s1, code)
    assert (table.objects[x].x, table.objects[y].x) == (7.0, 4.0)
    await s1.close()
    await s2.close()
