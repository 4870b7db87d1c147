"""The baseline: the least a python-socketio server can do for the same traffic.

aiohttp + python-socketio ``AsyncServer`` (default JSON serializer, websocket, uvloop when
importable), speaking just enough of the cardtable protocol for the benchmark clients:
``POST /api/rooms`` hands out a code, ``join`` enters the Socket.IO room and answers ``joined`` and
an empty ``snapshot``, and every ``op`` is broadcast as a ``delta`` to the whole room (sender
included, as cardtable does) followed by an ``ack`` to the sender. No validation, no store, no
per-seat views: one counter per room for the version, and a card-shaped object echoed from the
payload so messages are about the size of cardtable's.

Usage: ``python -m bench.baseline --host 127.0.0.1 --port N``.
"""

from __future__ import annotations

import argparse
import itertools
import secrets
import sys
from typing import Any

import socketio
from aiohttp import web

from bench import use_uvloop

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def create_app() -> web.Application:
    app = web.Application()
    sio = socketio.AsyncServer(
        async_mode="aiohttp",
        cors_allowed_origins=[],
        max_http_buffer_size=1_000_000,
        ping_interval=10,
        ping_timeout=10,
    )
    sio.attach(app)
    players: dict[str, tuple[str, str]] = {}  # sid -> (room code, player id)
    versions: dict[str, int] = {}
    ids = itertools.count(1)

    async def create_room(request: web.Request) -> web.Response:
        code = "".join(secrets.choice(ALPHABET) for _ in range(8))
        versions[code] = 0
        return web.json_response({"code": code, "path": f"/r/{code}"}, status=201)

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def disconnect(sid: str, *args: Any) -> None:
        players.pop(sid, None)

    async def join(sid: str, data: dict[str, Any]) -> None:
        code = data["code"]
        pid = f"p{next(ids)}"
        players[sid] = (code, pid)
        await sio.enter_room(sid, code)
        await sio.emit(
            "joined",
            {
                "code": code,
                "player": pid,
                "token": pid,
                "seat": None,
                "name": data.get("name"),
                "ref": data.get("ref"),
            },
            to=sid,
        )
        await sio.emit(
            "snapshot",
            {
                "code": code,
                "v": versions.get(code, 0),
                "seats": 8,
                "template": "standard",
                "players": [],
                "objects": [],
                "game": None,
            },
            to=sid,
        )

    async def op(sid: str, data: dict[str, Any]) -> None:
        code, pid = players[sid]
        v = versions[code] = versions.get(code, 0) + 1
        obj = {
            "t": "card",
            "id": data.get("id") or f"c{pid}x{v}",
            "x": data.get("x", 0.0),
            "y": data.get("y", 0.0),
            "z": v,
            "rot": 0,
            "locked": False,
            "v": v,
            "face": "H1",
            "back": "red",
            "up": True,
            "parent": None,
        }
        await sio.emit(
            "delta",
            {"v": v, "set": [obj], "del": [], "by": pid, "log": "Player moved a card"},
            room=code,
        )
        await sio.emit("ack", {"ref": data.get("ref"), "v": v}, to=sid)

    sio.on("disconnect", disconnect)
    sio.on("join", join)
    sio.on("op", op)
    app.router.add_post("/api/rooms", create_room)
    app.router.add_get("/healthz", healthz)
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    use_uvloop()
    web.run_app(create_app(), host=args.host, port=args.port, print=None, access_log=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
