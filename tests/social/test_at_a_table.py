"""Online where you are (issue 22 items 1-2): a person in a room is online "at a table" in
everyone's lobby, across processes; a challenge reaches the room's socket; a private room's code
never appears in a lobby payload; the explicit offline choice holds in a room."""

from __future__ import annotations

import asyncio
import secrets

import aiohttp

from server.social.lobby import Lobby
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


async def test_where_a_person_is_is_forgotten_when_they_go(store):
    """The lobby's record of each identity's room (``social:at``) does not grow for ever."""
    lobby = Lobby(store.social, 15.0)
    ann, bob, cy = ("at" + secrets.token_hex(6) for _ in range(3))
    await lobby.go_online(ann, "s1", "Ann", 1000.0)
    await lobby.at(ann, "ROOMANN1")
    await lobby.go_offline(ann, "s1", 1000.0)  # her last socket: offline, and at no table
    await lobby.go_online(bob, "s2", "Bob", 1000.0)
    await lobby.at(bob, "ROOMBOB1")
    await lobby.prune(1016.0)  # no heartbeat for longer than the timeout: lapsed
    await lobby.at(cy, "ROOMCY01")
    await lobby.left(cy, "ROOMCY00")  # a socket leaving another room: she is still here
    assert await store.social.at_get([ann, bob, cy]) == [None, None, "ROOMCY01"]
    await lobby.left(cy, "ROOMCY01")
    assert await store.social.at_get([cy]) == [None]


async def test_leaving_the_room_forgets_the_table(server, store):
    ana = await social_client(server.url, "Left" + secrets.token_hex(3), online=False)
    try:
        await ana.online(False)  # so only leaving the room can forget it, not going offline
        code = await room(server.url, "pennies")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        assert await store.social.at_get([ana.identity]) == [code]
        await ana.close()
        for _ in range(200):  # the server handles the disconnect after the socket is gone
            if await store.social.at_get([ana.identity]) == [None]:
                break
            await asyncio.sleep(0.05)
        assert await store.social.at_get([ana.identity]) == [None]
    finally:
        await ana.close()


async def test_a_socket_still_in_the_room_says_so_again(redis_server, store):
    """Another tab of the same person leaving the room forgets where she is; her socket still in
    the room says it again at the next heartbeat."""
    srv = await start_server(make_config(redis_server.url, heartbeat_seconds=0.2))
    ana = await social_client(srv.url, "Still" + secrets.token_hex(3), online=False)
    try:
        code = await room(srv.url, "pennies")
        await ana.join(code, "Ana", seat=0, identity=ana.identity)
        await store.social.at_drop(ana.identity, code)  # what the other tab's leaving does
        for _ in range(200):
            if await store.social.at_get([ana.identity]) == [code]:
                break
            await asyncio.sleep(0.05)
        assert await store.social.at_get([ana.identity]) == [code]
    finally:
        await ana.close()
        await srv.stop()
