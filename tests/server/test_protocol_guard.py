"""Only documented events reach handlers, every event gets exactly one documented answer, and no
client input puts a traceback in the server log.

These speak raw Engine.IO/Socket.IO frames over a websocket, as an attacker would: the Python
Socket.IO client refuses to send reserved names such as ``connect``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import aiohttp
import pytest

from cardtable_client import TableClient
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import server_table


class RawSocket:
    """A websocket speaking Socket.IO frames by hand; answers pings, collects events."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[tuple[str, Any]] = []

    @classmethod
    async def open(cls, http: aiohttp.ClientSession, url: str) -> RawSocket:
        ws = await http.ws_connect(f"{url}/socket.io/?EIO=4&transport=websocket", max_msg_size=0)
        assert (await ws.receive_str()).startswith("0{")
        await ws.send_str("40")
        assert (await ws.receive_str()).startswith("40")
        return cls(ws)

    async def send(self, frame: str | bytes) -> None:
        if isinstance(frame, bytes):
            await self.ws.send_bytes(frame)
        else:
            await self.ws.send_str(frame)

    async def emit(self, *args: Any) -> None:
        await self.send("42" + json.dumps(list(args)))

    async def next(self, *names: str, timeout: float = 5.0) -> tuple[str, Any]:
        """The next event (of one of ``names``, if given), skipping others."""
        while True:
            msg = await asyncio.wait_for(self.ws.receive(), timeout)
            assert msg.type == aiohttp.WSMsgType.TEXT, f"socket closed: {msg}"
            text: str = msg.data
            if text == "2":
                await self.ws.send_str("3")
                continue
            assert text.startswith("42"), text
            name, *rest = json.loads(text[2:])
            self.events.append((name, rest[0] if rest else None))
            if not names or name in names:
                return name, rest[0] if rest else None

    async def join(self, code: str, name: str) -> dict[str, Any]:
        await self.emit("join", {"code": code, "name": name})
        _, joined = await self.next("joined")
        await self.next("snapshot")
        return joined


async def _error(sock: RawSocket) -> dict[str, Any]:
    name, data = await sock.next("error", "ack", "joined")
    assert name == "error", (name, data)
    return data


async def test_a_fake_disconnect_is_refused_and_the_seat_stays(server, make_client):
    code = await new_room(server)
    async with aiohttp.ClientSession() as http:
        ana = await RawSocket.open(http, server.url)
        joined = await ana.join(code, "Ana")
        for frame in ('42["disconnect"]', '42["disconnect",{}]', '42["disconnect","x"]'):
            await ana.send(frame)
            assert (await _error(ana))["code"] == "bad_request"
        ben: TableClient = await make_client()
        await ben.join(code, "Ben")
        assert ben.seat == 1  # seat 0 is still Ana's: the fake disconnect released nothing
        table = await server_table(server, code)
        assert table.players[joined["player"]].seat == 0
        assert table.players[joined["player"]].status == "online"
        await ana.emit("op", {"op": "flip", "id": "deck", "ref": 5})
        name, ack = await ana.next("ack", "error")
        assert name == "ack" and ack["ref"] == 5  # still fully joined, not half-joined
        await ana.ws.close()


async def test_a_fake_connect_does_not_reset_the_join_limit(private_redis):
    srv = await start_server(make_config(private_redis.url, joins_per_minute=3))
    try:
        async with aiohttp.ClientSession() as http:
            sock = await RawSocket.open(http, srv.url)
            got = []
            for i in range(5):
                if i == 3:
                    await sock.emit("connect", {"REMOTE_ADDR": "10.9.8.7"})
                    assert (await _error(sock))["code"] == "bad_request"
                await sock.emit("join", {"code": "ZZZZZZZZ", "name": "guess", "ref": i})
                got.append((await _error(sock))["code"])
            assert got == ["room_not_found"] * 3 + ["rate_limited"] * 2
            await sock.ws.close()
    finally:
        await srv.stop()


async def test_a_fake_connect_does_not_reset_the_op_rate_limit(redis_server):
    # A burst of four events and no refill at all: what is spent stays spent.
    srv = await start_server(make_config(redis_server.url, ops_burst=4, ops_per_second=0.0))
    try:
        code = await new_room(srv)
        async with aiohttp.ClientSession() as http:
            sock = await RawSocket.open(http, srv.url)
            await sock.join(code, "Ana")  # the first of the four
            for ref in (1, 2, 3):
                await sock.emit("op", {"op": "flip", "id": "deck", "ref": ref})
                name, ack = await sock.next("ack", "error")
                assert name == "ack" and ack["ref"] == ref, ack
            spent = (await server_table(srv, code)).version
            await sock.emit("op", {"op": "flip", "id": "deck", "ref": 4})
            err = await _error(sock)
            assert err["code"] == "rate_limited" and err["retryable"] is True
            for frame in ({"REMOTE_ADDR": "10.9.8.7"}, {}):
                await sock.emit("connect", frame)
                assert (await _error(sock))["code"] == "bad_request"
                await sock.emit("op", {"op": "flip", "id": "deck", "ref": 5})
                err = await _error(sock)
                assert err["code"] == "rate_limited" and err["ref"] == 5, err
            assert (await server_table(srv, code)).version == spent
            await sock.ws.close()
    finally:
        await srv.stop()


@pytest.mark.parametrize(
    "event",
    [
        "*",
        "connect_error",
        "joined",
        "snapshot",
        "delta",
        "ack",
        "__disconnect_final",
        "Join",
        "message",
    ],
)
async def test_undocumented_event_names_get_bad_request(server, event):
    code = await new_room(server)
    async with aiohttp.ClientSession() as http:
        sock = await RawSocket.open(http, server.url)
        await sock.join(code, "Eve")
        before = (await server_table(server, code)).version
        await sock.emit(event, {"code": code, "name": "x", "ref": 3})
        err = await _error(sock)
        assert err["code"] == "bad_request" and err["ref"] == 3
        assert "Unknown event" in err["message"]
        assert (await server_table(server, code)).version == before
        await sock.ws.close()


async def _joined_pair(server: Any, http: aiohttp.ClientSession) -> tuple[str, RawSocket]:
    code = await new_room(server)
    sock = await RawSocket.open(http, server.url)
    await sock.join(code, "Vic")
    return code, sock


# One bad event each; the answer must be exactly one error with this code, and nothing changes.
STRICT_CASES: list[tuple[str, str]] = [
    ('42["join",{"code":"%s","name":"A","colour":"red"}]', "bad_request"),  # unknown field
    ('42["join",{"code":"%s","name":"A","seat":"front"}]', "bad_request"),
    ('42["seat",{}]', "bad_request"),  # no seat: must not silently unseat
    ('42["seat",{"seat":1,"extra":true}]', "bad_request"),
    ('42["game",{"action":{"type":"draw"},"why":1}]', "bad_request"),
    ('42["game",{}]', "bad_request"),
    ('42["host",{"action":"lock","player":"p1"}]', "bad_request"),
    ('42["host",{"action":"explode"}]', "bad_request"),
    ('42["rename",{"name":"Bo","ref":true}]', "bad_request"),
    ('42["op",{"op":"flip","id":"deck","ref":{"a":1}}]', "bad_request"),  # invalid ref
    ('42["op",{"op":"flip","id":"deck","ref":"%s"}]' % ("r" * 65), "bad_request"),
    ('42["op",{"op":"flip","id":"deck"},{"more":1}]', "bad_request"),  # extra argument
    ('42["op",{"op":"move","id":"deck","to":"hand0","index":-1}]', "bad_request"),
    ('42["op",{"op":"create","kind":"label","x":1,"y":1,"text":"\\ud800"}]', "bad_request"),
    ('42["op",{"op":"create","kind":"deck","x":1,"y":1,"faces":["A\\udfff"]}]', "bad_request"),
    ('42["rename",{"name":"\\udc00x"}]', "bad_request"),
    ('42["op",{"op":"flip","id":"deck","ref":"\\ud800"}]', "bad_request"),  # unencodable ref
    ('42["sync",{"since":-1}]', "bad_request"),
    ('42["drag",{"items":[{"id":"deck","x":1,"y":2,"z":3}]}]', "bad_request"),
    ("42", "bad_request"),
    ("42{}", "bad_request"),
    ('42[["op"]]', "bad_request"),
    ("42[]", "bad_request"),
    ('42[7,{"op":"flip"}]', "bad_request"),
    ('42/other,["op",{"op":"flip","id":"deck"}]', "bad_request"),
    ('44["op"]', "bad_request"),
    ("4", "bad_request"),
    ("4garbage", "bad_request"),
]


@pytest.mark.parametrize(("frame", "code"), STRICT_CASES)
async def test_every_bad_event_gets_one_error_and_changes_nothing(server, frame, code):
    async with aiohttp.ClientSession() as http:
        room, sock = await _joined_pair(server, http)
        before = (await server_table(server, room)).version
        await sock.send(frame.replace("%s", room) if "%s" in frame else frame)
        err = await _error(sock)
        assert err["code"] == code, err
        await sock.emit("sync", {"since": 10_000, "ref": "probe"})
        # The next answer is the probe's: exactly one answer came for the bad frame.
        name, data = await sock.next("ack", "error", "joined")
        assert name == "ack" and data["ref"] == "probe", (name, data)
        assert (await server_table(server, room)).version == before
        assert not sock.ws.closed


async def test_binary_garbage_and_huge_frames_are_answered_not_dropped(server):
    async with aiohttp.ClientSession() as http:
        room, sock = await _joined_pair(server, http)
        await sock.send(b"\x00\xff\xfe garbage \x01")
        assert (await _error(sock))["code"] == "bad_request"
        big = '42["op",{"op":"create","kind":"label","x":1,"y":1,"text":"' + "x" * 1_500_000
        await sock.send(big + '"}]')
        assert (await _error(sock))["code"] == "too_large"
        await sock.emit("op", {"op": "flip", "id": "deck", "ref": 1})
        name, ack = await sock.next("ack", "error")
        assert name == "ack" and ack["ref"] == 1
        assert (await server_table(server, room)).version == ack["v"]


async def test_a_failed_second_join_keeps_the_connection_in_its_room(server, make_client):
    async with aiohttp.ClientSession() as http:
        room, sock = await _joined_pair(server, http)
        for bad in (
            {"code": "QQQQQQQQ", "name": "x"},
            {"code": room, "name": ""},
            {"code": room, "token": "not-a-token"},
        ):
            await sock.emit("join", bad)
            assert (await _error(sock))["code"] in ("room_not_found", "bad_request", "bad_token")
        other: TableClient = await make_client()
        await other.join(room, "Other")
        ack = await other.op("flip", id="deck")
        while True:  # the other player's flip still reaches this connection
            name, data = await sock.next("delta")
            if data["v"] == ack["v"]:
                break
        await sock.emit("op", {"op": "flip", "id": "deck", "ref": 9})
        name, data = await sock.next("ack", "error")
        assert name == "ack", data


async def test_the_hostile_suite_leaves_no_traceback_in_the_log(server, caplog):
    caplog.set_level(logging.DEBUG)
    async with aiohttp.ClientSession() as http:
        room, sock = await _joined_pair(server, http)
        for frame, _ in STRICT_CASES:
            await sock.send(frame.replace("%s", room) if "%s" in frame else frame)
            await _error(sock)
        for frame in (
            '42["connect",{"REMOTE_ADDR":"1.2.3.4"}]',
            '42["disconnect"]',
            '42["*","op",{}]',
            b"\x93\x01\x02",
            '42["op",' + "[" * 5000 + "]" * 5000 + "]",
            '42["join",{"code":"' + "A" * 5000 + '","name":"x"}]',
        ):
            await sock.send(frame)
            await _error(sock)
        await sock.emit("sync", {"since": 0, "ref": "end"})
        await sock.next("ack")
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [f"{r.name}: {r.getMessage()}" for r in bad]


@pytest.mark.parametrize(
    "body",
    [
        {"template": "standard", "colour": "red"},  # unknown field
        {"game": "gin_rummy", "seats": 3},  # a game room's seats come from the game
        {"game": "gin_rummy", "template": "standard"},
        {"options": {"target": 100}},  # options without a game
        {"seats": "four"},
        {"template": "standard\ud800"},
        {"game": "gin_rummy", "options": {"target": 7}},
        {"game": "no_such_game"},
    ],
)
async def test_room_creation_is_as_strict_as_the_doc(server, body):
    async with aiohttp.ClientSession() as http:
        raw = json.dumps(body)  # lone surrogates survive as \\ud800 escapes
        async with http.post(
            f"{server.url}/api/rooms", data=raw, headers={"Content-Type": "application/json"}
        ) as r:
            got = await r.json()
            assert r.status == 400, got
            assert got["code"] == "bad_request" and got["message"]


async def test_games_are_listed_with_their_options_as_data(server):
    async with aiohttp.ClientSession() as http, http.get(f"{server.url}/api/games") as r:
        games = {g["name"]: g for g in await r.json()}
    assert set(games) == {"gin_rummy", "spades", "rummy", "pennies"}
    assert games["spades"]["min_players"] == 4 == games["spades"]["max_players"]
    target = next(o for o in games["spades"]["options"] if o["name"] == "target")
    assert target["default"] == 500 and 500 in target["choices"] and target["label"]
    assert any(o["name"] == "fill" for o in games["rummy"]["options"])
