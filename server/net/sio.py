"""The Socket.IO server with a guarded front door: only documented client events reach handlers.

python-socketio dispatches an incoming event by its name, so a client that sends an event named
``connect``, ``disconnect`` or ``*`` reaches the server's own lifecycle handlers. Here every frame
is checked before dispatch: its size, that it decodes to ``[name, payload]`` with a documented
name and at most one argument, on the default namespace. Anything else is answered with one
``error`` event (``bad_request`` or ``too_large``) and changes nothing; no client input can
raise inside the library and put a traceback in the log.

Two wires on one server: JSON text frames (python-socketio's default parser) and msgpack binary
frames (``socket.io-msgpack-parser``, what the page uses). A connection's wire is the type of
the frame its Socket.IO CONNECT came in: binary means msgpack, for the whole connection. So a
stock client of either parser works unconfigured, one room mixes both, and an event to many is
encoded once per wire (:class:`Frame` is the JSON text that makes its msgpack twin on first
use). A msgpack connection's text frames, and a JSON connection's binary ones, are refused.

The protocol has no binary data and never asks a client for an acknowledgement, so a client's
ACK, BINARY_EVENT and BINARY_ACK packets are refused like any bad event. A refused binary
event's attachments (binary frames) are dropped unanswered, and it never waits for them: the
next text frame is the next event, not an attachment. The Engine.IO layer below
(:mod:`server.net.eio`) turns packets it could not decode into :data:`server.net.eio.BAD_PACKET`,
answered here the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import socketio
from engineio import packet as eio_packet
from socketio import packet as sio_packet

from server.errors import BAD_REQUEST, TOO_LARGE, CardtableError
from server.net.eio import BAD_PACKET, GuardedEngine
from server.net.messages import safe_ref
from server.net.wire import MALFORMED, EngineJSON, pack_packet, unpack_packet

log = logging.getLogger("cardtable.sio")
MAX_DROPPED_ATTACHMENTS = 64  # binary frames dropped after one refused binary event
BINARY_KINDS = (sio_packet.BINARY_EVENT, sio_packet.BINARY_ACK)


def event_ref(data: Any) -> int | str | None:
    """The ``ref`` of ``[name, payload]`` to echo in a refusal, if it carries a valid one."""
    return safe_ref(data[1]) if isinstance(data, list) and len(data) > 1 else None


class Frame(str):
    """A JSON-encoded Socket.IO packet that can give its msgpack encoding, made once."""

    packet: sio_packet.Packet
    _binary: eio_packet.Packet | None = None

    def binary(self) -> eio_packet.Packet:
        """The Engine.IO MESSAGE carrying this packet in msgpack."""
        if self._binary is None:
            p = self.packet
            data = pack_packet(p.packet_type, p.namespace, p.data, p.id)
            self._binary = eio_packet.Packet(eio_packet.MESSAGE, data)
        return self._binary


class WirePacket(sio_packet.Packet):
    """python-socketio's JSON packet, whose encoding is a :class:`Frame`."""

    def encode(self) -> Any:
        encoded = super().encode()
        if isinstance(encoded, str):
            encoded = Frame(encoded)
            encoded.packet = self
        return encoded


class GuardedServer(socketio.AsyncServer):
    """``events``: the client event names handlers may receive; ``frame_limit``: the largest
    frame decoded at all (bigger ones get ``too_large`` unread)."""

    def __init__(self, *args: Any, events: frozenset[str], frame_limit: int, **kwargs: Any) -> None:
        kwargs.setdefault("serializer", WirePacket)
        super().__init__(*args, **kwargs)
        # The library hands ``json`` to Engine.IO's packets too (a class attribute); those
        # need a codec that raises, or a client's upgrade from long-polling is refused.
        eio_packet.Packet.json = EngineJSON
        self.msgpack_sids: set[str] = set()  # eio sids of connections that speak msgpack
        self.client_events = events
        self.frame_limit = frame_limit
        self._drop_binary: dict[str, int] = {}  # eio sid -> attachments still to drop

    def _engineio_server_class(self) -> type[GuardedEngine]:
        return GuardedEngine

    async def refuse(self, eio_sid: str, err: CardtableError, ref: Any = None) -> None:
        sid = self.manager.sid_from_eio_sid(eio_sid, "/")
        if sid is None or not self.manager.is_connected(sid, "/"):
            return  # not connected to the namespace: there is nobody to answer
        await self.emit("error", err.payload(ref), to=sid, ignore_queue=True)

    def send_to(self, event: str, data: Any, sids: Iterable[str]) -> None:
        """Queue one event for these connections of this process, encoded once.

        What ``emit(event, data, to=sids, ignore_queue=True)`` does, without its per-recipient
        task, its payload walk for binary attachments (our payloads are plain JSON values) and
        its ping-timeout check (the socket's own ping loop closes dead connections), and in
        each wire only if one of the connections speaks it. Each connection's frames go out in
        the order of these calls."""
        text: eio_packet.Packet | None = None  # each wire's frame, made when first needed
        binary: eio_packet.Packet | None = None
        eio_sid_of = self.manager.eio_sid_from_sid
        sockets = self.eio.sockets
        msgpack_sids = self.msgpack_sids
        for sid in sids:
            eio_sid = eio_sid_of(sid, "/")
            socket = sockets.get(eio_sid)
            if socket is None or socket.closed:
                continue
            if eio_sid in msgpack_sids:
                if binary is None:
                    packed = pack_packet(sio_packet.EVENT, "/", [event, data], None)
                    binary = eio_packet.Packet(eio_packet.MESSAGE, packed)
                socket.queue.put_nowait(binary)
            else:
                if text is None:
                    pkt = self.packet_class(sio_packet.EVENT, data=[event, data], binary=False)
                    encoded = pkt.encode()
                    if not isinstance(encoded, str):  # attachments: not our payloads, be correct
                        raise TypeError("send_to takes plain JSON-like data")
                    text = eio_packet.Packet(eio_packet.MESSAGE, str(encoded))
                socket.queue.put_nowait(text)

    async def _send_packet(self, eio_sid: str, pkt: Any) -> None:
        if eio_sid in self.msgpack_sids:
            data = pack_packet(pkt.packet_type, pkt.namespace, pkt.data, pkt.id)
            await self.eio.send(eio_sid, data)
        else:
            await super()._send_packet(eio_sid, pkt)

    async def _send_eio_packet(self, eio_sid: str, eio_pkt: Any) -> None:
        if eio_sid in self.msgpack_sids and isinstance(eio_pkt.data, Frame):
            eio_pkt = eio_pkt.data.binary()
        await super()._send_eio_packet(eio_sid, eio_pkt)

    async def _handle_eio_message(self, eio_sid: str, data: Any) -> None:
        if isinstance(data, str | bytes) and len(data) > self.frame_limit:
            await self.refuse(
                eio_sid, CardtableError(TOO_LARGE, f"Message larger than {self.frame_limit} bytes.")
            )
            return
        if isinstance(data, bytes):
            if self._drop_binary.get(eio_sid):  # an attachment of a refused binary event
                self._drop_binary[eio_sid] -= 1
                return
            if eio_sid in self.msgpack_sids or self.manager.sid_from_eio_sid(eio_sid, "/") is None:
                await self._handle_msgpack(eio_sid, data)
                return
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST, "Binary data is not part of the protocol: send JSON text."
                ),
            )
            return
        self._drop_binary.pop(eio_sid, None)  # text: whatever attachments were due never came
        if data == BAD_PACKET:
            await self.refuse(
                eio_sid, CardtableError(BAD_REQUEST, "Malformed message: not an Engine.IO packet.")
            )
            return
        if eio_sid in self.msgpack_sids:
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST, "This connection speaks msgpack: send binary frames, not text."
                ),
            )
            return
        try:
            if not isinstance(data, str):
                raise ValueError("not text")
            pkt = self.packet_class(encoded_packet=data)
            if pkt.attachment_count and pkt.packet_type in BINARY_KINDS:
                self._drop_binary[eio_sid] = min(pkt.attachment_count, MAX_DROPPED_ATTACHMENTS)
            await self._dispatch(eio_sid, pkt.packet_type, pkt.namespace, pkt.id, pkt.data)
        except Exception as exc:  # a frame the packet decoder can't read
            log.debug("malformed frame from %s: %r", eio_sid, exc)
            await self.refuse(
                eio_sid, CardtableError(BAD_REQUEST, "Malformed message: not a Socket.IO packet.")
            )

    async def _handle_msgpack(self, eio_sid: str, data: bytes) -> None:
        """A binary frame of a msgpack connection, or of one not connected yet (whose CONNECT
        in a binary frame makes it a msgpack connection)."""
        try:
            kind, namespace, id, payload = unpack_packet(data)
        except ValueError as exc:
            log.debug("malformed msgpack frame from %s: %r", eio_sid, exc)
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST, "Malformed message: not a msgpack Socket.IO packet of JSON values."
                ),
            )
            return
        if kind == sio_packet.CONNECT:
            self.msgpack_sids.add(eio_sid)
        try:
            await self._dispatch(eio_sid, kind, namespace, id, payload)
        except Exception as exc:  # what the library's connect could not take, say
            log.debug("refused msgpack packet from %s: %r", eio_sid, exc)
            await self.refuse(
                eio_sid, CardtableError(BAD_REQUEST, "Malformed message: not a Socket.IO packet.")
            )

    async def _dispatch(
        self, eio_sid: str, kind: int, namespace: str | None, id: Any, data: Any
    ) -> None:
        """One decoded Socket.IO packet, from either wire."""
        if kind == sio_packet.EVENT:
            await self._handle_event(eio_sid, namespace, id, data)
        elif kind == sio_packet.CONNECT:
            await self._handle_connect(eio_sid, namespace, data)
        elif kind == sio_packet.DISCONNECT:
            await self._handle_disconnect(eio_sid, namespace, self.reason.CLIENT_DISCONNECT)
        elif kind in BINARY_KINDS:
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST,
                    "Binary events are not part of the protocol: send the payload as JSON.",
                ),
                event_ref(data),
            )
        elif kind == sio_packet.ACK:
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST,
                    "This server never asks for an acknowledgement: ACK packets "
                    "are not part of the protocol.",
                ),
            )
        else:  # CONNECT_ERROR: only a server sends it
            raise ValueError(f"packet type {kind}")

    async def _handle_eio_disconnect(self, eio_sid: str, reason: Any) -> None:
        self._drop_binary.pop(eio_sid, None)
        await super()._handle_eio_disconnect(eio_sid, reason)
        self.msgpack_sids.discard(eio_sid)

    async def _handle_event(self, eio_sid: str, namespace: str | None, id: Any, data: Any) -> None:
        if (namespace or "/") != "/":
            await self.refuse(
                eio_sid,
                CardtableError(BAD_REQUEST, "Unknown namespace; this server only speaks on '/'."),
            )
            return
        if (
            not isinstance(data, list)
            or not data
            or not isinstance(data[0], str)
            or data[0] == MALFORMED
        ):
            await self.refuse(
                eio_sid,
                CardtableError(
                    BAD_REQUEST, "Malformed message: expected [event, payload] as JSON."
                ),
            )
            return
        name = data[0]
        ref = event_ref(data)
        if name not in self.client_events:
            shown = name[:40]
            await self.refuse(
                eio_sid,
                CardtableError(BAD_REQUEST, f"Unknown event {shown!r}; see docs/protocol.md."),
                ref,
            )
            return
        if len(data) > 2:
            await self.refuse(
                eio_sid,
                CardtableError(BAD_REQUEST, f"'{name}' takes one argument, an object."),
                ref,
            )
            return
        await super()._handle_event(eio_sid, namespace, id, data)
