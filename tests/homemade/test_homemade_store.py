"""What homemade games leave in Redis: a refused game file leaves no room and no images behind,
and a room's images live and expire with the room (their TTL is set with the room's and
refreshed by every commit)."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import aiohttp

from server.net.http import ROOMS_KEY
from server.store.redis_store import image_key, room_key
from tests.conftest import make_config, start_server

PNG = b"\x89PNG\r\n\x1a\n" + b"\x05" * 64
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def game_file(images: dict[str, bytes], objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "cardtable-game",
        "version": 1,
        "title": "T",
        "seats": 2,
        "images": {
            hashlib.sha256(b).hexdigest(): base64.b64encode(b).decode() for b in images.values()
        },
        "objects": objects,
    }


def picture_deck(png: bytes) -> dict[str, Any]:
    sha = hashlib.sha256(png).hexdigest()
    return {
        "kind": "pile",
        "id": "deck",
        "x": 100,
        "y": 100,
        "holder": True,
        "cards": [{"text": "Picture", "image": sha, "count": 3, "back": sha}],
    }


async def room_and_image_keys(redis: Any) -> set[bytes]:
    keys = set()
    for pattern in ("ct:{*}:room", "ct:{*}:img", "ct:{*}:log"):
        keys |= {k async for k in redis.scan_iter(match=pattern, count=1000)}
    return keys


async def test_a_refused_game_file_leaves_no_room_and_no_images(server):
    redis = server.app[ROOMS_KEY].store.redis
    good = game_file({"png": PNG}, [picture_deck(PNG)])
    sha = hashlib.sha256(PNG).hexdigest()
    refused = [  # (file, what the refusal names)
        # Valid images, then a fault further on: the images were decoded, but nothing is stored.
        (
            {**good, "objects": [picture_deck(PNG), {"kind": "label", "id": "x", "evil": 1}]},
            "unknown field `evil`",
        ),
        (
            {
                **good,
                "objects": [
                    picture_deck(PNG),
                    {
                        "kind": "button",
                        "id": "b",
                        "label": "B",
                        "steps": [{"do": "shuffle", "id": "nope"}],
                    },
                ],
            },
            "names 'nope'",
        ),
        ({**good, "seats": 99}, "$.seats"),
        # Hostile images: SVG, a sha256 that doesn't match, not base64.
        (game_file({"svg": SVG}, []), "SVG"),
        ({**good, "images": {"0" * 64: base64.b64encode(PNG).decode()}}, "does not match"),
        ({**good, "images": {sha: "%%% not base64 %%%"}}, "not valid base64"),
    ]
    before = await room_and_image_keys(redis)
    async with aiohttp.ClientSession() as http:
        for body, why in refused:
            async with http.post(f"{server.url}/api/rooms", json={"game_file": body}) as r:
                assert r.status == 400 and why in (await r.json())["message"], why
        assert await room_and_image_keys(redis) == before  # nothing half-loaded
        async with http.post(f"{server.url}/api/rooms", json={"game_file": good}) as r:
            assert r.status == 201, await r.text()  # the same file, fixed, loads
            code = (await r.json())["code"]
    assert await room_and_image_keys(redis) == before | {
        room_key(code).encode(),
        image_key(code).encode(),
    }
    assert await redis.hkeys(image_key(code)) == [sha.encode()]


async def test_images_expire_with_their_room_and_commits_refresh_them(redis_server):
    ttl = 3600  # the room TTL of this server (the default is 14 days)
    srv = await start_server(make_config(redis_server.url, room_ttl_seconds=ttl))
    redis = srv.app[ROOMS_KEY].store.redis
    try:
        async with aiohttp.ClientSession() as http:
            body = {"game_file": game_file({"png": PNG}, [picture_deck(PNG)])}
            async with http.post(f"{srv.url}/api/rooms", json=body) as r:
                code = (await r.json())["code"]
            room, images = room_key(code), image_key(code)
            # Made from a file: the images expire with the room, not never.
            for key in (room, images):
                assert 0 < await redis.pttl(key) <= ttl * 1000
            host = await srv.client()
            try:
                await host.join(code, "Host", seat=0)
                # An image uploaded later gets the room's TTL too.
                other = PNG + b"\x06"
                async with http.post(
                    f"{srv.url}/api/rooms/{code}/images",
                    data=other,
                    headers={"X-Player-Token": host.token, "Content-Type": "image/png"},
                ) as r:
                    assert r.status == 201, await r.text()
                assert await redis.hlen(images) == 2
                assert 0 < await redis.pttl(images) <= ttl * 1000
                # Let both keys run low; one commit puts the room and its images back to the
                # full TTL together.
                await redis.expire(room, 30)
                await redis.expire(images, 30)
                await host.op("create", kind="die")
                pipe = redis.pipeline(transaction=True)
                pipe.pttl(room)
                pipe.pttl(images)
                room_left, images_left = await pipe.execute()
                assert 30_000 < images_left <= ttl * 1000 and 30_000 < room_left <= ttl * 1000
            finally:
                await host.close()
    finally:
        await srv.stop()
