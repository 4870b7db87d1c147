"""Players and seats: tokens reclaim a seat, nobody else can act as it, spectators watch,
and a reconnecting client catches up from its last version."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from tests.conftest import new_room
from tests.server.helpers import converge, view_by_id


async def test_token_reclaims_same_seat_and_hand(server, make_client):
    code = await new_room(server)
    a = await make_client()
    await a.join(code, "Ana")
    await a.op("take", id="deck", n=3)
    hand = a.hand()
    token, player = a.token, a.player
    await a.close()

    again = await make_client()
    await again.join(code.lower(), token=token)  # codes are case-insensitive
    assert again.player == player and again.seat == 0
    assert again.hand() == hand
    assert set(hand) <= set(again.faces_seen())
    ack = await again.op("take", id="deck", n=1)
    assert ack["v"] > 0


async def test_wrong_token_is_refused_and_cannot_act_as_seat(server, make_client):
    code = await new_room(server)
    a, b = await make_client(), await make_client()
    await a.join(code, "Ana")
    with pytest.raises(OpFailed) as err:
        await b.request("join", {"code": code, "token": "not-" + a.token})
    assert err.value.code == "bad_token"
    with pytest.raises(OpFailed) as err:
        await b.op("take", id="deck", n=1)
    assert err.value.code == "not_joined"


async def test_seats_spectators_and_hand_privacy(server, make_client):
    code = await new_room(server, seats=2)
    a, b, c = await make_client(), await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await c.join(code, "Cy")  # both seats taken: a spectator
    assert (a.seat, b.seat, c.seat) == (0, 1, None)
    await a.op("deal", id="deck", n=2)
    await c.wait_version(a.version)
    assert not c.faces_seen()
    with pytest.raises(OpFailed) as err:
        await c.op("take", id="deck")
    assert err.value.code == "not_seated"
    with pytest.raises(OpFailed) as err:
        await c.request("seat", {"seat": 0})
    assert err.value.code == "seat_taken"
    # Ben leaves his seat; Cy takes it and now sees that hand's faces.
    await b.request("seat", {"seat": None})
    ack = await c.request("seat", {"seat": 1})
    await c.wait_for(lambda: c.seat == 1 and c.version >= ack["v"])
    hand1 = c.hand(1)
    assert len(hand1) == 2 and set(hand1) <= set(c.faces_seen())
    await b.wait_for(lambda: b.seat is None)
    await b.wait_version(c.version)
    assert not set(hand1) & set(b.faces_seen())


async def test_rename_is_broadcast_as_text(server, make_client):
    code = await new_room(server)
    a, b = await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await a.request("rename", {"name": "<b>Ana</b>"})
    await b.wait_for(lambda: any(p["name"] == "<b>Ana</b>" for p in b.players))
    with pytest.raises(OpFailed) as err:
        await a.request("rename", {"name": "x" * 100})
    assert err.value.code == "bad_request"


async def test_resync_replays_missed_deltas_or_sends_snapshot(server, make_client):
    code = await new_room(server)
    a, b = await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await a.op("deal", id="deck", n=3)
    await b.wait_version(a.version)
    seen, token = b.version, b.token
    await b.close()
    for _ in range(5):
        await a.op("move", id=a.objects["deck"]["cards"][-1], x=10, y=10, up=True)

    back = await make_client()
    back.version = seen
    back.objects = dict(b.objects)
    back.player = b.player
    await back.request("join", {"code": code, "token": token, "since": seen})
    table = await converge(server, code, [a, back])
    kinds = [name for name, _ in back.received]
    replayed = [p for n, p in back.received if n == "delta" and p["v"] <= a.version]
    assert "snapshot" not in kinds
    assert sum(1 for p in replayed if p.get("log", "").startswith("Ana moved")) == 5
    assert back.objects == view_by_id(table, back.seat)

    # Too far behind for the op log (or from before a seat change): a snapshot instead.
    late = await make_client()
    await late.request("join", {"code": code, "token": token, "since": 0})
    table = await converge(server, code, [a, late])
    assert [n for n, _ in late.received].count("snapshot") == 1
    assert late.objects == view_by_id(table, late.seat)


async def test_drags_are_relayed_to_others_validated_and_rate_limited(server, make_client):
    import asyncio

    code = await new_room(server)
    a, b, c = await make_client(), await make_client(), await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await c.join(code, "Cy", seat=None)
    drags: list[dict] = []
    b.sio.on("drag", lambda data: drags.append(data))
    a_drags: list[dict] = []
    a.sio.on("drag", lambda data: a_drags.append(data))
    for i in range(10):  # 10 in a burst: most are dropped by the relay's rate
        await a.send_raw("drag", {"items": [{"id": "deck", "x": 100 + i, "y": 200}]})
    await asyncio.sleep(0.3)
    await a.send_raw("drag", {"items": [{"id": "deck", "x": 500, "y": 200}]})
    for _ in range(50):
        if any(d["items"][0]["x"] == 500 for d in drags):
            break
        await asyncio.sleep(0.1)
    assert any(d["items"][0]["x"] == 500 for d in drags)
    assert all(d["by"] == a.player for d in drags) and 2 <= len(drags) <= 4
    assert not a_drags  # not echoed to the dragger
    await asyncio.sleep(0.1)
    with pytest.raises(OpFailed) as err:
        await a.request("drag", {"items": [{"id": "deck", "x": float("inf"), "y": 0}]})
    assert err.value.code == "bad_request"
    before = len(drags)
    await c.send_raw("drag", {"items": [{"id": "deck", "x": 1, "y": 1}]})  # a spectator
    await asyncio.sleep(0.3)
    assert len(drags) == before
    table = await converge(server, code, [a, b])
    assert table.objects["deck"].x != 500  # a drag is not a move


async def test_snapshot_carries_recent_log(server, make_client):
    code = await new_room(server)
    a = await make_client()
    await a.join(code, "Ana")
    await a.op("shuffle", id="deck")
    late = await make_client()
    await late.join(code, "Ben")
    snap = next(p for n, p in late.received if n == "snapshot")
    shuffled = f"Ana shuffled Deck (fair shuffle 1; next commitment {snap['fair']['commitment']})"
    assert snap["log"][-2:] == [shuffled, "Ben joined seat 2"]
    assert "drag" in snap["features"]
