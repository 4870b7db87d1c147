"""Block, mute, favourite and table chat over real sockets: joins refused for blocks, muted
lines not delivered, hostile chat kept as text, history for late joiners, the chat rate (per
identity, across its sockets and processes; without an identity per address, in
test_social_limits.py)."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from server.net.social_events import BLOCKED_HERE_MESSAGE
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import server_table
from tests.social.helpers import social_client


async def test_relations_are_sent_after_hello_and_after_each_change(people):
    a = await people("Ann")
    b = await people("Bob")
    await a.request("relation", {"id": b.identity, "kind": "mute", "on": True})
    await a.request("relation", {"id": b.identity, "kind": "favourite", "on": True})
    assert (await a.event("relations", count=3)) == {
        "block": [],
        "mute": [b.identity],
        "favourite": [b.identity],
    }
    await a.request("relation", {"id": b.identity, "kind": "mute", "on": False})
    assert (await a.event("relations", count=4))["mute"] == []
    again = await people(None)
    await again.request("hello", {"id": a.identity, "secret": a.secret})
    assert (await again.event("relations"))["favourite"] == [b.identity]


async def test_favourite_and_block_are_exclusive(people):
    a = await people("Ann")
    b = await people("Bob")
    await a.request("relation", {"id": b.identity, "kind": "favourite", "on": True})
    await a.request("relation", {"id": b.identity, "kind": "mute", "on": True})
    await a.request("relation", {"id": b.identity, "kind": "block", "on": True})
    assert (await a.event("relations", count=4)) == {
        "block": [b.identity],
        "mute": [b.identity],
        "favourite": [],
    }
    await a.request("relation", {"id": b.identity, "kind": "favourite", "on": True})
    assert (await a.event("relations", count=5)) == {
        "block": [],
        "mute": [b.identity],
        "favourite": [b.identity],
    }


async def test_hostile_relations(people):
    a = await people("Ann")
    for payload, code in (
        ({"id": "unknown-identity", "kind": "block", "on": True}, "unknown_identity"),
        ({"id": a.identity, "kind": "block", "on": True}, "bad_request"),
        ({"id": a.identity, "kind": "hate", "on": True}, "bad_request"),
        ({"id": "x", "kind": "block", "on": True}, "bad_request"),
    ):
        with pytest.raises(OpFailed) as err:
            await a.request("relation", payload)
        assert err.value.code == code, payload


async def test_blocks_keep_players_apart_at_tables(server, people):
    code = await new_room(server)
    a = await people("Ann")
    b = await people("Bob")
    await a.request("relation", {"id": b.identity, "kind": "block", "on": True})
    await a.join(code, "Ann", identity=a.identity)
    with pytest.raises(OpFailed) as err:  # b cannot join a table a is at
        await b.join(code, "Bob under a new name", identity=b.identity)
    assert err.value.code == "blocked"
    other = await new_room(server)
    await b.join(other, "Bob", identity=b.identity)
    with pytest.raises(OpFailed) as err:  # a is warned before sitting with b
        await a.join(other, "Ann", identity=a.identity)
    assert err.value.payload["code"] == "blocked_player_here"
    assert (
        err.value.payload["message"]
        == BLOCKED_HERE_MESSAGE
        == (
            "This table has a player that you have blocked, perhaps under another name. "
            "Join anyway?"
        )
    )
    await a.join(other, "Ann", identity=a.identity, anyway=True)
    table = await server_table(server, other)
    assert sorted(p.identity for p in table.players.values()) == sorted([a.identity, b.identity])


async def test_chat_reaches_the_room_as_text_and_late_joiners_get_history(server, people):
    code = await new_room(server)
    a = await people("Ann")
    b = await people(None)
    await a.join(code, "Ann", identity=a.identity)
    await b.join(code, "Bob")  # a player without an identity (no ``hello``)
    before = (await server_table(server, code)).version
    hostile = '<img src=x onerror="alert(1)"> & <script>alert(2)</script> ünï 🂡'
    await a.request("chat", {"text": hostile})
    got = await b.event("chat")
    assert got["text"] == hostile and got["code"] == code
    assert got["from"] == {"player": a.player, "identity": a.identity, "name": "Ann"}
    assert (await a.event("chat"))["text"] == hostile  # the sender sees its own line
    await b.request("chat", {"text": "hi"})
    assert (await a.event("chat", count=2))["from"] == {"player": b.player, "name": "Bob"}
    assert (await server_table(server, code)).version == before  # not in the version stream
    late = await people("Cat")
    await late.join(code, "Cat", identity=late.identity)
    history = await late.event("chat_history")
    assert [line["text"] for line in history["lines"]] == [hostile, "hi"]
    assert history["code"] == code


async def test_chat_keeps_the_last_fifty_lines(redis_server):
    now = [5_000.0]
    srv = await start_server(make_config(redis_server.url, clock=lambda: now[0]))
    code = await new_room(srv)
    a = await social_client(srv.url, "Ann")
    late = await social_client(srv.url, "Late")
    try:
        await a.join(code, "Ann")
        for i in range(60):
            now[0] += 3  # under the rate: 5 lines in any 10 s
            await a.request("chat", {"text": f"line {i}"})
        await late.join(code, "Late")
        lines = (await late.event("chat_history"))["lines"]
        assert [x["text"] for x in lines] == [f"line {i}" for i in range(10, 60)]
    finally:
        await a.close()
        await late.close()
        await srv.stop()


async def test_bad_chat_is_refused(server, people):
    a = await people("Ann")
    with pytest.raises(OpFailed) as err:
        await a.request("chat", {"text": "not in a room"})
    assert err.value.code == "not_joined"
    await a.join(await new_room(server), "Ann")
    for text in ("", "   ", "x" * 301, "bell\x07", "line\nbreak", "y" * 5000):
        with pytest.raises(OpFailed) as err:
            await a.request("chat", {"text": text})
        assert err.value.code == "bad_request", text[:20]
    for payload in ({"text": 5}, {"text": "hi", "html": True}):
        with pytest.raises(OpFailed) as err:
            await a.request("chat", payload)
        assert err.value.code == "bad_request"
    await a.request("chat", {"text": "x" * 300})
    assert [d["text"] for d in a.events("chat")] == ["x" * 300]


async def test_chat_rate_per_identity_across_its_sockets_and_processes(redis_server):
    now = [10_000.0]
    one = await start_server(make_config(redis_server.url, clock=lambda: now[0]))
    two = await start_server(make_config(redis_server.url, clock=lambda: now[0]))
    code = await new_room(one)
    a = await social_client(one.url, "Ann")
    again = await social_client(two.url, None)  # Ann's second page, on the other process
    await again.hello(id=a.identity, secret=a.secret)
    b = await social_client(one.url, "Bob")
    try:
        await a.join(code, "Ann", identity=a.identity)
        await again.join(code, "Ann too", identity=a.identity)
        await b.join(code, "Bob", identity=b.identity)
        for i in range(3):
            await a.request("chat", {"text": f"a{i}"})
        for i in range(2):
            await again.request("chat", {"text": f"again{i}"})
        for c in (again, a):  # five lines from one identity: both its sockets are refused
            with pytest.raises(OpFailed) as err:
                await c.request("chat", {"text": "six"})
            assert err.value.code == "rate_limited" and err.value.payload["retryable"]
        await b.request("chat", {"text": "b has its own"})  # another identity
        now[0] += 10
        await again.request("chat", {"text": "later"})
        got = await b.event("chat", count=7)
        assert got["text"] == "later"
        assert "six" not in [d["text"] for d in b.events("chat")]
    finally:
        for c in (a, again, b):
            await c.close()
        await one.stop()
        await two.stop()


async def test_muted_players_lines_are_not_delivered(server, people):
    code = await new_room(server)
    a = await people("Ann")
    b = await people("Bob")
    c = await people("Cat")
    await b.request("relation", {"id": a.identity, "kind": "mute", "on": True})
    for x in (a, b, c):
        await x.join(code, x.events("hello_ok")[0]["name"], identity=x.identity)
    await a.request("chat", {"text": "from ann"})
    await c.request("chat", {"text": "from cat"})
    await b.event("chat", lambda d: d["text"] == "from cat")
    await c.event("chat", lambda d: d["text"] == "from ann")
    assert [d["text"] for d in b.events("chat")] == ["from cat"]
    late = await people(None)  # b again on another page: history leaves ann out too
    await late.request("hello", {"id": b.identity, "secret": b.secret})
    await late.join(code, "Bob again", identity=b.identity)
    assert [x["text"] for x in (await late.event("chat_history"))["lines"]] == ["from cat"]
