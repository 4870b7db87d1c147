"""A block against people without an identity, over real sockets (issue 17): at a table where a
player present has blocked anybody, a connection that skipped ``hello`` watches but neither sits
(``join`` with a seat, ``seat``) nor chats, and is told why; a connection that said ``hello``
is held to its identity even when its ``join`` leaves the field out; the same in a room made by
a challenge."""

from __future__ import annotations

import pytest

from cardtable_client import OpFailed
from server.social.guard import IDENTITY_REQUIRED_MESSAGE
from tests.conftest import new_room
from tests.server.helpers import server_table


async def refused(client, event: str, payload: dict) -> dict:
    with pytest.raises(OpFailed) as err:
        await client.request(event, payload)
    return err.value.payload


async def test_where_someone_blocks_guests_without_an_identity_watch_only(server, people):
    code = await new_room(server)
    early = await people(None)  # no hello; sits down before anyone who blocks is here
    await early.join(code, "Early")
    ann = await people("Ann")
    bob = await people("Bob")
    await ann.request("relation", {"id": bob.identity, "kind": "block", "on": True})
    await ann.join(code, "Ann")
    guest = await people(None)  # Bob again, without saying hello
    before = await server_table(server, code)
    for extra in ({}, {"seat": "auto"}, {"seat": 3}):
        got = await refused(guest, "join", {"code": code, "name": "Not Bob", **extra})
        assert got["code"] == "identity_required", extra
        assert got["message"] == "You can't sit here: " + IDENTITY_REQUIRED_MESSAGE
    after = await server_table(server, code)
    assert after.version == before.version and after.players.keys() == before.players.keys()

    await guest.join(code, "Watcher", seat=None)  # watching is allowed
    assert guest.seat is None
    watching = (await server_table(server, code)).version
    got = await refused(guest, "seat", {"seat": 3})
    assert got["code"] == "identity_required"
    assert got["message"] == "You can't sit here: " + IDENTITY_REQUIRED_MESSAGE
    for who in (guest, early):  # early keeps its seat, but does not chat either
        got = await refused(who, "chat", {"text": "hello Ann"})
        assert got["code"] == "identity_required"
        assert got["message"] == "You can't chat here: " + IDENTITY_REQUIRED_MESSAGE
    table = await server_table(server, code)
    assert table.version == watching
    assert {p.name: p.seat for p in table.players.values()} == {
        "Early": 0,
        "Ann": 1,
        "Watcher": None,
    }
    await ann.request("chat", {"text": "marker"})
    await guest.event("chat", lambda d: d["text"] == "marker")  # the guest still watches
    assert [d["text"] for d in ann.events("chat")] == ["marker"]

    # The rule follows the blocks of those present: once Ann blocks nobody, guests sit and chat.
    await ann.request("relation", {"id": bob.identity, "kind": "block", "on": False})
    await guest.request("seat", {"seat": 3})
    await guest.request("chat", {"text": "now I may"})
    await ann.event("chat", lambda d: d["text"] == "now I may")


async def test_a_hello_identity_counts_even_when_join_leaves_it_out(server, people):
    code = await new_room(server)
    ann = await people("Ann")
    bob = await people("Bob")
    await ann.request("relation", {"id": bob.identity, "kind": "block", "on": True})
    await ann.join(code, "Ann")  # no ``identity`` field: still Ann's
    got = await refused(bob, "join", {"code": code, "name": "Someone else"})
    assert got["code"] == "blocked"
    got = await refused(bob, "join", {"code": code, "name": "Someone else", "seat": None})
    assert got["code"] == "blocked"  # not even to watch
    assert [p.name for p in (await server_table(server, code)).players.values()] == ["Ann"]

    other = await new_room(server)
    await bob.join(other, "Bob")
    table = await server_table(server, other)
    assert [p.identity for p in table.players.values()] == [bob.identity]
    got = await refused(ann, "join", {"code": other, "name": "Ann"})
    assert got["code"] == "blocked_player_here"  # Ann is warned before sitting with him


async def test_a_room_made_by_a_challenge_is_held_too(server, people):
    ann = await people("Ann")
    bob = await people("Bob")
    carl = await people("Carl")
    await ann.request("relation", {"id": carl.identity, "kind": "block", "on": True})
    sent = await ann.request("challenge", {"to": bob.identity, "game": "gin_rummy"})
    await bob.event("challenged")
    await bob.request("challenge_answer", {"id": sent["id"], "accept": True})
    accepted = await ann.event("challenge_accepted")
    code = accepted["code"]
    await ann.join(code, "Ann", seat=accepted["seat"])
    got = await refused(carl, "join", {"code": code, "name": "Carl", "seat": 1})
    assert got["code"] == "blocked"
    sneaky = await people(None)  # Carl without hello, for Bob's seat
    got = await refused(sneaky, "join", {"code": code, "name": "Bob", "seat": 1})
    assert got["code"] == "identity_required"
    await bob.join(code, "Bob", seat=(await bob.event("challenge_accepted"))["seat"])
    table = await server_table(server, code)
    assert {p.identity: p.seat for p in table.players.values()} == {
        ann.identity: 0,
        bob.identity: 1,
    }
