"""Two real Socket.IO clients in one room: join, deal, see only your own hand."""

from __future__ import annotations

from tests.conftest import new_room


async def test_two_players_deal_and_see_only_own_hand(server, make_client):
    code = await new_room(server)
    a = await make_client()
    b = await make_client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    assert a.seat == 0 and b.seat == 1
    ack = await a.op("shuffle", id="deck")
    await a.op("deal", id="deck", n=5)
    await b.wait_version(ack["v"] + 1)
    assert len(a.hand(0)) == 5 and len(b.hand(1)) == 5
    a_faces, b_faces = a.faces_seen(), b.faces_seen()
    assert set(a.hand(0)) <= set(a_faces) and set(b.hand(1)) <= set(b_faces)
    # The other hand is a count: no ids, so nothing to link and no faces.
    assert a.objects["hand1"]["n"] == 5 and "cards" not in a.objects["hand1"]
    assert b.objects["hand0"]["n"] == 5 and "cards" not in b.objects["hand0"]
    assert not set(b.hand(1)) & set(a.objects) and not set(a.hand(0)) & set(b.objects)
    assert b.log[-1] == "Ana dealt 5 cards from Deck to each player"
