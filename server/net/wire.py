"""The wire codecs: JSON (handed to python-socketio) and msgpack, hardened against hostile
frames, fast out.

A frame that is not valid JSON, or nests deeply enough to exhaust the parser's recursion, would
otherwise raise inside the library and be dropped without a word. Here it decodes to the event
``MALFORMED`` instead, which the socket layer answers with an ``error`` event.

msgpack (:func:`pack_packet`, :func:`unpack_packet`) is the format of the browser's
``socket.io-msgpack-parser``: one Socket.IO packet is one binary frame holding the map
``{type, nsp, data, id?}``. What comes in is held to what JSON could carry: str keys, no
binary, no extension types (save notepack's ``undefined``, which becomes what
``JSON.stringify`` makes of it: a dropped key, ``null`` in a list).
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
import msgspec

MALFORMED = "__malformed__"
JSONDecodeError = json.JSONDecodeError
_encode = msgspec.json.Encoder().encode


def dumps(obj: Any, **kwargs: Any) -> str:
    """Compact JSON; msgspec's encoder (about 8x faster than ``json``, every outgoing event goes
    through here), with ``json`` for what msgspec refuses or for extra options."""
    if kwargs.keys() <= {"separators"}:
        try:
            return _encode(obj).decode()
        except (TypeError, OverflowError, UnicodeEncodeError, msgspec.EncodeError):
            pass  # ``json`` escapes what msgspec can't write (a lone surrogate, say)
    kwargs.setdefault("separators", (",", ":"))
    return json.dumps(obj, **kwargs)


def loads(s: str | bytes, **kwargs: Any) -> Any:
    try:
        return json.loads(s, **kwargs)
    except (ValueError, RecursionError):
        return [MALFORMED, None]


class EngineJSON:
    """The JSON codec of Engine.IO's own packets (python-engineio reads each text packet's data
    as JSON and keeps the text when that raises ``ValueError``: the upgrade's ``2probe`` must
    read as ``"probe"``, not as the :data:`MALFORMED` marker :func:`loads` gives Socket.IO)."""

    dumps = staticmethod(dumps)

    @staticmethod
    def loads(s: str | bytes, **kwargs: Any) -> Any:
        try:
            return json.loads(s, **kwargs)
        except RecursionError:
            raise ValueError("nested too deeply") from None


# --- msgpack -------------------------------------------------------------------------------

_UNDEFINED = object()  # notepack.io's ``undefined``: fixext 1, type 0, one zero byte
MAX_DEPTH = 64  # nesting a msgpack frame may have (JSON's is bounded by the recursion limit)
_pack = msgspec.msgpack.Encoder().encode


def _ext(code: int, data: memoryview) -> Any:
    if code == 0 and bytes(data) == b"\x00":
        return _UNDEFINED
    raise ValueError(f"msgpack extension type {code}")


_unpack = msgspec.msgpack.Decoder(ext_hook=_ext).decode


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _holds_undefined(value: Any, depth: int = 0) -> bool:
    """Does ``value`` hold notepack's ``undefined``? ValueError for what JSON can't carry. (A
    check without copying: a frame from the page rarely holds ``undefined``.)"""
    if value is _UNDEFINED:
        return True
    if depth >= MAX_DEPTH:
        raise ValueError("nested too deeply")
    found = False
    kind = type(value)
    if kind is list:
        for v in value:
            if type(v) not in _SCALARS:
                found = _holds_undefined(v, depth + 1) or found
    elif kind is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise ValueError("a map key that is not a string")
            if type(v) not in _SCALARS:
                found = _holds_undefined(v, depth + 1) or found
    elif kind not in _SCALARS:
        raise ValueError(f"{kind.__name__} is not part of the protocol")
    return found


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON would have carried it; ValueError for what JSON can't carry."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if depth >= MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, list):
        return [None if v is _UNDEFINED else _plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError("a map key that is not a string")
            if v is not _UNDEFINED:
                out[k] = _plain(v, depth + 1)
        return out
    raise ValueError(f"{type(value).__name__} is not part of the protocol")


def pack_packet(packet_type: int, namespace: str | None, data: Any, id: int | None) -> bytes:
    """One Socket.IO packet as socket.io-msgpack-parser reads it (no ``data`` or ``id`` key
    when there is none: the parser checks ``data === undefined`` for DISCONNECT)."""
    d: dict[str, Any] = {"type": packet_type, "nsp": namespace or "/"}
    if data is not None:
        d["data"] = data
    if id is not None:
        d["id"] = id
    try:
        return _pack(d)
    except (TypeError, OverflowError, UnicodeEncodeError, msgspec.EncodeError):
        # What msgspec refuses (a lone surrogate): through JSON, replaced as UTF-8 can't hold it
        out: bytes = msgpack.packb(json.loads(dumps(d)), unicode_errors="replace")
        return out


def unpack_packet(frame: bytes) -> tuple[int, str, int | None, Any]:
    """``(type, namespace, id, data)`` of a msgpack Socket.IO packet; ValueError if the frame is
    not one, or carries what JSON could not."""
    try:
        d = _unpack(frame)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ValueError(str(exc)) from exc
    if not isinstance(d, dict):
        raise ValueError("not a map")
    kind, nsp, id = d.get("type"), d.get("nsp", "/"), d.get("id")
    if type(kind) is not int or not 0 <= kind <= 6:
        raise ValueError("bad packet type")
    if not isinstance(nsp, str):
        raise ValueError("bad namespace")
    if id is _UNDEFINED:
        id = None
    if id is not None and type(id) is not int:
        raise ValueError("bad packet id")
    data = d.get("data")
    if _holds_undefined(data):
        data = None if data is _UNDEFINED else _plain(data)
    return kind, nsp, id, data
