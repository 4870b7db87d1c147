"""Every event the server sends matches its schema (server/net/events.py), over a real session.

Real clients over loopback record every event they receive (a catch-all handler included, so
an event nobody handles is recorded too) through a session that makes the server send each one:
free-table moves, a drag, errors (one with a game rule), a seat change, host actions, a removed
player, a reconnect with ``since``, a ``sync``, a rule game of Gin Rummy against a computer
played to its end (``outcome``) with a spectator, and hello / relations / lobby / challenges
(declined, cancelled, accepted, expired) / an invite / a rematch / chat. Each payload must
convert, strictly, to the struct of its event name: a field the schema does not name, a missing
one, a wrong type or an event without a struct fails. Each client's game view, patches applied,
must be a ``GameView``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import aiohttp
import msgspec
import pytest

from cardtable_client import OpFailed
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from server.net.events import SERVER_EVENTS, GameView
from tests.conftest import make_config, start_server
from tests.server.helpers import game_after, server_table
from tests.server.test_gin_room import play
from tests.social.helpers import BUILD, SocialClient


class Recorder(SocialClient):
    """A social client that also records the events it has no handler for."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.sio.on("*", self._anything)

    async def _anything(self, event: str, data: Any = None) -> None:
        self.received.append((event, data))
        self._changed.set()


async def _room(url: str, body: dict[str, Any]) -> str:
    async with aiohttp.ClientSession() as http, http.post(f"{url}/api/rooms", json=body) as r:
        assert r.status == 201, await r.text()
        return str((await r.json())["code"])


def check(received: list[tuple[str, Any]]) -> None:
    """Every recorded payload converts strictly to its event's struct."""
    game: dict[str, Any] | None = None
    for name, payload in received:
        assert name in SERVER_EVENTS, f"no schema for the server event {name!r}"
        try:
            msgspec.convert(payload, SERVER_EVENTS[name], strict=True)
        except msgspec.ValidationError as err:
            raise AssertionError(f"{name} {payload!r}: {err}") from None
        if name in ("snapshot", "delta"):
            game = game_after(game, payload)
            if game is not None:
                msgspec.convert(game, GameView, strict=True)


async def test_every_event_a_session_receives_matches_its_schema(redis_server):
    now = [time.time()]
    srv = await start_server(
        make_config(
            redis_server.url, bot_delay_seconds=0.0, heartbeat_seconds=0.3, clock=lambda: now[0]
        )
    )
    made: list[Recorder] = []

    async def person(name: str, hello: bool = True) -> Recorder:
        c = Recorder(srv.url)
        made.append(c)
        await c.connect()
        if hello:
            await c.hello(name)
            await c.online(True)
        return c

    try:
        # --- a free table: moves, a drag, errors, seats, host actions, chat, a reconnect ------
        code = await _room(srv.url, {"template": "standard", "seats": 3})
        ann, ben, cy = await person("Ann"), await person("Ben"), await person("Cy", hello=False)
        await ann.join(code, "Ann", seat=0, identity=ann.identity)
        await ben.join(code, "Ben", seat=1, identity=ben.identity)
        await cy.join(code, "Cy", seat=None)
        deck = next(o for o in ann.objects.values() if o["t"] == "stack" and o["cards"])
        await ann.op("shuffle", id=deck["id"])
        await ann.op("deal", id=deck["id"], n=3)
        await ann.op("take", id=deck["id"])
        card = ann.hand()[0]
        await ann.op("move", id=card, x=700.0, y=400.0, up=True)  # out of a hand: a new id
        card = next(o["id"] for o in ann.objects.values() if o["t"] == "card" and not o["parent"])
        await ann.op("flip", id=card)
        with pytest.raises(OpFailed):
            await ann.op("flip", id="nothing-here")
        await ann.send_raw("drag", {"items": [{"id": card, "x": 710.0, "y": 410.0}]})
        await ben.event("drag")
        await ann.request("rename", {"name": "Anna"})
        await ann.request("host", {"action": "lock"})
        await ann.request("host", {"action": "unlock"})
        await ann.request("host", {"action": "public", "public": True})
        await ben.request("seat", {"seat": None})
        await ben.request("seat", {"seat": 1})
        await ann.request("chat", {"text": "hello, table"})
        await ben.event("chat")
        await ann.request("sync", {"since": 0})
        # Ben drops off and comes back with his token and the version he saw: missed deltas.
        token, since = ben.token, ben.version
        await ben.close()
        await ann.op("flip", id=card)
        ben2 = await person("Ben")
        ben2.version = since  # what it holds: the deltas after it come, not a snapshot
        await ben2.request("join", {"code": code, "token": token, "since": since})
        await ben2.wait_version(ann.version)
        # Cy is removed by the host.
        assert cy.player is not None
        await ann.request("host", {"action": "remove", "player": cy.player})
        await cy.wait_for(lambda: cy.removed is not None)
        late = await person("Dee")
        await late.join(code, "Dee", seat=None, identity=late.identity)
        await late.event("chat_history")

        # --- people: relations, the lobby, challenges ----------------------------------------
        await ann.request("relation", {"id": ben2.identity, "kind": "favourite", "on": True})
        await ann.request("lobby", {"page": 0})
        for answer in ("decline", "cancel", "accept", "expire"):
            sent = await ann.request("challenge", {"to": ben2.identity, "game": "gin_rummy"})
            await ben2.event("challenged", lambda d, i=sent["id"]: d["id"] == i)
            if answer == "cancel":
                await ann.request("challenge_cancel", {"id": sent["id"]})
                await ben2.event("challenge_cancelled")
            elif answer == "expire":
                now[0] += 3600  # the heartbeat's sweep finds it expired
                await ann.event("challenge_expired")
            else:
                accept = answer == "accept"
                await ben2.request("challenge_answer", {"id": sent["id"], "accept": accept})
                await ann.event("challenge_accepted" if accept else "challenge_declined")
        # An invite to Ann's table, accepted; her favourites online (whom she may invite).
        await ann.request("favourites_online", {})
        invite = await ann.request("challenge", {"to": ben2.identity, "room": code})
        await ben2.event("challenged", lambda d, i=invite["id"]: d["id"] == i)
        await ben2.request("challenge_answer", {"id": invite["id"], "accept": True})
        await ben2.event("challenge_accepted", lambda d, i=invite["id"]: d["id"] == i)
        await ann.event("invite_accepted")

        # --- Gin Rummy against a computer, to the end of the game, with a spectator ----------
        gin = await _room(srv.url, {"game": "gin_rummy", "options": {"target": 100}})
        await ann.join(gin, "Ann", seat=0, identity=ann.identity)
        await late.join(gin, "Dee", seat=None, identity=late.identity)
        await ann.request("host", {"action": "bot", "seat": 1})
        await ann.wait_for(lambda: ann.game is not None and not ann.game["waiting"])
        rng = random.Random(5)
        refused = False
        for _ in range(5000):
            table = await server_table(srv, gin)
            await ann.wait_version(table.version)
            state = ENGINE.load(table.game.state)
            if state.phase == "game_over":
                break
            legal = ENGINE.legal_actions(state, 0)
            if not legal:  # the computer's turn: it moves by itself
                await ann.wait_version(table.version + 1, timeout=10)
                continue
            if not refused:  # a move against the rules: an error with the rule's code
                refused = True
                with pytest.raises(OpFailed) as err:
                    await ann.op("move", id=ann.hand()[0], to="stock")
                assert err.value.payload.get("rule")
            await play(ann, choose_action(ENGINE, state, 0, rng))
            await ann.wait_version(table.version + 1)
        assert ann.game is not None and ann.game["outcome"] is not None
        await late.wait_version(ann.version)
        await ann.request("rematch", {})  # a new room of the same game, the computer kept
    finally:
        for c in made:
            await c.close()
        await srv.stop()

    seen = {name for c in made for name, _ in c.received}
    assert seen >= set(SERVER_EVENTS), f"never received: {set(SERVER_EVENTS) - seen}"
    assert any("game_patch" in d for c in made for n, d in c.received if n == "delta")
    for c in made:
        check(c.received)


def test_a_field_outside_the_schema_fails() -> None:
    ack = SERVER_EVENTS["ack"]
    msgspec.convert({"ref": 1, "v": 2}, ack, strict=True)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"ref": 1, "v": 2, "stray": True}, ack, strict=True)
    assert BUILD  # the recorder's hello says the server's build
