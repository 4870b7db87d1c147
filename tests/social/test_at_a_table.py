"""Online where you are (issue 22 items 1-2): a person in a room is online "at a table" in
everyone's lobby, across processes; a challenge reaches the room's socket; a private room's code
never appears in a lobby payload; the explicit offline choice holds in a room."""

from __future__ import annotations

import secrets

import aiohttp

from tests.conftest import make_config, start_server
from tests.social.helpers import social_client


async def room(url: str, game: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": game}) as resp,
    ):
        return str((await resp.json())["code"])


async def test_a_person_in_a_room_is_online_at_a_table_across_processes(redis_server):
    one = await start_server(make_config(redis_server.url))
    two = await start_server(make_config(redis_server.url))
    p = "At" + secrets.token_hex(3)
    ben = await social_client(one.url, f"{p}Ben")
    ana = await social_client(two.url, f"{p}Ana", online=False)  # a room page: hello, join
    try:
        code = await room(two.url, "gin_rummy")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        seen = await ben.request("lobby", {"q": p})
        listed = {x["name"]: x for x in seen["players"]}
        assert listed[f"{p}Ana"]["at"] == {
            "code": None,
            "game": "gin_rummy",
            "seats_free": 1,
            "public": False,
        }
        assert listed[f"{p}Ben"]["at"] is None
        assert code not in str(seen)  # a private room's code never leaks
        await ana.request("host", {"action": "public", "public": True})
        seen = await ben.request("lobby", {"q": p})
        at = next(x["at"] for x in seen["players"] if x["name"] == f"{p}Ana")
        assert at == {"code": code, "game": "gin_rummy", "seats_free": 1, "public": True}
        # A challenge sent on process one reaches her room socket on process two.
        sent = await ben.request("challenge", {"to": ana.identity, "game": "pennies"})
        got = await ana.event("challenged")
        assert got["id"] == sent["id"] and got["from"]["id"] == ben.identity
        await ana.request("challenge_answer", {"id": sent["id"], "accept": True})
        mine = await ana.event("challenge_accepted")
        theirs = await ben.event("challenge_accepted")
        assert mine["code"] == theirs["code"] and mine["seat"] == 1
    finally:
        for x in (ana, ben):
            await x.close()
        await one.stop()
        await two.stop()


async def test_the_offline_choice_holds_in_a_room(redis_server):
    one = await start_server(make_config(redis_server.url))
    p = "Off" + secrets.token_hex(3)
    ben = await social_client(one.url, f"{p}Ben")
    ana = await social_client(one.url, f"{p}Ana", online=False)
    try:
        await ana.online(False)
        code = await room(one.url, "pennies")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        names = [x["name"] for x in (await ben.request("lobby", {"q": p}))["players"]]
        assert names == [f"{p}Ben"]
    finally:
        for x in (ana, ben):
            await x.close()
        await one.stop()
