"""The online list and the lobby over real sockets: going online and off, disconnects, heartbeat
timeouts, name search and paging, favourites, public tables; and what a lobby page costs with
10,000 identities online."""

from __future__ import annotations

import secrets
import time

import aiohttp
import pytest

from cardtable_client import OpFailed
from server.net.http import ROOMS_KEY
from server.social.lobby import PAGE
from server.store.social_store import NAMES, ONLINE, identity_key, name_entry, sockets_key
from tests.conftest import new_room


def prefix() -> str:
    return "Zz" + secrets.token_hex(3)  # names unique to this test: other tests share Redis


async def lobby(c, q: str, page: int = 0) -> dict:
    return await c.request("lobby", {"q": q, "page": page})


async def test_online_players_are_listed_until_they_go_offline_or_disconnect(people):
    p = prefix()
    a = await people(f"{p}Ann")
    b = await people(f"{p}Bob")
    hidden = await people(f"{p}Hid", online=False)  # said hello, never went online
    got = await lobby(a, p)
    assert [x["name"] for x in got["players"]] == [f"{p}Ann", f"{p}Bob"]
    assert got["total"] == 2 and hidden.identity not in str(got)
    assert {x["id"] for x in got["players"]} == {a.identity, b.identity}
    await b.online(False)
    assert [x["name"] for x in (await lobby(a, p))["players"]] == [f"{p}Ann"]
    await b.online(True)
    await b.close()
    for _ in range(50):  # the disconnect is handled after the socket closes on the server
        if len((await lobby(a, p))["players"]) == 1:
            break
    assert [x["id"] for x in (await lobby(a, p))["players"]] == [a.identity]


async def test_an_identity_stays_online_while_any_of_its_sockets_does(server, people):
    p = prefix()
    a = await people(f"{p}Ann")
    second = await people(None)
    await second.request("hello", {"id": a.identity, "secret": a.secret})
    await second.online(True)
    await second.online(False)
    assert (await lobby(a, p))["total"] == 1  # the first socket is still online
    await a.online(False)
    assert (await lobby(second, p))["total"] == 0


async def test_a_renamed_identity_is_found_by_its_new_name_only(people):
    p = prefix()
    a = await people(f"{p}Old")
    await a.hello(f"{p}New")
    got = await lobby(a, p)
    assert [x["name"] for x in got["players"]] == [f"{p}New"]
    assert (await lobby(a, f"{p}Old"))["total"] == 0


async def test_search_is_by_name_prefix_and_ignores_case(people):
    p = prefix()
    a = await people(f"{p}alice")
    await people(f"{p}ALBERT")
    await people(f"{p}bob")
    assert sorted(x["name"] for x in (await lobby(a, f"{p}al"))["players"]) == [
        f"{p}ALBERT",
        f"{p}alice",
    ]
    assert (await lobby(a, f"{p}AL".upper()))["total"] == 2
    assert (await lobby(a, f"{p}x"))["total"] == 0


async def test_favourites_are_marked(people):
    p = prefix()
    a = await people(f"{p}Ann")
    b = await people(f"{p}Bob")
    await a.request("relation", {"id": b.identity, "kind": "favourite", "on": True})
    marks = {x["name"]: x["favourite"] for x in (await lobby(a, p))["players"]}
    assert marks == {f"{p}Ann": False, f"{p}Bob": True}
    marks = {x["name"]: x["favourite"] for x in (await lobby(b, p))["players"]}
    assert marks == {f"{p}Ann": False, f"{p}Bob": False}


async def test_identities_not_refreshed_in_time_drop_out(server, people):
    """A process that died stops refreshing its identities: they leave at the next lookup."""
    p = prefix()
    a = await people(f"{p}Ann")
    redis = server.app[ROOMS_KEY].store.redis
    ghost = "ghost" + secrets.token_hex(4)
    await redis.hset(
        identity_key(ghost), mapping={"n": f"{p}Ghost", "o": name_entry(f"{p}Ghost", ghost)}
    )
    await redis.zadd(ONLINE, {ghost: time.time() - 3600})
    await redis.zadd(NAMES, {name_entry(f"{p}Ghost", ghost): 0})
    got = await lobby(a, p)
    assert [x["name"] for x in got["players"]] == [f"{p}Ann"]
    assert await redis.zscore(ONLINE, ghost) is None


async def test_public_tables_are_listed_with_game_and_free_seats(server, people):
    a = await people("Host")
    b = await people("Guest")
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "rummy"}) as resp,
    ):
        code = (await resp.json())["code"]
    await a.join(code, "Host", identity=a.identity)
    await b.join(code, "Guest", identity=b.identity)
    assert code not in str(await lobby(a, ""))
    with pytest.raises(OpFailed) as err:
        await b.request("host", {"action": "public", "public": True})
    assert err.value.code == "forbidden"
    with pytest.raises(OpFailed) as err:
        await a.request("host", {"action": "public", "public": True, "seat": 1})
    assert err.value.code == "bad_request"
    await a.request("host", {"action": "public", "public": True})
    listed = [t for t in (await lobby(b, ""))["tables"] if t["code"] == code]
    assert listed == [{"code": code, "game": "rummy", "title": "Rummy with Host", "seats_free": 2}]
    assert (await server.app[ROOMS_KEY].load_table(code)).public
    await a.request("host", {"action": "public", "public": False})
    assert code not in str((await lobby(b, ""))["tables"])


async def test_a_free_table_can_be_public(server, people):
    code = await new_room(server)
    a = await people("Solo")
    await a.join(code, "Solo")
    await a.request("host", {"action": "public", "public": True})
    listed = [t for t in (await lobby(a, ""))["tables"] if t["code"] == code]
    assert listed == [
        {"code": code, "game": None, "title": "Free table with Solo", "seats_free": 3}
    ]


async def test_lobby_page_with_ten_thousand_online(server, people):
    """10,000 identities put online directly in Redis; a lobby page is one page of them. (The
    figures with real polling clients: ``python -m bench.lobby``, bench/README.md.)"""
    p = prefix()
    redis = server.app[ROOMS_KEY].store.redis
    now = time.time()
    ids = [f"bench{p}{i:05d}" for i in range(10_000)]
    pipe = redis.pipeline(transaction=False)
    for i, ident in enumerate(ids):
        name = f"{p}{i:05d}"
        pipe.hset(identity_key(ident), mapping={"n": name, "o": name_entry(name, ident)})
        pipe.zadd(ONLINE, {ident: now + 600})  # fresh for the whole test
        pipe.zadd(NAMES, {name_entry(name, ident): 0})
    await pipe.execute()
    a = await people("Bench")
    try:
        start = time.perf_counter()
        first = await lobby(a, p)
        last = await lobby(a, p, page=199)
        searched = await lobby(a, f"{p}0999")
        everyone = await a.request("lobby", {})
        runs = 20
        t0 = time.perf_counter()
        for i in range(runs):
            await lobby(a, p, page=i * 7)
        each = (time.perf_counter() - t0) / runs
        print(
            f"\nlobby page with 10,000 online: {each * 1000:.2f} ms per query over the "
            f"socket ({(t0 - start) * 1000:.1f} ms for the first four)"
        )
        assert first["total"] == 10_000 and len(first["players"]) == PAGE
        assert first["players"][0]["name"] == f"{p}00000"
        assert [x["name"] for x in last["players"]][-1] == f"{p}09999"
        assert searched["total"] == 10 and len(searched["players"]) == 10
        assert everyone["total"] >= 10_001
    finally:
        pipe = redis.pipeline(transaction=False)
        pipe.zrem(ONLINE, *ids)
        pipe.zrem(NAMES, *[name_entry(f"{p}{i:05d}", ident) for i, ident in enumerate(ids)])
        pipe.delete(*[identity_key(i) for i in ids])
        await pipe.execute()


async def test_the_heartbeat_refreshes_online_identities(server, people):
    from server.app import HANDLERS_KEY

    p = prefix()
    a = await people(f"{p}Ann")
    redis = server.app[ROOMS_KEY].store.redis
    await redis.zadd(ONLINE, {a.identity: 1.0})  # as if last seen long ago
    await server.app[HANDLERS_KEY].heartbeat()
    assert await redis.zscore(ONLINE, a.identity) > time.time() - 60
    assert [x["id"] for x in (await lobby(a, p))["players"]] == [a.identity]


async def test_a_heartbeat_refreshes_many_sockets_in_batches(server, people):
    """More online sockets than one script call takes (REFRESH_BATCH): every one is refreshed,
    a renamed identity's old name entry goes, and the lobby lists each identity once."""
    from server.social.lobby import Lobby
    from server.store.social_store import REFRESH_BATCH

    p = prefix()
    redis = server.app[ROOMS_KEY].store.redis
    service = Lobby(server.app[ROOMS_KEY].store.social, 15.0)
    n = REFRESH_BATCH * 2 + 17
    ids = [f"batch{p}{i:04d}" for i in range(n)]
    for i, ident in enumerate(ids):
        await redis.hset(identity_key(ident), "n", f"{p}{i:04d}")
    online = [(ident, f"sid{i}", f"{p}{i:04d}") for i, ident in enumerate(ids)]
    online.append((ids[0], "second-socket", f"{p}0000"))  # one identity, two sockets
    try:
        await service.refresh(online, time.time())
        await service.refresh([(ids[1], "sid1", f"{p}x-renamed")], time.time())
        await redis.hset(identity_key(ids[1]), "n", f"{p}x-renamed")
        a = await people("Batch")
        got = await lobby(a, p)
        assert got["total"] == n
        names = [x["name"] for x in got["players"]]
        assert names == sorted(names) and f"{p}0001" not in names
        last = await lobby(a, p, page=(n - 1) // PAGE)
        assert last["players"][-1]["name"] == f"{p}x-renamed"
        assert await redis.zcard(sockets_key(ids[0])) == 2
    finally:
        pipe = redis.pipeline(transaction=False)
        pipe.zrem(ONLINE, *ids)
        for i, ident in enumerate(ids):
            pipe.zrem(NAMES, name_entry(f"{p}{i:04d}", ident))
        pipe.zrem(NAMES, name_entry(f"{p}x-renamed", ids[1]))
        pipe.delete(*[identity_key(i) for i in ids])
        await pipe.execute()
