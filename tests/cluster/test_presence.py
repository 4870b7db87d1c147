"""Disconnects, the grace period, host powers, room expiry and creation limits."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import pytest

from cardtable_client import OpFailed, TableClient
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import server_table


@pytest.fixture
async def quick_server(redis_server):
    srv = await start_server(
        make_config(redis_server.url, grace_seconds=1.5, heartbeat_seconds=0.2)
    )
    yield srv
    await srv.stop()


def status_of(client: TableClient, name: str) -> str | None:
    return next((p["status"] for p in client.players if p["name"] == name), None)


async def test_reconnecting_within_grace_keeps_seat_and_hand(quick_server):
    code = await new_room(quick_server)
    a, b = await quick_server.client(), await quick_server.client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await b.op("take", id="deck", n=3)
    hand, token = b.hand(), b.token
    await b.close()
    await a.wait_for(lambda: status_of(a, "Ben") == "reconnecting", timeout=5)
    back = await quick_server.client()
    await back.join(code, token=token)
    assert back.seat == 1 and back.hand() == hand
    await a.wait_for(lambda: status_of(a, "Ben") == "online", timeout=5)
    await asyncio.sleep(2.0)  # past the grace: Ben stays, being connected
    assert status_of(a, "Ben") == "online"
    for c in (a, back):
        await c.close()


async def test_away_past_grace_releases_seat_but_keeps_hand(quick_server):
    code = await new_room(quick_server)
    a, b = await quick_server.client(), await quick_server.client()
    await a.join(code, "Ana")
    await b.join(code, "Ben")
    await b.op("take", id="deck", n=4)
    token, ben = b.token, b.player
    await b.close()
    await a.wait_for(lambda: status_of(a, "Ben") is None, timeout=10)
    assert any("Ben left after being away too long" in line for line in a.log)
    table = await server_table(quick_server, code)
    assert 1 not in table.seated() and len(table.objects["hand1"].cards) == 4
    # A newcomer is not seated at the seat that holds Ben's cards...
    newcomer = await quick_server.client()
    await newcomer.join(code, "Cy")
    assert newcomer.seat == 2 and newcomer.hand() == []
    # ...and Ben's page, coming back, gets his seat and hand again, as the same player.
    late = await quick_server.client()
    back = await late.request("join", {"code": code, "token": token})
    await late.wait_for(lambda: late.version >= 0)
    assert back["player"] == ben and back["seat"] == 1 and back["was_seat"] is None
    assert len(late.hand()) == 4 and set(late.hand()) <= set(late.faces_seen())
    for c in (a, late, newcomer):
        await c.close()


async def test_host_locks_room_and_removes_a_player(quick_server):
    code = await new_room(quick_server)
    host, guest = await quick_server.client(), await quick_server.client()
    await host.join(code, "Host")
    await guest.join(code, "Guest")
    with pytest.raises(OpFailed) as err:
        await guest.request("host", {"action": "lock"})
    assert err.value.code == "forbidden"
    await host.request("host", {"action": "lock"})
    outsider = await quick_server.client()
    with pytest.raises(OpFailed) as err:
        await outsider.request("join", {"code": code, "name": "Late"})
    assert err.value.code == "room_locked"
    await guest.op("take", id="deck", n=2)
    seen = guest.version
    await host.request("host", {"action": "remove", "player": guest.player})
    await guest.wait_for(lambda: guest.removed is not None, timeout=5)
    assert guest.removed["reason"] == "host"
    await host.op("take", id="deck", n=1)
    await asyncio.sleep(0.3)
    assert all(d["v"] <= seen + 1 for n, d in guest.received if n == "delta")
    with pytest.raises(OpFailed) as err:
        await guest.op("take", id="deck")
    assert err.value.code == "not_joined"
    await host.request("host", {"action": "unlock"})
    await outsider.join(code, "Late")
    assert outsider.seat is not None
    for c in (host, guest, outsider):
        await c.close()


async def test_idle_rooms_expire(redis_server):
    srv = await start_server(make_config(redis_server.url, room_ttl_seconds=1))
    try:
        code = await new_room(srv)
        c = await srv.client()
        await asyncio.sleep(2.2)
        with pytest.raises(OpFailed) as err:
            await c.request("join", {"code": code, "name": "x"})
        assert err.value.code == "room_not_found"
        await c.close()
    finally:
        await srv.stop()


async def test_room_creation_is_rate_limited_per_address(private_redis):
    # A private Redis: the counters are shared by every process using the same Redis.
    srv = await start_server(make_config(private_redis.url, joins_per_minute=3))
    try:
        statuses = []
        async with aiohttp.ClientSession() as http:
            for _ in range(5):
                async with http.post(f"{srv.url}/api/rooms", json={}) as r:
                    statuses.append((r.status, (await r.json()).get("code")))
        assert [s for s, _ in statuses] == [201, 201, 201, 429, 429]
        assert statuses[-1][1] == "rate_limited"
    finally:
        await srv.stop()


async def test_a_disconnect_while_the_store_is_down_logs_no_traceback_and_catches_up(
    private_redis, caplog
):
    """Players leaving while Redis is unreachable (or its pool is exhausted by a mass
    disconnect) is not a server error: presence is settled by the heartbeat once it is back."""
    from server.app import HANDLERS_KEY

    caplog.set_level(logging.WARNING)
    srv = await start_server(make_config(private_redis.url, heartbeat_seconds=0.2))
    try:
        code = await new_room(srv)
        a, b = await srv.client(), await srv.client()
        await a.join(code, "Ana")
        await b.join(code, "Ben")
        handlers = srv.app[HANDLERS_KEY]
        private_redis.stop()
        await b.close()
        for _ in range(200):  # until the server has handled Ben's disconnect
            if len(handlers.sessions) == 1:
                break
            await asyncio.sleep(0.05)
        assert len(handlers.sessions) == 1
        private_redis.start()
        await a.wait_for(lambda: status_of(a, "Ben") == "reconnecting", timeout=10)
        # Ours only: python-socketio's Redis manager reports the outage at ERROR by itself.
        bad = [
            r
            for r in caplog.records
            if r.name.startswith("cardtable") and (r.levelno >= logging.ERROR or r.exc_info)
        ]
        assert not bad, [f"{r.name}: {r.getMessage()}" for r in bad]
        await a.close()
    finally:
        await srv.stop()


async def test_a_process_forgets_a_room_its_last_connection_left(quick_server):
    from server.app import HANDLERS_KEY
    from server.net.http import ROOMS_KEY

    code = await new_room(quick_server)
    a = await quick_server.client()
    await a.join(code, "Ana")
    await a.op("flip", id="deck")
    rooms, handlers = quick_server.app[ROOMS_KEY], quick_server.app[HANDLERS_KEY]
    assert code in rooms.cached_rooms()
    await a.close()
    for _ in range(200):  # until the disconnect is handled and a heartbeat has run (0.2 s)
        if code not in handlers.feeds.rooms and code not in rooms.cached_rooms():
            break
        await asyncio.sleep(0.05)
    assert code not in handlers.feeds.rooms and code not in rooms.cached_rooms()


async def test_a_room_everyone_left_is_no_longer_watched(quick_server):
    """A process settles presence in the rooms it served only while someone is left there to
    settle: once the last person is removed after the grace period, its heartbeat lets go."""
    from server.app import HANDLERS_KEY

    code = await new_room(quick_server)
    handlers = quick_server.app[HANDLERS_KEY]
    a = await quick_server.client()
    await a.join(code, "Ana")
    await a.close()
    for _ in range(200):  # the grace is 1.5 s, the heartbeat 0.2 s
        if code not in handlers.hosted_rooms:
            break
        await asyncio.sleep(0.05)
    assert code not in handlers.hosted_rooms
    table = await server_table(quick_server, code)
    assert table.players == {} and "Ana left after being away too long" in table.log
