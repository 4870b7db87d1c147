"""The Socket.IO server with a guarded front door: only documented client events reach handlers.

python-socketio dispatches an incoming event by its name, so a client that sends an event named
``connect``, ``disconnect`` or ``*`` reaches the server's own lifecycle handlers. Here every frame
is checked before dispatch: its size, that it decodes to ``[name, payload]`` with a documented
name and at most one argument, on the default namespace. Anything else is answered with one
``error`` event (``bad_request`` or ``too_large``) and changes nothing; no client input can
raise inside the library and put a traceback in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import socketio
from engineio import packet as eio_packet
from socketio import packet as sio_packet

from server.errors import BAD_REQUEST, TOO_LARGE, CardtableError
from server.wire import MALFORMED

log = logging.getLogger("cardtable.sio")


class GuardedServer(socketio.AsyncServer):
    """``events``: the client event names handlers may receive; ``frame_limit``: the largest
    frame decoded at all (bigger ones get ``too_large`` unread)."""

    def __init__(self, *args: Any, events: frozenset[str], frame_limit: int,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_events = events
        self.frame_limit = frame_limit

    async def refuse(self, eio_sid: str, err: CardtableError, ref: Any = None) -> None:
        sid = self.manager.sid_from_eio_sid(eio_sid, "/")
        if sid is None or not self.manager.is_connected(sid, "/"):
            return  # not connected to the namespace: there is nobody to answer
        await self.emit("error", err.payload(ref), to=sid, ignore_queue=True)

    def send_to(self, event: str, data: Any, sids: Iterable[str]) -> None:
        """Queue one event for these connections of this process, encoded once.

        What ``emit(event, data, to=sids, ignore_queue=True)`` does, without its per-recipient
        task, its payload walk for binary attachments (our payloads are plain JSON values) and
        its ping-timeout check (the socket's own ping loop closes dead connections). Each
        connection's frames go out in the order of these calls."""
        pkt = self.packet_class(sio_packet.EVENT, data=[event, data], binary=False)
        encoded = pkt.encode()
        if isinstance(encoded, list):  # binary attachments: not our payloads, but be correct
            raise TypeError("send_to takes plain JSON-like data")
        frame = eio_packet.Packet(eio_packet.MESSAGE, encoded)
        eio_sid_of = self.manager.eio_sid_from_sid
        sockets = self.eio.sockets
        for sid in sids:
            socket = sockets.get(eio_sid_of(sid, "/"))
            if socket is not None and not socket.closed:
                socket.queue.put_nowait(frame)

    async def _handle_eio_message(self, eio_sid: str, data: Any) -> None:
        if isinstance(data, str | bytes) and len(data) > self.frame_limit:
            self._binary_packet.pop(eio_sid, None)
            await self.refuse(eio_sid, CardtableError(
                TOO_LARGE, f"Message larger than {self.frame_limit} bytes."))
            return
        try:
            await super()._handle_eio_message(eio_sid, data)
        except Exception as exc:  # a frame the packet decoder can't read
            self._binary_packet.pop(eio_sid, None)
            log.debug("malformed frame from %s: %r", eio_sid, exc)
            await self.refuse(eio_sid, CardtableError(
                BAD_REQUEST, "Malformed message: not a Socket.IO packet."))

    async def _handle_event(self, eio_sid: str, namespace: str | None, id: Any,
                            data: Any) -> None:
        if (namespace or "/") != "/":
            await self.refuse(eio_sid, CardtableError(
                BAD_REQUEST, "Unknown namespace; this server only speaks on '/'."))
            return
        if not isinstance(data, list) or not data or not isinstance(data[0], str) \
                or data[0] == MALFORMED:
            await self.refuse(eio_sid, CardtableError(
                BAD_REQUEST, "Malformed message: expected [event, payload] as JSON."))
            return
        name = data[0]
        ref = data[1].get("ref") if len(data) > 1 and isinstance(data[1], dict) else None
        if not isinstance(ref, int | str) or isinstance(ref, bool) or (
                isinstance(ref, str) and len(ref) > 64):
            ref = None
        if name not in self.client_events:
            shown = name[:40]
            await self.refuse(eio_sid, CardtableError(
                BAD_REQUEST, f"Unknown event {shown!r}; see docs/protocol.md."), ref)
            return
        if len(data) > 2:
            await self.refuse(eio_sid, CardtableError(
                BAD_REQUEST, f"'{name}' takes one argument, an object."), ref)
            return
        await super()._handle_event(eio_sid, namespace, id, data)
