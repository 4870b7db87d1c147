"""HTTP routes: create rooms, look them up, health, and the web client's pages and assets.

Looking a room up by code (``/api/rooms/{code}``, ``/r/{code}``) is limited per client address:
codes that name no live room count as misses, and too many misses answer 429 (see
docs/architecture.md, "Guessing room codes").

Errors are the JSON body ``{"code", "message", "ref": null}`` (only a missing page outside
``/api/`` is an HTML page), with the security headers of every response; so are a wrong method
(405, or 204 with ``Allow`` for OPTIONS) and a request aiohttp could not parse
(:mod:`server.net.transport`). Text that cannot be written as UTF-8 (a lone
surrogate, ``"\\ud800"`` in JSON) is refused wherever a client's text comes in: every JSON
body (``bad_request``) and the player token header (``bad_token``).
"""

from __future__ import annotations

import html
import json
import logging
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from aiohttp import BodyPartReader, web

from plugins.registry import GAMES
from server import logs, metrics
from server.config import Config
from server.errors import (
    BAD_REQUEST,
    METHOD_NOT_ALLOWED,
    NO_SUCH_HAND,
    ROOM_NOT_FOUND,
    TOO_LARGE,
    CardtableError,
)
from server.game import fairness
from server.homemade import library
from server.homemade import service as homemade
from server.homemade.gamefile import MAX_FILE_BYTES
from server.homemade.images import MAX_IMAGE_BYTES
from server.net import http_types as bodies
from server.net.addresses import request_address
from server.net.limits import check_payload, count_misses, miss_limiter
from server.net.messages import CreateRoom, parse, utf8_text
from server.room import codes
from server.room.service import RoomService
from server.store.rate_limits import RateLimited
from server.table.decks import parse_csv, parse_list
from server.table.objects import Table

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger("cardtable.http")
ROOMS_KEY: web.AppKey[RoomService] = web.AppKey("rooms", RoomService)
CONFIG_KEY: web.AppKey[Config] = web.AppKey("config", Config)
# Whether this process's feed subscriber reads other processes' commits (set by the app).
FEED_ALIVE_KEY: web.AppKey[Callable[[], bool]] = web.AppKey("feed_alive")
T = TypeVar("T")

_FALLBACK = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>cardtable</title></head><body><h1>cardtable</h1>
<p>The web client is not built yet: run <code>make run</code>.</p></body></html>"""


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    resp: web.StreamResponse = await handler(request)
    for name, value in SECURITY_HEADERS.items():
        resp.headers.setdefault(name, value)
    return resp


@web.middleware
async def wrong_method(request: web.Request, handler: Any) -> web.StreamResponse:
    """A method a route does not take: 405 in the JSON error shape, with ``Allow`` (OPTIONS:
    204 and ``Allow``; no CORS headers, so a cross-origin preflight is not granted)."""
    try:
        return await handler(request)
    except web.HTTPMethodNotAllowed as exc:
        allowed = ", ".join(sorted(exc.allowed_methods))
        if request.method == "OPTIONS":
            return web.Response(status=204, headers={"Allow": allowed})
        err = CardtableError(
            METHOD_NOT_ALLOWED,
            f"{request.method[:16]} is not allowed here; this path takes {allowed}.",
        )
        return web.json_response(err.payload(), status=405, headers={"Allow": allowed})


@web.middleware
async def not_found_page(request: web.Request, handler: Any) -> web.StreamResponse:
    """Unknown paths get the styled "Page not found" page (API paths a JSON error), not
    aiohttp's bare "404: Not Found"."""
    try:
        return await handler(request)
    except web.HTTPNotFound as exc:
        if exc.text != "404: Not Found":
            raise  # a handler's own 404 with its own body
        if request.path.startswith("/api/"):
            return web.json_response(
                {
                    "code": "not_found",
                    "message": "There is no such API route; see docs/protocol.md.",
                    "ref": None,
                },
                status=404,
            )
        shown = html.escape(request.path[:80])
        return _page(
            "Page not found",
            [
                f"There is nothing at <strong>{shown}</strong>. If someone sent you a link to a "
                "table, check that it is complete."
            ],
            404,
        )


def _retry_after(err: CardtableError) -> dict[str, str]:
    if isinstance(err, RateLimited):
        return {"Retry-After": str(max(1, math.ceil(err.retry_after)))}
    return {}


def _error(err: CardtableError, status: int) -> web.Response:
    return web.json_response(err.payload(), status=status, headers=_retry_after(err))


def _page(
    title: str, paragraphs: list[str], status: int, headers: dict[str, str] | None = None
) -> web.Response:
    """A small page in the web client's style; ``paragraphs`` are HTML, already escaped."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    text = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta '
        f'name="viewport" content="width=device-width, initial-scale=1"><title>{title} · '
        f'cardtable</title><link rel="stylesheet" href="/assets/app.css"></head><body>'
        f'<div class="screen"><div class="screen-box"><h1>{title}</h1>{body}'
        f'<p><a href="/">Start a new room</a></p></div></div></body></html>'
    )
    return web.Response(text=text, status=status, content_type="text/html", headers=headers)


def _json_body(raw: bytes) -> Any:
    """A request body parsed as JSON: ``bad_request`` if it is not JSON, or if any text in it
    (a key or a value, at any depth) cannot be written as UTF-8."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise CardtableError(BAD_REQUEST, "The body must be JSON.") from None
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not utf8_text(item):
                raise CardtableError(
                    BAD_REQUEST, "Text must be valid Unicode (no lone surrogate characters)."
                )
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return body


def _status_for(err: CardtableError) -> int:
    return {
        "room_not_found": 404,
        "rate_limited": 429,
        "unavailable": 503,
        "bad_request": 400,
        "conflict": 409,
        "forbidden": 403,
        "bad_token": 401,
        "too_large": 413,
        "limit": 413,
        "no_such_hand": 404,
        "hand_not_over": 409,
    }.get(err.code, 400)


def _index(config: Config) -> web.StreamResponse:
    index = config.web_dir / "index.html"
    if index.exists():
        return web.FileResponse(index, headers={"Cache-Control": "no-cache"})
    return web.Response(text=_FALLBACK, content_type="text/html")


async def index(request: web.Request) -> web.StreamResponse:
    return _index(request.app[CONFIG_KEY])


async def _lookup(
    request: web.Request, code: str | None, fetch: Callable[[str], Awaitable[T]]
) -> T:
    """``fetch(code)`` under the per-address limit on misses; ``room_not_found`` if no room."""
    rooms, config = request.app[ROOMS_KEY], request.app[CONFIG_KEY]

    async def find() -> T:
        if code is None:
            raise CardtableError(ROOM_NOT_FOUND, "That is not a room code.")
        return await fetch(code)

    return await count_misses(
        miss_limiter(rooms.store, config),
        request_address(request, config.trusted_proxies),
        code,
        find,
    )


async def _must_exist(rooms: RoomService, code: str) -> None:
    if not await rooms.exists(code):
        raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")


async def room_page(request: web.Request) -> web.StreamResponse:
    raw = request.match_info["code"]
    rooms = request.app[ROOMS_KEY]
    try:
        await _lookup(request, codes.normalize(raw), lambda code: _must_exist(rooms, code))
    except RateLimited as err:
        return _page(
            "Too many tries",
            [
                html.escape(err.message),
                "This happens after many room codes that do not exist. If someone sent you a "
                "link, check that it is complete.",
            ],
            429,
            _retry_after(err),
        )
    except CardtableError as err:
        if err.code != ROOM_NOT_FOUND:
            return _error(err, _status_for(err))
        shown = html.escape(raw[:40])
        return _page(
            "Room not found",
            [f"There is no room <strong>{shown}</strong>. It may have expired."],
            404,
        )
    return _index(request.app[CONFIG_KEY])


async def create_room(request: web.Request) -> web.Response:
    rooms, config = request.app[ROOMS_KEY], request.app[CONFIG_KEY]
    try:
        await rooms.count_attempt(
            "create",
            request_address(request, config.trusted_proxies),
            config.joins_per_minute,
            config.clock,
        )
        # Only a game file may be bigger than 16 KB (up to MAX_FILE_BYTES, images included).
        raw = await _read_capped(request, MAX_FILE_BYTES)
        body = _json_body(raw) if raw else {}
        if not isinstance(body, dict):
            raise CardtableError(BAD_REQUEST, "The body must be a JSON object.")
        if len(raw) > 16 * 1024 and set(body) != {"game_file"}:
            raise CardtableError(BAD_REQUEST, "Request body too large.")
        if "game_file" not in body:  # a file nests deeper; its schema bounds its shape
            check_payload(body, 16 * 1024)
        msg = parse(CreateRoom, body, "POST /api/rooms")
        if msg.game_file is not None or msg.library is not None:
            if len([k for k in body if body[k] is not None]) != 1:
                raise CardtableError(BAD_REQUEST, "Send a game_file or a library name alone.")
            made = await homemade.create_from_file(
                rooms, msg.game_file if msg.game_file is not None else library.entry(msg.library)
            )
            return _created(request, made)
        if msg.game is not None and (msg.template is not None or msg.seats is not None):
            raise CardtableError(
                BAD_REQUEST,
                "A game room's seats and table come from the "
                "game: send either game (and options) or template and seats.",
            )
        if msg.game is None and msg.options is not None:
            raise CardtableError(BAD_REQUEST, "'options' go with a 'game'.")
        if msg.game is None and msg.computers is not None:
            raise CardtableError(BAD_REQUEST, "'computers' go with a 'game'.")
        table = await rooms.create_room(
            msg.template or "standard", msg.seats or 4, msg.game, msg.options, msg.computers
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return _created(request, table)


async def _read_capped(request: web.Request, cap: int) -> bytes:
    """The request body, refused with ``too_large`` past ``cap`` bytes (read in chunks, so a
    lying or missing Content-Length changes nothing)."""
    if request.content_length is not None and request.content_length > cap:
        raise CardtableError(TOO_LARGE, f"The body may be at most {cap // (1024 * 1024)} MB.")
    chunks: list[bytes] = []
    size = 0
    while chunk := await request.content.readany():
        size += len(chunk)
        if size > cap:
            raise CardtableError(TOO_LARGE, f"The body may be at most {cap // (1024 * 1024)} MB.")
        chunks.append(chunk)
    return b"".join(chunks)


def _created(request: web.Request, table: Table) -> web.Response:
    logs.bind(table.code)
    log.info("room created (%d seats)", table.seats)
    path = f"/r/{table.code}"
    return _body(
        bodies.RoomCreated(
            code=table.code,
            display=codes.pretty(table.code),
            path=path,
            url=str(request.url.with_path(path).with_query(None)),
            template=table.template,
            seats=table.seats,
            game=table.game.name if table.game else None,
        ),
        status=201,
    )


def _body(body: msgspec.Struct, status: int = 200) -> web.Response:
    """A response built from its struct (server/net/http_types.py), as docs/openapi.json says."""
    return web.json_response(msgspec.to_builtins(body), status=status)


async def room_info(request: web.Request) -> web.Response:
    try:
        table = await _lookup(
            request, codes.normalize(request.match_info["code"]), request.app[ROOMS_KEY].load_table
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return _body(
        bodies.RoomInfo(
            code=table.code,
            display=codes.pretty(table.code),
            seats=table.seats,
            template=table.template,
            players=len(table.players),
            version=table.version,
        )
    )


async def games_list(request: web.Request) -> web.Response:
    """The rule games a room can play, with their options as data (the home page renders
    them without knowing any game)."""
    fill = {
        "name": "fill",
        "label": "Computer fills in",
        "default": False,
        "choices": [True, False],
        "description": "A computer plays for a seat whose player left, until someone sits.",
    }
    return web.json_response(
        [
            {
                "name": b.info.name,
                "title": b.info.title,
                "min_players": b.info.min_players,
                "max_players": b.info.max_players,
                "options": [o.as_data() for o in b.info.options if o.check is None] + [fill],
            }
            for b in GAMES.values()
        ]
    )


def _token(request: web.Request) -> str | None:
    """The ``X-Player-Token`` header; None (so ``bad_token``) if it is not valid text (aiohttp
    reads a header's bytes that are not UTF-8 as lone surrogates)."""
    token = request.headers.get("X-Player-Token")
    return token if token is not None and utf8_text(token) else None


def _code(request: web.Request) -> str | None:
    return codes.normalize(request.match_info["code"])


async def game_file(request: web.Request) -> web.Response:
    """``GET /api/rooms/{code}/game-file[?positions=1]``: the room as a game file (editors)."""
    rooms = request.app[ROOMS_KEY]
    positions = request.query.get("positions", "0") in ("1", "true", "yes")
    try:
        data = await _lookup(
            request,
            _code(request),
            lambda code: homemade.export_room(rooms, code, _token(request), positions),
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return web.json_response(
        data,
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="{request.match_info["code"][:12]}'
            '.cardtable.json"',
        },
    )


async def copy_room(request: web.Request) -> web.Response:
    """``POST /api/rooms/{code}/copy {"positions": bool}``: a new room, a copy of this one (its
    layout, or everything), made as saving and loading a game file would; for editors."""
    rooms, config = request.app[ROOMS_KEY], request.app[CONFIG_KEY]
    try:
        await rooms.count_attempt(
            "create",
            request_address(request, config.trusted_proxies),
            config.joins_per_minute,
            config.clock,
        )
        raw = await _read_capped(request, 1024)
        msg = parse(bodies.CopyRoom, _json_body(raw) if raw else {}, "POST /api/rooms/{code}/copy")
        made = await _lookup(
            request,
            _code(request),
            lambda code: homemade.copy_room(rooms, code, _token(request), msg.positions),
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return _created(request, made)


async def hand_list(request: web.Request) -> web.Response:
    """``GET /api/rooms/{code}/hands``: the room's finished hands, oldest first (number, game,
    deal, players, commitment and seed); a hand being played is not listed."""
    rooms = request.app[ROOMS_KEY]
    try:
        records = await _lookup(request, _code(request), rooms.hand_records)
    except CardtableError as err:
        return _error(err, _status_for(err))
    hands = []
    for n, raw in enumerate(records, 1):
        rec = json.loads(raw)
        hands.append(
            {k: rec.get(k) for k in ("game", "deal", "players", "commitment", "seed")} | {"n": n}
        )
    return web.json_response({"hands": hands}, headers={"Cache-Control": "no-store"})


async def hand_record(request: web.Request) -> web.Response:
    """``GET /api/rooms/{code}/hands/{n}[?download=1]``: finished hand ``n``'s record (JSON,
    docs/fairness.md); ``hand_not_over`` (409) for the hand being played."""
    rooms = request.app[ROOMS_KEY]
    text = request.match_info["n"]
    try:
        if not text.isdigit() or len(text) > 6:
            raise CardtableError(NO_SUCH_HAND, "A hand is a number from 1.")
        n = int(text)
        body = await _lookup(request, _code(request), lambda code: rooms.hand_record(code, n))
    except CardtableError as err:
        return _error(err, _status_for(err))
    headers = {"Cache-Control": "no-store"}
    record = fairness.served(body)
    if request.query.get("download") in ("1", "true", "yes"):
        name = f"{request.match_info['code'][:12]}-hand-{n}.json"
        headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return web.json_response(record, headers=headers)


async def upload_image(request: web.Request) -> web.Response:
    """``POST /api/rooms/{code}/images``: raw body or a multipart file field (editors)."""
    rooms, config = request.app[ROOMS_KEY], request.app[CONFIG_KEY]
    try:
        code = _code(request)
        data = b""
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            part = await reader.next()
            while part is not None and not isinstance(part, BodyPartReader):
                part = await reader.next()  # pragma: no cover - nested multiparts
            if part is None:
                raise CardtableError(BAD_REQUEST, "The form has no file.")
            while chunk := await part.read_chunk():
                data += chunk
                if len(data) > MAX_IMAGE_BYTES:
                    raise CardtableError(TOO_LARGE, "An image may be at most 2 MB.")
        else:
            data = await _read_capped(request, MAX_IMAGE_BYTES)
        digest, kind = await _lookup(
            request,
            code,
            lambda c: homemade.upload_image(rooms, c, _token(request), data, config.clock),
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return _body(
        bodies.ImageStored(hash=digest, type=kind, url=f"/api/rooms/{code}/images/{digest}"),
        status=201,
    )


async def get_image(request: web.Request) -> web.StreamResponse:
    rooms = request.app[ROOMS_KEY]
    digest = request.match_info["hash"]
    try:
        if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
            raise CardtableError(ROOM_NOT_FOUND, "There is no such image in this room.")
        data, kind = await _lookup(
            request, _code(request), lambda c: homemade.fetch_image(rooms, c, digest)
        )
    except CardtableError as err:
        return _error(err, _status_for(err))
    return web.Response(
        body=data,
        content_type=kind,
        headers={
            "Cache-Control": "public, max-age=31536000, immutable",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        },
    )


async def library_list(request: web.Request) -> web.Response:
    return web.json_response(library.listing())


async def parse_deck(request: web.Request) -> web.Response:
    """``POST /api/decks/parse {"text", "format": "list"|"csv"}``: the cards of a deck list."""
    try:
        body = _json_body(await _read_capped(request, 256 * 1024))
        text = body.get("text") if isinstance(body, dict) else None
        fmt = body.get("format", "list") if isinstance(body, dict) else None
        if not isinstance(text, str) or fmt not in ("list", "csv"):
            raise CardtableError(BAD_REQUEST, 'Send {"text": "...", "format": "list" or "csv"}.')
        cards = parse_csv(text) if fmt == "csv" else parse_list(text)
    except CardtableError as err:
        return _error(err, _status_for(err))
    return web.json_response(
        {
            "cards": [
                {"text": c.text, "color": c.color, "count": c.count, "image": c.image}
                for c in cards
            ]
        }
    )


async def healthz(request: web.Request) -> web.Response:
    rooms = request.app[ROOMS_KEY]
    ok = await rooms.store.ping()
    return _body(
        bodies.Health(status="ok" if ok else "degraded", store="ok" if ok else "unreachable"),
        status=200 if ok else 503,
    )


async def metrics_page(request: web.Request) -> web.Response:
    """This process's Prometheus metrics (docs/architecture.md, "Operating it")."""
    resp = web.Response(body=metrics.exposition())
    resp.headers["Content-Type"] = metrics.CONTENT_TYPE
    return resp


async def readyz(request: web.Request) -> web.Response:
    """Ready for traffic: the store answers and this process's feed subscriber is reading."""
    store = await request.app[ROOMS_KEY].store.ping() if ROOMS_KEY in request.app else False
    alive = request.app.get(FEED_ALIVE_KEY)
    feed = alive is not None and alive()
    ready = store and feed
    return _body(
        bodies.Ready(
            status="ready" if ready else "not ready",
            store="ok" if store else "unreachable",
            feed="ok" if feed else "down",
        ),
        status=200 if ready else 503,
    )


def add_routes(app: web.Application, config: Config) -> None:
    app.router.add_get("/", index)
    app.router.add_get("/r/{code}", room_page)
    app.router.add_post("/api/rooms", create_room)
    app.router.add_get("/api/rooms/{code}", room_info)
    app.router.add_get("/api/games", games_list)
    app.router.add_get("/api/library", library_list)
    app.router.add_post("/api/decks/parse", parse_deck)
    app.router.add_get("/api/rooms/{code}/game-file", game_file)
    app.router.add_post("/api/rooms/{code}/copy", copy_room)
    app.router.add_get("/api/rooms/{code}/hands", hand_list)
    app.router.add_get("/api/rooms/{code}/hands/{n}", hand_record)
    app.router.add_post("/api/rooms/{code}/images", upload_image)
    app.router.add_get("/api/rooms/{code}/images/{hash}", get_image)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics_page)
    assets = config.web_dir
    if assets.exists():
        app.router.add_static("/assets/", Path(assets), follow_symlinks=False)
