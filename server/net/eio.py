"""The Engine.IO server under Socket.IO, hardened against frames and requests a client can break.

python-engineio decodes a client's packets with little checking: an empty frame, a packet type
that is not a digit, a type of 7 to 9 (``packet_names[9]``), a bad base64 binary frame, a
long-polling body that is not UTF-8 or holds more than 16 packets all raise inside the library
and log a traceback (over a websocket, some also end the connection); a packet only a server
sends (OPEN, NOOP) ends a long-polling session. Here every packet is
checked where it enters, on both transports, before the library decodes it: a packet it could
not decode is replaced by one MESSAGE packet carrying :data:`BAD_PACKET`, which
:class:`server.net.sio.GuardedServer` answers with an ``error`` event (``bad_request``); the
connection stays open. Requests the library refuses because of the client (an unknown or
closed session id, a wrong transport or protocol version) are logged at INFO, never ERROR,
and the endpoint takes only GET (no HEAD), POST and OPTIONS: aiohttp's 405 for any other
method is answered in the JSON error shape by the HTTP middleware (docs/protocol.md, "HTTP").
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import urllib.parse
from typing import Any

import engineio
from aiohttp import web
from engineio.async_drivers import aiohttp as aiohttp_driver

log = logging.getLogger("cardtable.eio")

# What the Socket.IO layer receives instead of a packet Engine.IO could not decode.
BAD_PACKET = "\x00not an engine.io packet"
_BAD_FRAME = "4" + json.dumps(BAD_PACKET)
_MAX_PAYLOAD_PACKETS = 16  # python-engineio's own limit for one long-polling body


def valid_packet(text: str, websocket: bool) -> bool:
    """Is this text packet one a client sends, that python-engineio decodes without raising?

    A client sends CLOSE (1), PONG (3), MESSAGE (4), UPGRADE (5), base64 binary (``b...``)
    and, over a websocket, the upgrade's ``2probe``. OPEN (0), another PING (2) or NOOP (6) is
    refused too: the library ignores it over a websocket but ends a long-polling session on
    it, holding the POST until the ping times out."""
    if not text:
        return False
    if text[0] == "b":  # base64 binary
        try:
            base64.b64decode(text[1:])
        except (binascii.Error, ValueError):
            return False
        return True
    return text[0] in "1345" or (websocket and text == "2probe")


def checked_frame(data: Any, websocket: bool = True) -> Any:
    """A frame as Engine.IO may read it: a bad text packet becomes the marker."""
    if isinstance(data, str) and not valid_packet(data, websocket):
        log.debug("refused an engine.io packet: %r", data[:20])
        return _BAD_FRAME
    return data


def checked_payload(body: bytes) -> bytes:
    """A long-polling body as Engine.IO may read it: each bad packet becomes the marker (a body
    that is not UTF-8, or has too many packets, becomes one marker packet)."""
    if not body:
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        log.debug("refused a long-polling body that is not UTF-8")
        return _BAD_FRAME.encode()
    if text.startswith("d="):  # JSONP form body, as python-engineio reads it
        text = urllib.parse.parse_qs(text).get("d", [""])[0]
    packets = text.split("\x1e")
    if len(packets) > _MAX_PAYLOAD_PACKETS:
        log.debug("refused a long-polling body of %d packets", len(packets))
        return _BAD_FRAME.encode()
    return "\x1e".join(checked_frame(p, websocket=False) for p in packets).encode()


class _Body:
    """The already-read request body, as the ``wsgi.input`` python-engineio reads from."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def read(self, n: int = -1) -> bytes:
        out, self.data = (self.data, b"") if n < 0 else (self.data[:n], self.data[n:])
        return out


def _create_route(app: web.Application, server: engineio.AsyncServer, path: str) -> None:
    """The Engine.IO endpoint's routes: GET (without the HEAD aiohttp adds), POST, OPTIONS."""
    app.router.add_get(path, server.handle_request, allow_head=False)
    app.router.add_post(path, server.handle_request)
    app.router.add_route("OPTIONS", path, server.handle_request)


class GuardedWebSocket(aiohttp_driver.WebSocket):
    """The aiohttp websocket wrapper, with every frame checked before Engine.IO decodes it."""

    async def wait(self) -> Any:
        return checked_frame(await super().wait())


class GuardedEngine(engineio.AsyncServer):
    """python-engineio's server (aiohttp mode) with the checks above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The async driver's parts (aiohttp's), with our websocket and request translation.
        parts: dict[str, Any] = self._async  # type: ignore[has-type]
        self._async = {
            **parts,
            "websocket": GuardedWebSocket,
            "translate_request": self._translate_request,
            "create_route": _create_route,
        }

    async def _translate_request(self, request: web.Request) -> dict[str, Any]:
        environ: dict[str, Any] = aiohttp_driver.translate_request(request)
        length = request.content_length
        if request.method == "POST" and length is not None and length <= self.max_http_buffer_size:
            try:
                body = await request.content.readexactly(length)
            except asyncio.IncompleteReadError as exc:
                body = exc.partial
            body = checked_payload(body)
            environ["wsgi.input"] = _Body(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        # A POST for a session that has just closed would raise in the library (its POST path
        # looks the socket up unguarded): forget the session now, as that lookup would, so the
        # request gets the library's 400 "Invalid session". No await until that lookup.
        sid = request.query.get("sid")
        socket = self.sockets.get(sid) if sid is not None else None
        if socket is not None and socket.closed:
            del self.sockets[sid]
        return environ

    def _log_error_once(self, message: str, message_key: str) -> None:
        # Every caller is about a client's request (a stale session id, a wrong transport or
        # protocol version, a refused origin): the client's fault, not the server's.
        self.logger.info(message)
