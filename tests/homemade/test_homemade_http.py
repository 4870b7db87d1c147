"""Homemade games over real sockets and HTTP, on a real redis-server: images, game files,
the library, and the edit permission."""

from __future__ import annotations

import hashlib

import aiohttp

from cardtable_client import OpFailed
from tests.conftest import new_room

PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 64
JPEG = b"\xff\xd8\xff\xe0" + b"\x02" * 64
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x03" * 32
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


async def test_images_are_sniffed_capped_and_served_typed(server, make_client):
    code = await new_room(server)
    host, guest = await make_client(), await make_client()
    await host.join(code, "Host", seat=0)
    await guest.join(code, "Guest", seat=1)
    url = f"{server.url}/api/rooms/{code}/images"
    async with aiohttp.ClientSession() as http:

        async def post(data: bytes, token: str | None, **kw: object) -> tuple[int, dict]:
            headers = {"X-Player-Token": token} if token else {}
            async with http.post(
                url, data=data, headers={**headers, "Content-Type": "image/png"}, **kw
            ) as r:
                return r.status, await r.json()

        for body, kind in [(PNG, "image/png"), (JPEG, "image/jpeg"), (WEBP, "image/webp")]:
            status, got = await post(body, host.token)
            assert status == 201 and got["type"] == kind
            assert got["hash"] == hashlib.sha256(body).hexdigest()
            async with http.get(f"{server.url}{got['url']}") as r:
                assert r.status == 200 and r.headers["Content-Type"] == kind
                assert r.headers["X-Content-Type-Options"] == "nosniff"
                assert "immutable" in r.headers["Cache-Control"]
                assert await r.read() == body
        status, got = await post(SVG, host.token)  # labelled image/png, sniffed as SVG
        assert status == 400 and "SVG" in got["message"]
        assert (await post(b"GIF89a....", host.token))[0] == 400
        assert (await post(PNG + b"\x00" * (2 * 1024 * 1024), host.token))[0] == 413
        assert (await post(PNG, guest.token))[0] == 403  # not an editor
        assert (await post(PNG, None))[0] == 401
        form = aiohttp.FormData()
        form.add_field("file", PNG + b"x", filename="card.svg", content_type="image/svg+xml")
        async with http.post(url, data=form, headers={"X-Player-Token": host.token}) as r:
            assert r.status == 201 and (await r.json())["type"] == "image/png"
        async with http.get(f"{url}/{'0' * 64}") as r:
            assert r.status == 404


async def test_game_file_round_trip_through_http_and_library(server, make_client):
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.url}/api/library") as r:
            lib = await r.json()
        assert {e["name"] for e in lib} >= {"poker", "spades", "blank"}
        async with http.post(f"{server.url}/api/rooms", json={"library": "poker"}) as r:
            assert r.status == 201, await r.text()
            code = (await r.json())["code"]
        host, guest = await make_client(), await make_client()
        await host.join(code, "Host", seat=0)
        await guest.join(code, "Guest", seat=1)
        try:
            await guest.op("create", kind="die")
            raise AssertionError("a guest created an object")
        except OpFailed as err:
            assert "forbidden" in str(err)
        got = await guest.op("press", id="deal")  # any seated player may press
        assert "code" not in got, got
        assert len(guest.objects["hand1"]["cards"]) == 2
        file_url = f"{server.url}/api/rooms/{code}/game-file"
        async with http.get(file_url, headers={"X-Player-Token": guest.token}) as r:
            assert r.status == 403
        async with http.get(f"{file_url}?positions=1", headers={"X-Player-Token": host.token}) as r:
            assert r.status == 403  # another player is seated: hands stay hidden
        async with http.get(file_url, headers={"X-Player-Token": host.token}) as r:
            assert r.status == 200
            first = await r.json()
        assert first["version"] == 1 and first["title"] == "Poker table"
        async with http.post(f"{server.url}/api/rooms", json={"game_file": first}) as r:
            assert r.status == 201, await r.text()
            code2 = (await r.json())["code"]
        host2 = await make_client()
        await host2.join(code2, "Host", seat=0)
        async with http.get(
            f"{server.url}/api/rooms/{code2}/game-file", headers={"X-Player-Token": host2.token}
        ) as r:
            assert await r.json() == first
        bad = {**first, "objects": [*first["objects"], {"kind": "label", "id": "x", "bad": 1}]}
        async with http.post(f"{server.url}/api/rooms", json={"game_file": bad}) as r:
            assert r.status == 400 and "unknown field `bad`" in (await r.json())["message"]
        async with http.post(
            f"{server.url}/api/rooms", json={"game_file": first, "template": "blank"}
        ) as r:
            assert r.status == 400
        async with http.post(
            f"{server.url}/api/rooms", json={"template": "blank", "x": "y" * 20000}
        ) as r:
            assert r.status == 400  # only a game file may be big
        async with http.post(
            f"{server.url}/api/decks/parse", json={"text": '"A, b", red, 2', "format": "list"}
        ) as r:
            assert (await r.json())["cards"][0] == {
                "text": "A, b",
                "color": "red",
                "count": 2,
                "image": None,
            }


async def test_copy_a_table_layout_or_everything(server, make_client):
    code = await new_room(server, template="standard", seats=4)
    host = await make_client()
    await host.join(code, "Host", seat=0)
    await host.op("create", kind="label", text="House rules", x=40, y=40)
    await host.op("deal", id="deck", n=3)
    assert len(host.objects["hand0"]["cards"]) == 3
    url = f"{server.url}/api/rooms/{code}/copy"
    async with aiohttp.ClientSession() as http:

        async def copy(body: object, token: str | None, to: str = url) -> tuple[int, dict]:
            headers = {"X-Player-Token": token} if token else {}
            async with http.post(to, json=body, headers=headers) as r:
                return r.status, await r.json()

        # Everything: the copier holds the same three cards in the copy.
        status, made = await copy({"positions": True}, host.token)
        assert status == 201, made
        assert made["code"] != code and made["path"] == f"/r/{made['code']}"
        again = await make_client()
        await again.join(made["code"], "Host", seat=0)
        faces = sorted(c["face"] for c in again.objects.values() if c.get("parent") == "hand0")
        mine = sorted(c["face"] for c in host.objects.values() if c.get("parent") == "hand0")
        assert faces == mine and len(faces) == 3
        assert any(o.get("text") == "House rules" for o in again.objects.values())
        # The layout (the default): every card back in the deck, the label kept, hands empty.
        status, made = await copy({}, host.token)
        assert status == 201, made
        fresh = await make_client()
        await fresh.join(made["code"], "Host", seat=0)
        assert len(fresh.objects["deck"]["cards"]) == 52
        assert not fresh.objects["hand0"]["cards"]
        assert any(o.get("text") == "House rules" for o in fresh.objects.values())
        # Who may: editors; everything only with nobody else seated; the body is checked.
        guest = await make_client()
        await guest.join(code, "Guest", seat=1)
        assert (await copy({}, guest.token))[0] == 403
        status, got = await copy({"positions": True}, host.token)
        assert status == 403 and got["code"] == "forbidden"
        assert (await copy({}, None))[0] == 401
        status, got = await copy({"positions": "yes"}, host.token)
        assert status == 400 and got["code"] == "bad_request"
        assert (await copy({"evil": 1}, host.token))[0] == 400
        assert (await copy({}, host.token, f"{server.url}/api/rooms/ZZZZZZZZ/copy"))[0] == 404
