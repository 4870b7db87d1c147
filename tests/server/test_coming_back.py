"""Rooms remember their people: someone away past the grace period comes back to their seat
(or to a clear choice if it was taken), the creator is host again on return, and a newcomer is
never seated at a seat that still holds another person's cards. Over real sockets.

Leaving is driven through the room service's presence settlement with an explicit clock
(``refresh_presence(code, live, now, grace)``), so no test waits out a grace period.
"""

from __future__ import annotations

import time

import pytest

from cardtable_client import OpFailed, TableClient
from server.app import HANDLERS_KEY
from server.net.http import ROOMS_KEY
from server.room.service import RoomService
from tests.conftest import new_room
from tests.server.helpers import server_table
from tests.social.helpers import social_client

GRACE = 120.0


async def leave_for_good(server, code: str, *gone: TableClient) -> None:
    """Close ``gone`` and let the room settle presence past the grace period: they leave."""
    rooms: RoomService = server.app[ROOMS_KEY]
    for c in gone:
        await c.close()
    table = await rooms.load_table(code)
    left = {c.player for c in gone}
    live = {pid for pid in table.players if pid not in left}
    now = time.time()
    await rooms.refresh_presence(code, live, now, GRACE)  # reconnecting...
    await rooms.refresh_presence(code, live, now + GRACE + 1, GRACE)  # ...and gone
    table = await rooms.load_table(code)
    assert not left & set(table.players), "they should have left"


def faces_received(c: TableClient) -> set[str]:
    """Every card face in every message this client received."""
    found: set[str] = set()

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("face"), str):
                found.add(x["face"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk([data for _, data in c.received])
    return found


def names(c: TableClient) -> dict[str, dict]:
    return {p["name"]: p for p in c.players}


async def test_the_host_comes_back_to_seat_hand_and_host_powers(server, make_client):
    code = await new_room(server)
    ana, ben = await make_client(), await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await ana.op("take", id="deck", n=5)
    hand, token, ana_id = sorted(ana.hand_faces()), ana.token, ana.player
    await leave_for_good(server, code, ana)

    # While Ana is away, Ben (the one present) holds the host's powers.
    await ben.wait_for(lambda: "Ana" not in names(ben) and names(ben)["Ben"]["host"])
    assert [f["name"] for f in ben.former] == ["Ana"] and ben.former[0]["seat"] == 0
    await ben.request("host", {"action": "lock"})  # he can use them

    # The same browser (its token) comes back: same player, same seat, same cards, host again
    # (even though the room is locked: she is not a new player).
    back = await make_client()
    got = await back.request("join", {"code": code, "token": token})
    await back.wait_for(lambda: back.version >= 0)
    assert got["player"] == ana_id and got["seat"] == 0 and got["was_seat"] is None
    assert sorted(back.hand_faces()) == hand
    await ben.wait_for(lambda: names(ben).get("Ana", {}).get("host") is True)
    assert names(ben)["Ben"]["host"] is False and ben.former == []
    await back.request("host", {"action": "unlock"})
    with pytest.raises(OpFailed) as err:
        await ben.request("host", {"action": "lock"})
    assert err.value.code == "forbidden"


async def test_a_newcomer_is_never_seated_into_a_departed_players_cards(server, make_client):
    code = await new_room(server, seats=2)
    ana, ben = await make_client(), await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await ben.op("take", id="deck", n=7)
    await leave_for_good(server, code, ana, ben)

    # The room is empty; a stranger opens the link. Seat 0's hand is empty, seat 1 holds
    # Ben's 7 cards: the stranger sits at seat 0 and sees none of Ben's cards.
    cy = await make_client()
    await cy.join(code, "Cy")
    assert cy.seat == 0 and cy.hand() == []
    ben_faces = {
        (await server_table(server, code)).objects[cid].face
        for cid in (await server_table(server, code)).objects["hand1"].cards
    }
    assert cy.objects["hand1"]["n"] == 7 and "cards" not in cy.objects["hand1"]
    assert ben_faces and not ben_faces & faces_received(cy)

    # The next stranger finds only Ben's seat free: they watch, told whose it is...
    dee = await make_client()
    await dee.join(code, "Dee")
    assert dee.seat is None
    assert [(f["name"], f["seat"]) for f in dee.former] == [("Ana", 0), ("Ben", 1)]
    # ...and may take it over on purpose (the page asks "Take over Ben's seat, 7 cards?").
    await dee.request("seat", {"seat": 1})
    await dee.wait_for(lambda: len(dee.hand()) == 7)

    # Ana comes back: her seat is Cy's now, so she watches and is told which seat she had;
    # the free seats are for her to choose from (none here).
    back = await make_client()
    ana_token = ana.token
    got = await back.request("join", {"code": code, "token": ana_token})
    assert got["seat"] is None and got["was_seat"] == 0
    await back.wait_for(lambda: back.version >= 0)
    assert names(back)["Ana"]["seat"] is None


async def test_a_returning_person_is_known_by_identity_without_a_token(server):
    code = await new_room(server)
    ana = await social_client(server.url, "Ana")
    try:
        await ana.join(code, "Ana", identity=ana.identity)
        await ana.op("take", id="deck", n=3)
        hand, ana_id, old_token = sorted(ana.hand_faces()), ana.player, ana.token
        await leave_for_good(server, code, ana)
    finally:
        await ana.close()

    # A new page of the same browser: same identity (hello with its secret), no room token.
    again = await social_client(server.url, None)
    try:
        again.identity, again.secret = ana.identity, ana.secret
        await again.hello("Ana")
        got = await again.join(code, "Ana", identity=again.identity)
        assert got["player"] == ana_id and got["seat"] == 0
        assert sorted(again.hand_faces()) == hand
        assert got["token"] != old_token  # a fresh token; the old one is retired
        stale = await server.client()
        with pytest.raises(OpFailed) as err:
            await stale.request("join", {"code": code, "token": old_token})
        assert err.value.code == "bad_token"
        await stale.close()
    finally:
        await again.close()


async def test_someone_elses_identity_does_not_bring_back_a_seat(server):
    code = await new_room(server)
    ana = await social_client(server.url, "Ana")
    await ana.join(code, "Ana", identity=ana.identity)
    await ana.op("take", id="deck", n=3)
    await leave_for_good(server, code, ana)
    await ana.close()
    eve = await social_client(server.url, "Eve")
    try:
        got = await eve.join(code, "Eve", identity=eve.identity)
        assert got["player"] != ana.player and eve.hand() == []
        assert got["seat"] == 1  # not Ana's seat 0 with her 3 cards
    finally:
        await eve.close()


async def test_a_kicked_player_stays_out_and_is_told_so(server, make_client):
    code = await new_room(server)
    host, guest = await make_client(), await make_client()
    await host.join(code, "Host")
    await guest.join(code, "Guest")
    token = guest.token
    await host.request("host", {"action": "remove", "player": guest.player})
    await guest.wait_for(lambda: guest.removed is not None)
    again = await make_client()
    with pytest.raises(OpFailed) as err:
        await again.request("join", {"code": code, "token": token})
    assert err.value.code == "removed" and "host removed you" in err.value.payload["message"]


async def test_in_a_rule_room_a_vacated_game_seat_is_offered_not_given(server, make_client):
    """A newcomer to a Gin game whose player left watches, and may take the seat over; the
    departed player, back first, gets it again."""
    import aiohttp

    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "gin_rummy"}) as resp,
    ):
        code = (await resp.json())["code"]
    ana, ben = await make_client(), await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    ben_token = ben.token
    ben_hand = sorted(ben.hand_faces())
    await leave_for_good(server, code, ben)

    cy = await make_client()
    await cy.join(code, "Cy")
    assert cy.seat is None and cy.former[0]["seat"] == 1

    back = await make_client()
    got = await back.request("join", {"code": code, "token": ben_token})
    await back.wait_for(lambda: back.version >= 0)
    assert got["seat"] == 1 and sorted(back.hand_faces()) == ben_hand


async def test_the_heartbeat_path_remembers_too(server, make_client):
    """The real presence settlement (the socket layer's heartbeat) leaves people remembered."""
    handlers = server.app[HANDLERS_KEY]
    code = await new_room(server)
    ana, ben = await make_client(), await make_client()
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await ben.close()
    handlers.config.grace_seconds = 0.0
    await ana.wait_for(lambda: "Ben" not in names(ana), timeout=20)
    assert [f["name"] for f in ana.former] == ["Ben"]
