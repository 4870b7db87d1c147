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

A websocket session runs :func:`websocket_session` instead of the library's
``AsyncSocket._websocket_handler``: the same loop, where the library calls ``asyncio.wait_for``
around every frame read and every batch written (on Python 3.11 a task each, about a tenth of the
server's CPU per move), with one :class:`Quiet` timer per direction instead (``asyncio.timeout``
would still cost about 6 %: a timer scheduled and cancelled per wait).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
import logging
import urllib.parse
from typing import Any

import engineio
from aiohttp import web
from engineio import exceptions as eio_exceptions
from engineio import packet as eio_packet
from engineio.async_drivers import aiohttp as aiohttp_driver
from engineio.async_socket import AsyncSocket

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


class Quiet:
    """Cancels ``task`` once one of its waits has lasted ``seconds``: what ``asyncio.timeout``
    around each wait does, with one timer for them all. A wait only notes when it began; the
    timer, when it fires, expires the wait under way or sets itself for the next possible end.
    """

    def __init__(self, task: asyncio.Task[Any], seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.task = task
        self.seconds = seconds
        self.since: float | None = None  # when the wait under way began (None: none is)
        self.expired = False
        self.timer = self.loop.call_later(seconds, self._check)

    def start(self) -> None:
        self.since = self.loop.time()

    def stop(self) -> None:
        self.since = None

    def ours(self) -> bool:
        """Was the task's cancellation this timer's? If so, it is taken back (as
        ``asyncio.timeout`` does), so later waits of the task are not cancelled by it."""
        if self.expired:
            self.task.uncancel()
        return self.expired

    def _check(self) -> None:
        now = self.loop.time()
        if self.since is None:
            due = now + self.seconds
        else:
            due = self.since + self.seconds
            if now >= due:
                self.expired = True
                self.task.cancel()
                return
        self.timer = self.loop.call_at(due, self._check)

    def close(self) -> None:
        self.timer.cancel()


async def _poll(socket: AsyncSocket, quiet: Quiet) -> list[eio_packet.Packet]:
    """``AsyncSocket.poll``: the packets queued for the client, waiting for the first (at most
    a ping interval and timeout, by ``quiet``); an empty list once the socket is closing. (The
    queue is asked ``empty()`` rather than made to raise ``QueueEmpty``: this runs per batch.)"""
    queue = socket.queue
    if queue.empty():
        quiet.start()
        try:
            first = await queue.get()
        except asyncio.CancelledError:  # the wait's end, or the session's
            quiet.ours()
            raise eio_exceptions.QueueEmpty() from None
        finally:
            quiet.stop()
    else:
        first = queue.get_nowait()
    queue.task_done()
    if first is None:
        return []
    packets = [first]
    while not queue.empty():
        pkt = queue.get_nowait()
        queue.task_done()
        if pkt is None:
            queue.put_nowait(None)
            break
        packets.append(pkt)
    return packets


async def websocket_session(socket: AsyncSocket, ws: Any) -> None:
    """python-engineio 4.15's ``AsyncSocket._websocket_handler``, step for step, without a task
    per frame: a writer task sends what is queued, this reads the client's frames until it
    closes or is silent past the ping interval and timeout."""
    server = socket.server

    async def websocket_wait() -> Any:
        data = await ws.wait()
        if data and len(data) > server.max_http_buffer_size:
            raise ValueError("packet is too large")
        return data

    if socket.connected:
        # the socket was already connected (long-polling), so this is an upgrade
        socket.upgrading = True  # hold packet sends during the upgrade
        try:
            pkt = await websocket_wait()
        except OSError:
            return
        decoded = eio_packet.Packet(encoded_packet=pkt)
        if decoded.packet_type != eio_packet.PING or decoded.data != "probe":
            server.logger.info("%s: Failed websocket upgrade, no PING packet", socket.sid)
            socket.upgrading = False
            return
        await ws.send(eio_packet.Packet(eio_packet.PONG, data="probe").encode())
        await socket.queue.put(eio_packet.Packet(eio_packet.NOOP))  # end poll
        try:
            pkt = await websocket_wait()
        except OSError:
            socket.upgrading = False
            return
        decoded = eio_packet.Packet(encoded_packet=pkt)
        if decoded.packet_type != eio_packet.UPGRADE:
            socket.upgraded = False
            server.logger.info(
                "%s: Failed websocket upgrade, expected UPGRADE packet, received %s instead.",
                socket.sid,
                pkt,
            )
            socket.upgrading = False
            return
        socket.upgraded = True
        socket.upgrading = False
    else:
        socket.connected = True
        socket.upgraded = True

    silent = server.ping_interval + server.ping_timeout

    async def writer() -> None:
        quiet = Quiet(_this_task(), silent)
        try:
            while True:
                try:
                    packets = await _poll(socket, quiet)
                except eio_exceptions.QueueEmpty:
                    break
                if not packets:  # connection closed
                    break
                try:
                    for pkt in packets:
                        await ws.send(pkt.encode())
                except BaseException:  # the library's bare except: any failure ends the writer
                    break
        finally:
            quiet.close()
        await ws.close()

    writer_task = asyncio.ensure_future(writer())
    server.logger.info("%s: Upgrade to websocket successful", socket.sid)
    quiet = Quiet(_this_task(), silent)
    try:
        await _read(socket, websocket_wait, quiet)
    finally:
        quiet.close()
    await socket.queue.put(None)  # unlock the writer task so it can exit
    await writer_task
    await socket.close(wait=False, abort=True, reason=server.reason.TRANSPORT_CLOSE)


def _this_task() -> asyncio.Task[Any]:
    task = asyncio.current_task()
    assert task is not None
    return task


async def _read(socket: AsyncSocket, websocket_wait: Any, quiet: Quiet) -> None:
    """Receive the client's packets until it closes, or is silent for ``quiet``'s seconds."""
    server = socket.server
    while True:
        quiet.start()
        try:
            p = await websocket_wait()
        except asyncio.CancelledError:  # silent too long, or the session's end
            quiet.ours()
            break
        except Exception:
            break
        finally:
            quiet.stop()
        if p is None:  # connection closed by client
            break
        try:
            await socket.receive(eio_packet.Packet(encoded_packet=p))
        except eio_exceptions.UnknownPacketError:
            pass
        except eio_exceptions.SocketIsClosedError:
            server.logger.info("Receive error -- socket is closed")
            break
        except BaseException:  # the library's bare except
            # an unexpected exception: log it and close the connection properly
            server.logger.exception("Unknown receive error")


class GuardedWebSocket(aiohttp_driver.WebSocket):
    """The aiohttp websocket wrapper, with every frame checked before Engine.IO decodes it, and
    the session run by :func:`websocket_session`."""

    def __init__(self, handler: Any, server: Any) -> None:
        socket = getattr(handler, "__self__", None)
        if isinstance(socket, AsyncSocket) and handler.__name__ == "_websocket_handler":
            handler = functools.partial(websocket_session, socket)
        super().__init__(handler, server)

    async def wait(self) -> Any:
        return checked_frame(await super().wait())

    async def send(self, message: Any) -> None:
        # The library's asks ``inspect.iscoroutinefunction`` of aiohttp's send on every frame.
        if isinstance(message, bytes):
            await self._sock.send_bytes(message)
        else:
            await self._sock.send_str(message)


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
