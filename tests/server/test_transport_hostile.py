"""Hostile input below and around the events: Socket.IO packets a client may not send (ACK,
binary), Engine.IO packets it may not send (over a websocket and over long-polling), ``ref:
null``, text that is not valid Unicode on every HTTP route, wrong methods on every route, and
requests aiohttp cannot parse. Each gets the documented error and keeps what should be kept.

Each check is a battery (an ``async def`` taking the running server) run by its own test and,
all together, by the last test, which then asserts that the server's log holds no traceback
and no ERROR line. Everything runs over real sockets against a real server and redis-server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import signal
from pathlib import Path
from typing import Any

import aiohttp
import msgpack

from server.app import SIO_KEY
from server.net.messages import CLIENT_EVENTS
from tests.cluster.procs import ServerProcess
from tests.conftest import RunningServer, new_room
from tests.server.helpers import server_table
from tests.server.test_protocol_guard import STRICT_CASES, RawSocket

PNG = b"\x89PNG\r\n\x1a\n" + b"\x07" * 64
ANSWERS = ("error", "ack", "joined", "hello_ok", "lobby", "challenge_sent")
JSON_ERROR_KEYS = {"code", "message", "ref"}


# --- helpers --------------------------------------------------------------------------------


async def joined_socket(
    server: RunningServer, http: aiohttp.ClientSession
) -> tuple[str, RawSocket]:
    code = await new_room(server)
    sock = await RawSocket.open(http, server.url)
    await sock.join(code, "Vic")
    return code, sock


async def one_answer_then_probe(sock: RawSocket) -> tuple[str, Any]:
    """The answer to the frame just sent, and proof it was the only one: the next answer is
    the probe's."""
    answer = await sock.next(*ANSWERS)
    await sock.emit("sync", {"since": 10_000, "ref": "probe"})
    name, data = await sock.next(*ANSWERS)
    assert (name, data["ref"]) == ("ack", "probe"), (answer, name, data)
    assert not sock.ws.closed
    return answer


class Polling:
    """A Socket.IO session over Engine.IO long-polling, spoken by hand."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http = http
        self.base = f"{base}/socket.io/?EIO=4&transport=polling"
        self.url = ""

    async def open(self) -> Polling:
        async with self.http.get(self.base) as r:
            sid = json.loads((await r.text())[1:])["sid"]
        self.url = f"{self.base}&sid={sid}"
        assert await self.post("40") == 200
        async with self.http.get(self.url) as r:
            assert (await r.text()).startswith("40")
        return self

    async def post(self, body: str | bytes) -> int:
        async with self.http.post(self.url, data=body, timeout=aiohttp.ClientTimeout(total=5)) as r:
            await r.read()
            return r.status

    async def until_probe(self) -> list[tuple[str, Any]]:
        """Events received until the answer to a ``sync`` probe (sent here)."""
        assert await self.post('42["sync",{"since":10000,"ref":"probe"}]') == 200
        got: list[tuple[str, Any]] = []
        while not any(isinstance(d, dict) and d.get("ref") == "probe" for _, d in got):
            async with self.http.get(self.url, timeout=aiohttp.ClientTimeout(total=5)) as r:
                assert r.status == 200, await r.text()
                for packet in (await r.text()).split("\x1e"):
                    if packet.startswith("42"):
                        name, *rest = json.loads(packet[2:])
                        got.append((name, rest[0] if rest else None))
        return got


async def raw_http(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are (no client library tidies them) and read the whole answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def assert_json_error(
    status: int, headers: Any, body: bytes | dict[str, Any], code: str, expected_status: int
) -> None:
    got = json.loads(body) if isinstance(body, bytes) else body
    assert status == expected_status, (status, got)
    assert set(got) == JSON_ERROR_KEYS and got["code"] == code and got["message"], got
    assert got["ref"] is None
    assert "script-src 'self'" in headers.get("content-security-policy", ""), headers
    assert headers.get("x-content-type-options") == "nosniff"


# --- Socket.IO packets a client may not send -------------------------------------------------


async def ack_and_binary_packets(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        room, sock = await joined_socket(server, http)
        start = (await server_table(server, room)).version
        # A client ACK: the server never asked for one.
        await sock.send('431["x"]')
        name, err = await one_answer_then_probe(sock)
        assert (name, err["code"]) == ("error", "bad_request") and "ACK" in err["message"]
        # A binary event whose attachment never comes: refused at once, and the next event is
        # that event, not the missing attachment.
        await sock.send(
            '451-["op",{"op":"flip","id":"deck","ref":7,"blob":{"_placeholder":true,"num":0}}]'
        )
        name, err = await sock.next(*ANSWERS)
        assert (name, err["code"], err["ref"]) == ("error", "bad_request", 7), err
        assert "Binary events" in err["message"]
        await sock.emit("op", {"op": "flip", "id": "deck", "ref": 8})
        name, ack = await sock.next(*ANSWERS)
        assert (name, ack["ref"]) == ("ack", 8), (name, ack)
        # A binary event whose attachments do come: one answer, the attachments are dropped.
        await sock.send(
            '452-["op",{"op":"flip","id":"deck","ref":9,'
            '"a":{"_placeholder":true,"num":0},"b":{"_placeholder":true,"num":1}}]'
        )
        await sock.send(b"\x01\x02")
        await sock.send(b"\x03")
        name, err = await one_answer_then_probe(sock)
        assert (name, err["code"], err["ref"]) == ("error", "bad_request", 9)
        await sock.send('461-[{"_placeholder":true,"num":0}]')  # a binary ACK
        await sock.send(b"\x04")
        name, err = await one_answer_then_probe(sock)
        assert (name, err["code"]) == ("error", "bad_request")
        await sock.send(b"\x05 binary, unasked")  # binary data alone is answered
        name, err = await one_answer_then_probe(sock)
        assert (name, err["code"]) == ("error", "bad_request") and "Binary" in err["message"]
        assert (await server_table(server, room)).version == start + 1  # only ref 8 applied
        await sock.ws.close()


async def test_client_ack_and_binary_packets_get_one_error_and_swallow_nothing(server):
    await ack_and_binary_packets(server)


# --- the msgpack wire --------------------------------------------------------------------------


class RawMsgpack:
    """A websocket speaking msgpack Socket.IO packets by hand (socket.io-msgpack-parser's shape:
    one binary frame per packet, ``{type, nsp, data, id?}``)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, http: aiohttp.ClientSession, url: str) -> RawMsgpack:
        ws = await http.ws_connect(f"{url}/socket.io/?EIO=4&transport=websocket", max_msg_size=0)
        assert (await ws.receive_str()).startswith("0{")  # Engine.IO's OPEN: always text
        await ws.send_bytes(msgpack.packb({"type": 0, "nsp": "/"}))
        answer = msgpack.unpackb(await ws.receive_bytes())
        assert answer["type"] == 0 and "sid" in answer["data"], answer
        return cls(ws)

    async def emit(self, name: str, payload: Any) -> None:
        await self.ws.send_bytes(msgpack.packb({"type": 2, "nsp": "/", "data": [name, payload]}))

    async def next(self, *names: str, timeout: float = 5.0) -> tuple[str, Any]:
        while True:
            msg = await asyncio.wait_for(self.ws.receive(), timeout)
            if msg.type == aiohttp.WSMsgType.TEXT and msg.data == "2":
                await self.ws.send_str("3")
                continue
            assert msg.type == aiohttp.WSMsgType.BINARY, f"not a msgpack frame: {msg}"
            pkt = msgpack.unpackb(msg.data)
            assert pkt["type"] == 2 and pkt["nsp"] == "/", pkt
            name, payload = pkt["data"]
            if name in names:
                return name, payload

    async def answer_then_probe(self, frame: bytes = b"") -> dict[str, Any]:
        """The one error answering the frame just sent; the probe's ack proves it was the only
        answer and the connection still works."""
        name, err = await self.next(*ANSWERS)
        assert name == "error", (frame[:60], name, err)
        await self.emit("sync", {"since": 10_000, "ref": "probe"})
        name, data = await self.next(*ANSWERS)
        assert (name, data["ref"]) == ("ack", "probe"), (err, name, data)
        return err


def _event(data: Any, **extra: Any) -> bytes:
    return msgpack.packb({"type": 2, "nsp": "/", "data": data, **extra})


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# Frames a msgpack connection may send that are no packet of JSON values: each gets bad_request.
BAD_MSGPACK = [
    b"\xc1",  # never used in msgpack
    b"\x92\x01",  # an array cut short
    msgpack.packb([2, "/", ["op", {}]]),  # not a map
    msgpack.packb({"type": 9, "nsp": "/", "data": []}),
    msgpack.packb({"type": "2", "nsp": "/", "data": []}),
    msgpack.packb({"type": 2, "nsp": 7, "data": ["op", {}]}),
    msgpack.packb({"type": 2, "nsp": "/", "data": ["op", {}], "id": "x"}),
    msgpack.packb({"type": 2, "nsp": "/", "data": ["op", {1: "flip"}]}, strict_types=False),
    msgpack.packb({1: 2}),  # a non-str key at the top
    _event(["op", {"op": "flip", "id": "deck", "x": b"bytes"}]),
    _event(["op", {"op": "flip", "id": "deck", "x": msgpack.ExtType(5, b"ext")}]),
    _event(["op", {"op": "flip", "id": "deck", "x": msgpack.ExtType(0, b"\x01")}]),
    _event(["op", {"op": "flip", "id": "deck", "x": msgpack.Timestamp(1, 0)}]),
    b"\x91" * 100_000 + b"\xc0",  # arrays nested 100,000 deep
    _event(["op", {"x": _nested(70)}]),  # over the 64 levels JSON-like values may nest
    msgpack.packb({"type": 3, "nsp": "/", "data": ["x"], "id": 1}),  # an ACK
    msgpack.packb({"type": 5, "nsp": "/", "data": ["op", {}]}),  # a BINARY_EVENT
    msgpack.packb({"type": 2, "nsp": "/", "data": ["connect", {}]}),
    msgpack.packb({"type": 2, "nsp": "/", "data": "op"}),
    msgpack.packb({"type": 2, "nsp": "/other", "data": ["op", {}]}),
]


async def msgpack_frames(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        room = await new_room(server)
        sock = await RawMsgpack.open(http, server.url)
        await sock.emit("join", {"code": room, "name": "Mia"})
        await sock.next("snapshot")
        start = (await server_table(server, room)).version
        for frame in BAD_MSGPACK:
            await sock.ws.send_bytes(frame)
            err = await sock.answer_then_probe(frame)
            assert err["code"] == "bad_request", (frame[:40], err)
        # Undefined (notepack's fixext) is what JSON.stringify makes of it: a dropped key.
        await sock.ws.send_bytes(
            _event(["op", {"op": "flip", "id": "deck", "ref": 4, "x": msgpack.ExtType(0, b"\x00")}])
        )
        name, ack = await sock.next(*ANSWERS)
        assert (name, ack["ref"]) == ("ack", 4), (name, ack)
        # Text on a msgpack connection, and a frame over the limit.
        await sock.ws.send_str('42["op",{"op":"flip","id":"deck"}]')
        err = await sock.answer_then_probe()
        assert err["code"] == "bad_request" and "msgpack" in err["message"]
        limit = server.app[SIO_KEY].frame_limit
        await sock.ws.send_bytes(_event(["op", {"op": "flip", "pad": "x" * limit}]))
        err = await sock.answer_then_probe()
        assert err["code"] == "too_large"
        assert (await server_table(server, room)).version == start + 1  # only ref 4 applied
        assert not sock.ws.closed
        await sock.ws.close()


async def test_hostile_msgpack_frames_get_one_error_and_change_nothing(server):
    await msgpack_frames(server)


# --- Engine.IO packets a client may not send -------------------------------------------------

# Empty, not a type, types 7-9, a non-ASCII digit int() would take, bad base64, and packets
# only a server sends (OPEN, NOOP; a PING other than the websocket upgrade's probe).
BAD_EIO = ["", "x", "7", "9", "9{}", "\u0663", "bA", "0", "6", "2"]


async def engine_io_over_websocket(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        room, sock = await joined_socket(server, http)
        for frame in BAD_EIO:
            await sock.send(frame)
            name, err = await one_answer_then_probe(sock)
            assert (name, err["code"]) == ("error", "bad_request"), (frame, err)
            assert "Engine.IO" in err["message"], (frame, err)
        await sock.emit("op", {"op": "flip", "id": "deck", "ref": 1})
        assert (await sock.next(*ANSWERS))[0] == "ack"  # still joined and served
        await sock.ws.close()


async def engine_io_over_polling(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        for body in [*BAD_EIO[1:], "2probe", "\x1e".join(["3"] * 17), b"4\xff\xfe"]:
            session = await Polling(http, server.url).open()
            assert await session.post(body) == 200, body
            got = await session.until_probe()
            errors = [d for n, d in got if n == "error" and d["ref"] != "probe"]
            assert len(errors) == 1 and errors[0]["code"] == "bad_request", (body, got)
            assert "Engine.IO" in errors[0]["message"]
        # A POST for a session the client has just closed: the library's 400, not a 500.
        session = await Polling(http, server.url).open()
        assert await session.post("1") == 200
        assert await session.post('42["sync",{"since":0}]') == 400


async def test_engine_io_packets_a_client_may_not_send_are_refused_over_a_websocket(server):
    await engine_io_over_websocket(server)


async def test_engine_io_packets_a_client_may_not_send_are_refused_over_long_polling(server):
    await engine_io_over_polling(server)


# --- ref: null --------------------------------------------------------------------------------

REF_NULL: dict[str, dict[str, Any]] = {
    "join": {"code": "%s", "name": "Nul"},
    "op": {"op": "flip", "id": "deck"},
    "seat": {"seat": 2},
    "rename": {"name": "Nul"},
    "game": {"action": {"type": "pass"}},
    "host": {"action": "lock"},
    "drag": {"items": [{"id": "deck", "x": 1, "y": 2}]},
    "sync": {"since": 0},
    "hello": {"build": "x"},
    "online": {"on": True},
    "lobby": {},
    "challenge": {"to": "someone-else", "game": "spades"},
    "challenge_answer": {"id": "c1", "accept": True},
    "challenge_cancel": {"id": "c1"},
    "rematch": {},
    "favourites_online": {},
    "relation": {"id": "someone-else", "kind": "mute", "on": True},
    "chat": {"text": "hi"},
    "fair": {"deal": 1, "value": "0" * 32},
}


async def ref_null_everywhere(server: RunningServer) -> None:
    assert set(REF_NULL) == CLIENT_EVENTS  # every event that takes a ref
    async with aiohttp.ClientSession() as http:
        for event, payload in REF_NULL.items():
            room, sock = await joined_socket(server, http)
            before = await server_table(server, room)
            body = {k: (room if v == "%s" else v) for k, v in payload.items()}
            await sock.emit(event, {**body, "ref": None})
            name, err = await one_answer_then_probe(sock)
            assert (name, err.get("code")) == ("error", "bad_request"), (event, name, err)
            assert "ref" in err["message"], (event, err)
            after = await server_table(server, room)
            assert (after.version, len(after.players)) == (before.version, len(before.players))
            await sock.ws.close()


async def test_ref_null_is_refused_by_every_event(server):
    await ref_null_everywhere(server)


# --- HTTP: text that is not valid Unicode ----------------------------------------------------


def _game_file(**over: Any) -> dict[str, Any]:
    return {
        "format": "cardtable-game",
        "version": 1,
        "title": "T",
        "seats": 2,
        "objects": [{"kind": "label", "id": "note", "text": "Hi"}],
        **over,
    }


async def lone_surrogates_on_every_route(server: RunningServer, make_client: Any) -> None:
    code = await new_room(server)
    host = await make_client()
    await host.join(code, "Host", seat=0)
    bad = "x\ud800"
    bodies: list[tuple[str, Any]] = [
        ("/api/rooms", {"game_file": _game_file(title=bad)}),
        ("/api/rooms", {"game_file": _game_file(description="\udfffy")}),
        (
            "/api/rooms",
            {
                "game_file": _game_file(
                    objects=[{"kind": "pile", "id": "p", "cards": [{"text": bad, "count": 2}]}]
                )
            },
        ),
        ("/api/rooms", {"game_file": _game_file(images={bad: "AAAA"})}),
        ("/api/rooms", {"game_file": {"version": 0, "name": bad, "seats": 2, "decks": []}}),
        ("/api/rooms", {"library": bad}),
        ("/api/rooms", {"template": bad}),
        ("/api/rooms", {"game": "spades", "options": {bad: 1}}),
        ("/api/decks/parse", {"text": f"3 {bad}", "format": "list"}),
        ("/api/decks/parse", {"text": f"text,count\n{bad},1", "format": "csv"}),
    ]
    async with aiohttp.ClientSession() as http:
        for path, body in bodies:
            raw = json.dumps(body)  # the surrogate travels as a \ud800 escape
            async with http.post(
                f"{server.url}{path}", data=raw, headers={"Content-Type": "application/json"}
            ) as r:
                got = await r.json()
                assert_json_error(
                    r.status, {k.lower(): v for k, v in r.headers.items()}, got, "bad_request", 400
                )
    # The player token header: bytes that are not UTF-8 are read as lone surrogates.
    for method, path, tail in [
        ("GET", f"/api/rooms/{code}/game-file", b""),
        ("POST", f"/api/rooms/{code}/images", PNG),
    ]:
        status, headers, body = await raw_http(
            server.port,
            (
                f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                f"Content-Length: {len(tail)}\r\n"
            ).encode()
            + b"X-Player-Token: \xff\xed\xa0\x80"
            + b"\r\n\r\n"
            + tail,
        )
        assert_json_error(status, headers, body, "bad_token", 401)
    # Names the server never reads (a file name, a query value) change nothing.
    boundary = "b0und"
    form = (
        (f'--{boundary}\r\nContent-Disposition: form-data; name="f"; filename="').encode()
        + b'\xed\xa0\x80.png"\r\nContent-Type: image/png\r\n\r\n'
        + PNG
        + f"\r\n--{boundary}--\r\n".encode()
    )
    status, _, body = await raw_http(
        server.port,
        (
            f"POST /api/rooms/{code}/images HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"X-Player-Token: {host.token}\r\nContent-Length: {len(form)}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n"
        ).encode()
        + form,
    )
    assert status == 201 and json.loads(body)["hash"] == hashlib.sha256(PNG).hexdigest()
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"{server.url}/api/rooms/{code}/game-file?positions=%ED%A0%80",
            headers={"X-Player-Token": host.token},
        ) as r,
    ):
        assert r.status == 200 and (await r.json())["format"] == "cardtable-game"


async def test_lone_surrogates_are_refused_on_every_route_that_reads_text(server, make_client):
    await lone_surrogates_on_every_route(server, make_client)


# --- HTTP: wrong methods ----------------------------------------------------------------------


async def _route_urls(server: RunningServer) -> dict[str, set[str]]:
    """Every route's path (made concrete) -> the methods it takes."""
    code = await new_room(server)
    out: dict[str, set[str]] = {}
    for route in server.app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        if "prefix" in info:  # the static files
            asset = next(p.name for p in Path(info["directory"]).iterdir() if p.is_file())
            path = f"{info['prefix']}/{asset}"
        else:
            path = info.get("path") or info["formatter"].format(code=code, hash="a" * 64, n=1)
        out.setdefault(path, set()).add(route.method)
    return out


async def wrong_methods_on_every_route(server: RunningServer) -> None:
    routes = await _route_urls(server)
    assert {"/", "/api/rooms", "/socket.io/", "/healthz"} <= set(routes)
    assert any(p.startswith("/assets/") for p in routes), routes
    async with aiohttp.ClientSession() as http:
        for path, methods in routes.items():
            allowed = methods | ({"HEAD"} if "GET" in methods else set())
            if path == "/socket.io/":  # Engine.IO takes no HEAD (server/net/eio.py)
                allowed = {"GET", "POST", "OPTIONS"}
            for method in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
                async with http.request(method, f"{server.url}{path}", data=b"") as r:
                    body = await r.read()
                    headers = {k.lower(): v for k, v in r.headers.items()}
                if method in allowed:
                    assert r.status != 405, (method, path)
                    continue
                assert set(headers["allow"].split(", ")) == allowed, (method, path, headers)
                if method == "OPTIONS":
                    assert r.status == 204 and not body, (path, r.status)
                    assert "access-control-allow-origin" not in headers
                elif method == "HEAD":
                    assert r.status == 405 and not body, (path, r.status)
                else:
                    assert_json_error(r.status, headers, body, "method_not_allowed", 405)
                    assert method in json.loads(body)["message"]


async def test_every_route_answers_a_wrong_method_in_the_json_error_shape(server):
    await wrong_methods_on_every_route(server)


# --- HTTP: requests aiohttp cannot parse ------------------------------------------------------

MALFORMED_HTTP = [
    b"GET /api/rooms/" + b"A" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # request line > 8 KB
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"v" * 9000 + b"\r\n\r\n",  # a header > 8 KB
    b"GET /r/\xed\xa0\x80 HTTP/1.1\r\nHost: x\r\n\r\n",  # a URL that is not UTF-8
    b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",  # a space in a header name
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 a TLS hello\r\n\r\n",  # not HTTP at all
    b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"
    b"{}{}{}",  # two lengths
]


async def malformed_http(server: RunningServer) -> None:
    for request in MALFORMED_HTTP:
        status, headers, body = await raw_http(server.port, request)
        assert_json_error(status, headers, body, "bad_request", 400)


async def test_requests_aiohttp_cannot_parse_get_the_json_error_and_no_error_log(server, caplog):
    caplog.set_level(logging.DEBUG)
    await malformed_http(server)
    assert "too long" in json.loads((await raw_http(server.port, MALFORMED_HTTP[0]))[2])["message"]
    bad = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not bad, [f"{r.levelname} {r.name}: {r.getMessage()}" for r in bad]


# --- Prove it: the whole hostile suite, and the log ------------------------------------------


async def strict_cases(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        room, sock = await joined_socket(server, http)
        for frame, code in STRICT_CASES:
            await sock.send(frame.replace("%s", room) if "%s" in frame else frame)
            name, err = await one_answer_then_probe(sock)
            assert (name, err["code"]) == ("error", code), (frame, err)
        for frame in (
            '42["connect",{"REMOTE_ADDR":"1.2.3.4"}]',
            '42["disconnect"]',
            b"\x93\x01\x02",
            '42["op",' + "[" * 5000 + "]" * 5000 + "]",
            '42["op",{"op":"create","kind":"label","x":1,"y":1,"text":"' + "x" * 1_500_000 + '"}]',
        ):
            await sock.send(frame)
            name, err = await one_answer_then_probe(sock)
            assert name == "error", (frame[:40], err)
        await sock.ws.close()


async def bad_transport_requests(server: RunningServer) -> None:
    async with aiohttp.ClientSession() as http:
        for query in (
            "EIO=3&transport=polling",
            "EIO=4&transport=carrier-pigeon",
            "EIO=4&transport=polling&sid=nope",
            "EIO=4&transport=websocket",
            "EIO=4&transport=polling&j=x",
        ):
            async with http.get(f"{server.url}/socket.io/?{query}") as r:
                assert r.status == 400, (query, r.status)


async def test_the_whole_hostile_suite_leaves_no_traceback_and_no_error_line(
    server, make_client, caplog
):
    for name in ("", "cardtable", "aiohttp", "socketio", "engineio"):
        caplog.set_level(logging.DEBUG, logger=name or None)
    for battery in (
        strict_cases,
        ack_and_binary_packets,
        msgpack_frames,
        engine_io_over_websocket,
        engine_io_over_polling,
        ref_null_everywhere,
        wrong_methods_on_every_route,
        malformed_http,
        bad_transport_requests,
    ):
        await battery(server)
    await lone_surrogates_on_every_route(server, make_client)
    records = caplog.records
    assert records, "nothing was logged: the capture is not working"
    bad = [
        r
        for r in records
        if r.levelno >= logging.ERROR or r.exc_info or "Traceback" in r.getMessage()
    ]
    assert not bad, [f"{r.levelname} {r.name}: {r.getMessage()[:200]}" for r in bad]


async def test_a_served_process_logs_no_error_for_hostile_requests_and_stops_cleanly(tmp_path):
    """``python -m server serve`` (not the test fixture) answers a malformed request and a wrong
    method in the JSON shape, logs no ERROR line for them, and exits 0 on SIGTERM."""
    log = tmp_path / "server.log"
    proc = await ServerProcess(data_dir=tmp_path / "data", log_path=log).start()
    try:
        status, headers, body = await raw_http(proc.port, MALFORMED_HTTP[0])
        assert_json_error(status, headers, body, "bad_request", 400)
        status, headers, body = await raw_http(
            proc.port, b"DELETE /api/rooms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert_json_error(status, headers, body, "method_not_allowed", 405)
        async with aiohttp.ClientSession() as http:
            sock = await RawSocket.open(http, proc.url)
            await sock.send("9")
            assert (await sock.next("error"))[1]["code"] == "bad_request"
            await sock.ws.close()
    finally:
        assert proc.proc is not None
        os.kill(proc.proc.pid, signal.SIGTERM)
        code = await asyncio.get_running_loop().run_in_executor(None, proc.proc.wait, 20)
    text = log.read_text(errors="replace")
    assert code == 0, text
    assert "Traceback" not in text and " ERROR " not in text, text
