"""HTTP routes: create rooms, look them up, health, and the web client's pages and assets."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from aiohttp import web

from server import codes
from server.config import Config
from server.errors import BAD_REQUEST, CardtableError
from server.rooms import RoomService

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
ROOMS_KEY: web.AppKey[RoomService] = web.AppKey("rooms", RoomService)
CONFIG_KEY: web.AppKey[Config] = web.AppKey("config", Config)

_FALLBACK = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>cardtable</title></head><body><h1>cardtable</h1>
<p>The web client is not built yet: run <code>make run</code>.</p></body></html>"""


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    resp: web.StreamResponse = await handler(request)
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    return resp


def _error(err: CardtableError, status: int) -> web.Response:
    return web.json_response(err.payload(), status=status)


def _status_for(err: CardtableError) -> int:
    return {"room_not_found": 404, "rate_limited": 429, "unavailable": 503,
            "bad_request": 400, "conflict": 409}.get(err.code, 400)


def _index(config: Config) -> web.StreamResponse:
    index = config.web_dir / "index.html"
    if index.exists():
        return web.FileResponse(index, headers={"Cache-Control": "no-cache"})
    return web.Response(text=_FALLBACK, content_type="text/html")


async def index(request: web.Request) -> web.StreamResponse:
    return _index(request.app[CONFIG_KEY])


async def room_page(request: web.Request) -> web.StreamResponse:
    rooms = request.app[ROOMS_KEY]
    code = codes.normalize(request.match_info["code"])
    try:
        found = code is not None and await rooms.exists(code)
    except CardtableError as err:
        return _error(err, _status_for(err))
    if not found:
        shown = html.escape(request.match_info["code"][:40])
        body = (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Room not "
                f"found</title><link rel=\"stylesheet\" href=\"/assets/app.css\"></head><body "
                f"class=\"notfound\"><h1>Room not found</h1><p>There is no room "
                f"<strong>{shown}</strong>. It may have expired.</p><p><a href=\"/\">Start a new "
                f"room</a></p></body></html>")
        return web.Response(text=body, status=404, content_type="text/html")
    return _index(request.app[CONFIG_KEY])


async def create_room(request: web.Request) -> web.Response:
    rooms, config = request.app[ROOMS_KEY], request.app[CONFIG_KEY]
    try:
        await rooms.count_attempt("create", request.remote or "", config.joins_per_minute)
        if request.content_length and request.content_length > 16 * 1024:
            raise CardtableError(BAD_REQUEST, "Request body too large.")
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else {}
        except (ValueError, RecursionError):
            raise CardtableError(BAD_REQUEST, "The body must be JSON.") from None
        if not isinstance(body, dict):
            raise CardtableError(BAD_REQUEST, "The body must be a JSON object.")
        template = body.get("template", "standard")
        seats = body.get("seats", 4)
        if not isinstance(template, str):
            raise CardtableError(BAD_REQUEST, "'template' must be a string.")
        table = await rooms.create_room(template, seats, body.get("game"), body.get("options"))
    except CardtableError as err:
        return _error(err, _status_for(err))
    path = f"/r/{table.code}"
    return web.json_response(
        {"code": table.code, "display": codes.pretty(table.code), "path": path,
         "url": str(request.url.with_path(path).with_query(None)), "template": table.template,
         "seats": table.seats, "game": table.game["name"] if table.game else None},
        status=201,
    )


async def room_info(request: web.Request) -> web.Response:
    rooms = request.app[ROOMS_KEY]
    code = codes.normalize(request.match_info["code"])
    try:
        if code is None:
            raise CardtableError("room_not_found", "That is not a room code.")
        table = await rooms.load_table(code)
    except CardtableError as err:
        return _error(err, _status_for(err))
    return web.json_response({
        "code": table.code, "display": codes.pretty(table.code), "seats": table.seats,
        "template": table.template, "players": len(table.players), "version": table.version,
    })


async def healthz(request: web.Request) -> web.Response:
    rooms = request.app[ROOMS_KEY]
    ok = await rooms.store.ping()
    return web.json_response({"status": "ok" if ok else "degraded",
                              "store": "ok" if ok else "unreachable"}, status=200 if ok else 503)


def add_routes(app: web.Application, config: Config) -> None:
    app.router.add_get("/", index)
    app.router.add_get("/r/{code}", room_page)
    app.router.add_post("/api/rooms", create_room)
    app.router.add_get("/api/rooms/{code}", room_info)
    app.router.add_get("/healthz", healthz)
    assets = config.web_dir
    if assets.exists():
        app.router.add_static("/assets/", Path(assets), follow_symlinks=False)
