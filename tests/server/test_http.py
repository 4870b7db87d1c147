"""HTTP: room creation from templates, codes, the room page, 404s, health and headers."""

from __future__ import annotations

import aiohttp
import pytest

from cardtable_client import OpFailed
from server.room import codes
from server.table.objects import Card
from tests.conftest import new_room
from tests.server.helpers import server_table


async def test_create_room_from_each_template(server):
    async with aiohttp.ClientSession() as http:
        sizes = {}
        for template in ("blank", "standard", "standard-jokers"):
            async with http.post(f"{server.url}/api/rooms", json={"template": template}) as r:
                assert r.status == 201
                body = await r.json()
            assert codes.normalize(body["code"]) == body["code"]
            assert body["url"].endswith(f"/r/{body['code']}")
            assert body["display"] == f"{body['code'][:5]}-{body['code'][5:]}"
            table = await server_table(server, body["code"])
            sizes[template] = sum(isinstance(o, Card) for o in table.objects.values())
        assert sizes == {"blank": 0, "standard": 52, "standard-jokers": 54}
        async with http.post(f"{server.url}/api/rooms", json={"template": "tarot"}) as r:
            assert r.status == 400
            assert (await r.json())["code"] == "bad_request"
        async with http.post(f"{server.url}/api/rooms", data=b"[[[") as r:
            assert r.status == 400


def test_codes_are_readable_and_forgiving():
    made = {codes.new_code() for _ in range(2000)}
    assert len(made) == 2000
    for code in made:
        assert len(code) == 10 and not set(code) & set("01OIL")
    code = next(iter(made))
    assert codes.normalize(f"  {code[:5].lower()}-{code[5:]} ") == code
    assert codes.normalize("ABCD-EFG0") is None and codes.normalize(42) is None
    assert len(codes.ALPHABET) ** codes.LENGTH > 2**49


async def test_room_page_and_unknown_code(server, make_client):
    code = await new_room(server)
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.url}/r/{code}") as r:
            assert r.status == 200
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        async with http.get(f"{server.url}/r/ZZZZZZZZ") as r:
            assert r.status == 404
            assert "Room not found" in await r.text()
        async with http.get(f"{server.url}/r/<script>") as r:
            assert r.status == 404
            assert "<script>" not in await r.text()
        async with http.get(f"{server.url}/api/rooms/ZZZZ-ZZZZ") as r:
            assert r.status == 404 and (await r.json())["code"] == "room_not_found"
        async with http.get(f"{server.url}/api/rooms/{code}") as r:
            assert (await r.json())["players"] == 0
        async with http.get(f"{server.url}/healthz") as r:
            assert r.status == 200 and (await r.json())["store"] == "ok"
        async with http.get(f"{server.url}/") as r:
            assert r.status == 200 and "text/html" in r.headers["Content-Type"]
    c = await make_client()
    with pytest.raises(OpFailed) as err:
        await c.request("join", {"code": "ZZZZZZZZ", "name": "x"})
    assert err.value.code == "room_not_found"
    with pytest.raises(OpFailed) as err:
        await c.request("join", {"code": "nope", "name": "x"})
    assert err.value.code == "room_not_found"
