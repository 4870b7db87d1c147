"""Presence at a table and invites across two real ``cardtable serve`` processes on one Redis
(issue 22): a person in a room on one process is "at a table" in the lobby of a person on the
other; an invite sent on one process reaches the invitee on the other, and accepting it lands
them in the room; a rematch made on one process reaches a player on the other."""

from __future__ import annotations

import asyncio
import secrets

import aiohttp
import pytest

from tests.cluster.procs import ServerProcess
from tests.social.helpers import SocialClient, social_client


@pytest.fixture
async def two_processes(redis_server, tmp_path):
    procs = [
        ServerProcess(redis_url=redis_server.url, log_path=tmp_path / f"s{i}.log") for i in range(2)
    ]
    await asyncio.gather(*(p.start() for p in procs))
    yield procs
    for p in procs:
        p.stop()


async def rule_room(url: str, game: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": game}) as resp,
    ):
        assert resp.status == 201, await resp.text()
        return str((await resp.json())["code"])


async def test_an_invite_crosses_processes_and_lands_the_invitee_at_the_table(two_processes):
    a, b = two_processes
    p = "Cl" + secrets.token_hex(3)
    ana: SocialClient = await social_client(a.url, f"{p}Ana", online=False)  # a room page on A
    ben: SocialClient = await social_client(b.url, f"{p}Ben")  # the home page on B
    try:
        code = await rule_room(a.url, "pennies")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        # Presence at a table: Ben's lobby on B has Ana at a table on A.
        seen = await ben.request("lobby", {"q": p})
        at = next(x["at"] for x in seen["players"] if x["name"] == f"{p}Ana")
        assert at == {"code": None, "game": "pennies", "seats_free": 3, "public": False}
        await ana.request("relation", {"id": ben.identity, "kind": "favourite", "on": True})
        listed = await ana.request("favourites_online", {})
        assert listed["players"] == [{"id": ben.identity, "name": f"{p}Ben"}]
        sent = await ana.request("challenge", {"to": ben.identity, "room": code})
        got = await ben.event("challenged")
        assert got["id"] == sent["id"] and got["invite"] is True and got["game"] == "pennies"
        await ben.request("challenge_answer", {"id": sent["id"], "accept": True})
        accepted = await ben.event("challenge_accepted")
        assert accepted["code"] == code and accepted["seat"] == 1 and accepted["invite"] is True
        assert (await ana.event("invite_accepted"))["by"]["id"] == ben.identity
        # The invitee's room page, on B, joins the room in that seat.
        room_page = await social_client(b.url, None)
        try:
            await room_page.hello(f"{p}Ben", id=ben.identity, secret=ben.secret)
            await room_page.join(code, "Ben", seat=accepted["seat"], identity=ben.identity)
            assert room_page.seat == 1
            await ana.wait_for(lambda: any(x["name"] == "Ben" for x in ana.players))
            seen = await ana.request("lobby", {"q": p})
            at = next(x["at"] for x in seen["players"] if x["name"] == f"{p}Ben")
            assert at is not None and at["seats_free"] == 2
        finally:
            await room_page.close()
    finally:
        await ana.close()
        await ben.close()


async def test_a_rematch_on_one_process_invites_a_player_on_the_other(two_processes):
    a, b = two_processes
    p = "Rm" + secrets.token_hex(3)
    ana = await social_client(a.url, f"{p}Ana", online=False)
    ben = await social_client(b.url, f"{p}Ben", online=False)
    try:
        code = await rule_room(a.url, "gin_rummy")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        await ben.join(code, "Ben", seat=1, identity=ben.identity)
        made = await ana.request("rematch", {})
        assert made["to"] == [{"id": ben.identity, "name": "Ben"}] and made["seat"] == 0
        invite = await ben.event("challenged")
        await ben.request("challenge_answer", {"id": invite["id"], "accept": True})
        accepted = await ben.event("challenge_accepted")
        assert accepted["code"] == made["code"] != code and accepted["seat"] == 1
    finally:
        await ana.close()
        await ben.close()
