"""Identities without accounts over real sockets: made by the server or the page, a forged one
refused, names kept per identity, and the version check."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from server.net.http import CONFIG_KEY
from tests.conftest import new_room
from tests.server.helpers import server_table
from tests.social.helpers import SocialClient


async def test_server_makes_an_identity_and_recognises_it_later(server, people):
    first = await people(None)
    got = await first.request("hello", {"name": "Bea"})
    assert got["name"] == "Bea" and len(got["secret"]) >= 16 and got["id"]
    assert (await first.event("relations")) == {"block": [], "mute": [], "favourite": []}
    again = await people(None)
    back = await again.request("hello", {"id": got["id"], "secret": got["secret"]})
    assert (back["id"], back["name"]) == (got["id"], "Bea")  # the name is kept per identity


async def test_a_known_id_with_another_secret_is_refused(people):
    owner = await people("Owner")
    thief = await people(None)
    with pytest.raises(OpFailed) as err:
        await thief.request("hello", {"id": owner.identity, "secret": "x" * 24, "name": "Owner"})
    assert err.value.code == "bad_identity"
    with pytest.raises(OpFailed) as err:
        await thief.request("hello", {"id": owner.identity})
    assert err.value.code == "bad_identity"
    with pytest.raises(OpFailed) as err:  # still refused: nothing changed the stored secret
        await thief.request("lobby", {})
    assert err.value.code == "no_identity"
    # The owner's name was not changed by the forger.
    again = await people(None)
    assert (await again.request("hello", {"id": owner.identity, "secret": owner.secret}))[
        "name"
    ] == "Owner"


async def test_malformed_identities_are_bad_requests(people):
    c = await people(None)
    for payload in (
        {"id": "short", "secret": "s" * 20},
        {"id": "has space in", "secret": "s" * 20},
        {"id": "u" * 10, "secret": "tooshort"},
        {"secret": "s" * 20},
        {"name": "<" * 40},
    ):
        with pytest.raises(OpFailed) as err:
            await c.request("hello", payload)
        assert err.value.code == "bad_request", payload


async def test_events_need_an_identity(people):
    c = await people(None)
    for event, payload in (
        ("online", {"on": True}),
        ("lobby", {}),
        ("challenge", {"to": "u" * 10, "game": "gin_rummy"}),
        ("challenge_answer", {"id": "x", "accept": True}),
        ("relation", {"id": "u" * 10, "kind": "mute", "on": True}),
    ):
        with pytest.raises(OpFailed) as err:
            await c.request(event, payload)
        assert err.value.code == "no_identity", event


async def test_an_old_page_is_told_to_reload_and_refused_from_then_on(server, people):
    c = await people(None)
    with pytest.raises(OpFailed) as err:
        await c.request("hello", {"build": "0.0.0-old"})
    assert err.value.payload["code"] == "out_of_date"
    assert err.value.payload["message"] == "App out of date — reload to keep playing"
    assert not err.value.payload.get("retryable")
    code = await new_room(server)
    for event, payload in (
        ("hello", {"build": server.app[CONFIG_KEY].build}),
        ("join", {"code": code, "name": "Old"}),
        ("lobby", {}),
    ):
        with pytest.raises(OpFailed) as err:
            await c.request(event, payload)
        assert err.value.code == "out_of_date", event
    assert (await server_table(server, code)).players == {}


async def test_a_page_that_says_no_build_is_out_of_date(server, people):
    c = await people(None)  # the web client always says its build: a page that doesn't is old
    with pytest.raises(OpFailed) as err:
        await c.request("hello", {"name": "Old", "build": None})
    assert err.value.code == "out_of_date" and not err.value.payload.get("retryable")
    with pytest.raises(OpFailed) as err:  # and the socket stays refused
        await c.request("lobby", {})
    assert err.value.code == "out_of_date"


async def test_the_current_build_is_welcome(server, people):
    c = await people(None)
    got = await c.request("hello", {"name": "New", "build": server.app[CONFIG_KEY].build})
    assert got["name"] == "New"


async def test_join_carries_only_the_connections_own_identity(server, people):
    code = await new_room(server)
    a = await people("Ann")
    b = await people("Bob")
    with pytest.raises(OpFailed) as err:
        await b.join(code, "Bob", identity=a.identity)
    assert err.value.code == "bad_identity"
    anon = SocialClient(server.url)
    await anon.connect()
    try:
        with pytest.raises(OpFailed) as err:
            await anon.join(code, "Anon", identity=a.identity)
        assert err.value.code == "no_identity"
    finally:
        await anon.close()
    await a.join(code, "Ann", identity=a.identity)
    table = await server_table(server, code)
    assert [p.identity for p in table.players.values()] == [a.identity]
