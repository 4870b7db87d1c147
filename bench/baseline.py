"""The baseline: the least a python-socketio server can do for the same traffic.

aiohttp + python-socketio ``AsyncServer`` (default JSON serializer, websocket, uvloop when
importable), speaking just enough of the cardtable protocol for the benchmark clients:
``POST /api/rooms`` hands out a code, ``join`` enters the Socket.IO room and answers ``joined`` and
an empty ``snapshot``, and every ``op`` is broadcast as a ``delta`` to the whole room (sender
included, as cardtable does) followed by an ``ack`` to the sender. No validation, no store, no
per-seat views: one counter per room for the version, and a card-shaped object echoed from the
payload so messages are about the size of cardtable's.

With ``--store DIR`` it is the *floor* of what cardtable must do per move under its design (an
acknowledged move is durable in Redis): it starts a redis-server as cardtable's embedded store
does (:class:`server.store.embedded.EmbeddedRedis` under ``DIR``: a unix socket, AOF
``appendfsync always``), reaches it as cardtable's store does (redis-py's asyncio client on a
blocking pool, scripts by EVALSHA: :mod:`server.store.clients`), and before it emits runs **one**
script per ``op`` that does what a commit minimally does: check the version and bump it, and set
a blob of ``--blob-bytes`` (the room's size), publishing nothing. Rooms are not serialised: a
room's commits are in flight together (the check drops a write older than the stored version and
counts it), unless ``--room-lock``, which holds a lock per room across the script as cardtable's
room service does today; ``--store-fsync everysec`` takes the fsync out of the commit.
``--wire msgpack`` makes it python-socketio's msgpack serializer.

Usage: ``python -m bench.baseline --host 127.0.0.1 --port N [--store DIR [--blob-bytes B]
[--room-lock] [--store-fsync everysec]] [--wire msgpack]``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import secrets
import sys
from typing import Any

import socketio
from aiohttp import web

from bench import use_uvloop
from server.store.clients import ScriptRunner, connect
from server.store.embedded import EmbeddedRedis

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
ROOM_BLOB_BYTES = 25_000  # a bench room's blob in cardtable (standard deck, 4 players' cards)

# KEYS: the room. ARGV: the new version, the blob. A write older than the stored version is
# dropped (several of a room's commits are in flight at once); else version and blob are set.
_COMMIT = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v >= tonumber(ARGV[1]) then return v end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2])
return -2
"""


class Store:
    """The floor's store: an embedded redis-server and one commit script per move."""

    def __init__(
        self, data_dir: str, blob_bytes: int = ROOM_BLOB_BYTES, fsync: str = "always"
    ) -> None:
        self.redis_server = EmbeddedRedis(data_dir, fsync=fsync).start()
        self.client = connect(
            self.redis_server.url, socket_timeout=2.0, max_connections=64, pool_wait=5.0
        )
        self.commit_script = ScriptRunner(self.client).register(_COMMIT)
        self.blob = os.urandom(blob_bytes)
        self.dropped = 0  # commits that found a newer version stored (arrived out of order)

    async def commit(self, code: str, v: int) -> None:
        """One EVALSHA: the move is in the AOF, fsynced, when this returns."""
        got = await self.commit_script(keys=[f"bs:{{{code}}}:room"], args=[v, self.blob])
        if got != -2:
            self.dropped += 1

    async def close(self, app: web.Application) -> None:
        print(f"baseline store: {self.dropped} commits dropped as out of order", flush=True)
        await self.client.aclose()
        self.redis_server.stop()


def create_app(
    store: Store | None = None, wire: str = "json", room_lock: bool = False
) -> web.Application:
    app = web.Application()
    sio = socketio.AsyncServer(
        serializer="msgpack" if wire == "msgpack" else "default",
        async_mode="aiohttp",
        cors_allowed_origins=[],
        max_http_buffer_size=1_000_000,
        ping_interval=10,
        ping_timeout=10,
    )
    sio.attach(app)
    players: dict[str, tuple[str, str]] = {}  # sid -> (room code, player id)
    versions: dict[str, int] = {}
    locks: dict[str, asyncio.Lock] = {}
    ids = itertools.count(1)
    if store is not None:
        app.on_cleanup.append(store.close)

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
        if store is not None:
            if room_lock:
                async with locks.setdefault(code, asyncio.Lock()):
                    await store.commit(code, v)
            else:
                await store.commit(code, v)
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
    parser.add_argument("--wire", choices=("json", "msgpack"), default="json")
    parser.add_argument("--store", metavar="DIR", help="commit each op to a redis-server here")
    parser.add_argument("--blob-bytes", type=int, default=ROOM_BLOB_BYTES)
    parser.add_argument(
        "--store-fsync", choices=("always", "everysec"), default="always", help="its appendfsync"
    )
    parser.add_argument("--room-lock", action="store_true", help="one commit per room at a time")
    args = parser.parse_args(argv)
    use_uvloop()
    store = Store(args.store, args.blob_bytes, args.store_fsync) if args.store else None
    app = create_app(store, args.wire, args.room_lock)
    web.run_app(app, host=args.host, port=args.port, print=None, access_log=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
