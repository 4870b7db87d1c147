"""Unknown paths get the styled "Page not found" page (the issue's "table not found" voice), not
aiohttp's bare "404: Not Found"; unknown API routes get a JSON error."""

from __future__ import annotations

import aiohttp


async def test_unknown_paths_get_the_styled_page(server):
    async with aiohttp.ClientSession() as http:
        for path in (
            "/nothing-here",
            "/r",
            "/rooms/ABCDE-FGHJK",
            "/r/ABCDEFGHJK/extra",
            "/<script>alert(1)</script>",
        ):
            async with http.get(f"{server.url}{path}") as r:
                assert r.status == 404, path
                assert r.content_type == "text/html", path
                text = await r.text()
                assert "<h1>Page not found</h1>" in text and "404: Not Found" not in text
                assert '<link rel="stylesheet" href="/assets/app.css">' in text
                assert '<a href="/">Start a new room</a>' in text
                assert "<script>" not in text  # the path is shown escaped
                assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        async with http.get(f"{server.url}/nothing-here") as r:
            assert "<strong>/nothing-here</strong>" in await r.text()
        async with http.get(f"{server.url}/assets/missing.js") as r:  # an asset: 404, no page
            assert r.status == 404
        async with http.get(f"{server.url}/api/no-such-route") as r:
            body = await r.json()
            assert r.status == 404 and body["code"] == "not_found" and body["ref"] is None
        async with http.get(f"{server.url}/r/ZZZZZZZZ") as r:  # a room code keeps its page
            assert r.status == 404 and "Room not found" in await r.text()
        async with http.get(f"{server.url}/api/rooms/ZZZZ-ZZZZ") as r:
            assert r.status == 404 and (await r.json())["code"] == "room_not_found"
