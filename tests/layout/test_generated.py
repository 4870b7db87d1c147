"""The generated protocol files match the structs they come from: web/src/net/protocol.gen.ts
(the TypeScript wire types) and docs/openapi.json (the HTTP routes). A change to a msgspec
struct without ``make generate`` fails here, naming the files to regenerate."""

from __future__ import annotations

import json
from pathlib import Path

from aiohttp import web

from server.config import Config
from server.net import typegen
from server.net.http import add_routes


def test_the_generated_files_are_up_to_date() -> None:
    stale = [str(p.relative_to(typegen.ROOT)) for p in typegen.stale()]
    assert stale == [], f"{', '.join(stale)} differ from the structs: run `make generate`"


def test_every_client_event_and_operation_has_a_typescript_type() -> None:
    text = typegen.typescript()
    for event in typegen.M.SCHEMAS:
        assert f"  {event}: " in text
    for name in typegen.P.OP_NAMES:
        assert f'  op: "{name}";' in text
    for kind in typegen.O.Obj.__args__:
        assert f'  t: "{kind.__struct_config__.tag}";' in text


def test_the_openapi_document_names_every_route() -> None:
    doc = json.loads(typegen.openapi_text())
    assert doc["openapi"].startswith("3.1")
    app = web.Application()
    add_routes(app, Config(web_dir=Path("/nonexistent")))
    routes = {
        (r.method.lower(), r.resource.canonical)
        for r in app.router.routes()
        if r.resource is not None and r.method != "HEAD"
    }
    pages = {("get", "/"), ("get", "/r/{code}")}  # HTML pages, not API
    documented = {(m, path) for path, ops in doc["paths"].items() for m in ops}
    assert documented == routes - pages
    schemas = doc["components"]["schemas"]
    assert schemas["CreateRoom"]["additionalProperties"] is False
