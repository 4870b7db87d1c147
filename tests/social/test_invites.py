"""Invite and rematch (issue 22 item 5): an invite is a challenge that names the room the sender
is at; accepting it sends the invitee there (a free seat, else watching). A rematch makes a new
room of the same game, options and computers, and invites the other people who played."""

from __future__ import annotations

import secrets

import aiohttp
import pytest

from cardtable_client import OpFailed
from tests.server.helpers import server_table
from tests.social.helpers import SocialClient


async def rule_room(url: str, game: str, **extra: object) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": game, **extra}) as resp,
    ):
        return str((await resp.json())["code"])


def tag() -> str:
    return "Inv" + secrets.token_hex(3)


async def test_a_favourite_is_invited_to_the_table_and_lands_in_a_free_seat(server, people):
    p = tag()
    ana: SocialClient = await people(f"{p}Ana", online=False)
    ben: SocialClient = await people(f"{p}Ben")
    cy: SocialClient = await people(f"{p}Cy")  # online, not a favourite: not listed
    code = await rule_room(server.url, "pennies")
    await ana.join(code, "Ana", seat=0, identity=ana.identity)
    await ana.request("relation", {"id": ben.identity, "kind": "favourite", "on": True})
    listed = await ana.request("favourites_online", {})
    assert listed["players"] == [{"id": ben.identity, "name": f"{p}Ben"}]
    assert cy.identity not in str(listed)
    sent = await ana.request("challenge", {"to": ben.identity, "room": code})
    got = await ben.event("challenged")
    assert got["id"] == sent["id"] and got["invite"] is True and got["game"] == "pennies"
    assert got["from"] == {"id": ana.identity, "name": f"{p}Ana"}
    assert code not in str(got)  # the code comes with the acceptance only
    await ben.request("challenge_answer", {"id": sent["id"], "accept": True})
    accepted = await ben.event("challenge_accepted")
    assert accepted == {
        "id": sent["id"],
        "code": code,
        "game": "pennies",
        "seat": 1,
        "invite": True,
    }
    coming = await ana.event("invite_accepted")
    assert coming == {"id": sent["id"], "by": {"id": ben.identity, "name": f"{p}Ben"}}
    assert ana.events("challenge_accepted") == []  # the sender's pages stay where they are
    await ben.join(code, "Ben", seat=accepted["seat"], identity=ben.identity)
    assert ben.seat == 1
    with pytest.raises(OpFailed) as err:  # he is here now
        await ana.request("challenge", {"to": ben.identity, "room": code})
    assert err.value.code == "bad_request"
    assert err.value.payload["message"] == "They are at this table already."


async def test_an_invite_to_a_full_table_means_watching(server, people):
    p = tag()
    ana = await people(f"{p}Ana", online=False)
    ben = await people(f"{p}Ben")
    code = await rule_room(server.url, "gin_rummy")
    await ana.join(code, "Ana", seat=0, identity=ana.identity)
    await ana.request("host", {"action": "bot", "seat": 1, "level": "easy"})
    sent = await ana.request("challenge", {"to": ben.identity, "room": code})
    await ben.request("challenge_answer", {"id": sent["id"], "accept": True})
    assert (await ben.event("challenge_accepted"))["seat"] is None


async def test_an_invite_is_only_to_the_table_you_are_at(server, people):
    p = tag()
    ana = await people(f"{p}Ana")
    ben = await people(f"{p}Ben")
    mine = await rule_room(server.url, "pennies")
    other = await rule_room(server.url, "pennies")
    with pytest.raises(OpFailed) as err:  # not in a room at all
        await ana.request("challenge", {"to": ben.identity, "room": mine})
    assert err.value.code == "not_joined"
    await ana.join(mine, "Ana", seat=0, identity=ana.identity)
    with pytest.raises(OpFailed) as err:
        await ana.request("challenge", {"to": ben.identity, "room": other})
    assert err.value.code == "forbidden"
    with pytest.raises(OpFailed) as err:
        await ana.request("challenge", {"to": ben.identity, "room": mine, "game": "spades"})
    assert err.value.code == "bad_request"
    with pytest.raises(OpFailed) as err:
        await ana.request("challenge", {"to": ben.identity})
    assert err.value.code == "bad_request"
    assert ben.events("challenged") == []
    assert ana.sio.connected and ana.seat == 0  # the connection and the seat stay


async def test_blocks_hold_for_invites(server, people):
    p = tag()
    ana = await people(f"{p}Ana", online=False)
    ben = await people(f"{p}Ben")
    code = await rule_room(server.url, "pennies")
    await ana.join(code, "Ana", seat=0, identity=ana.identity)
    await ana.request("relation", {"id": ben.identity, "kind": "favourite", "on": True})
    await ben.request("relation", {"id": ana.identity, "kind": "block", "on": True})
    assert (await ana.request("favourites_online", {}))["players"] == []
    with pytest.raises(OpFailed) as err:
        await ana.request("challenge", {"to": ben.identity, "room": code})
    assert err.value.code == "blocked"
    assert ben.events("challenged") == []  # he never sees it


async def test_a_rematch_makes_the_same_room_and_invites_the_people(server, people):
    p = tag()
    ana = await people(f"{p}Ana", online=False)
    ben = await people(f"{p}Ben", online=False)
    code = await rule_room(server.url, "pennies")
    await ana.join(code, "Ana", seat=0, identity=ana.identity)
    await ana.request("host", {"action": "bot", "seat": 1, "level": "hard"})
    await ben.join(code, "Ben", seat=2, identity=ben.identity)
    old = await server_table(server, code)
    made = await ana.request("rematch", {})
    assert made["seat"] == 0 and made["code"] != code
    assert made["to"] == [{"id": ben.identity, "name": "Ben"}] and made["skipped"] == []
    invite = await ben.event("challenged")
    assert invite["invite"] is True and invite["game"] == "pennies"
    new = await server_table(server, made["code"])
    assert new.game is not None and old.game is not None
    assert new.game.name == "pennies" and new.game.options == old.game.options
    bots = [(pl.seat, pl.level) for pl in new.players.values() if pl.bot]
    assert bots == [(1, "hard")]
    # Ben answers as to any challenge: his old seat is kept for him even before Ana arrives.
    await ben.request("challenge_answer", {"id": invite["id"], "accept": True})
    accepted = await ben.event("challenge_accepted")
    assert accepted["code"] == made["code"] and accepted["seat"] == 2
    assert (await ana.event("invite_accepted"))["by"]["id"] == ben.identity


async def test_a_rematch_is_for_a_rule_game(server, people):
    ana = await people(f"{tag()}Ana")
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"template": "standard"}) as resp,
    ):
        code = str((await resp.json())["code"])
    await ana.join(code, "Ana", identity=ana.identity)
    with pytest.raises(OpFailed) as err:
        await ana.request("rematch", {})
    assert err.value.code == "bad_request"
    assert err.value.payload["message"] == "A rematch is for a rule game."
    assert ana.seat is not None and ana.sio.connected  # state and connection kept
