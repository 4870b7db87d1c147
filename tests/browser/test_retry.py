"""The web client retries a retryable refusal itself (issue 8, item 6): a burst of operations
over the connection's rate limit is refused in part with `rate_limited` (retryable), and the
page sends those operations again after a pause, so every one of them lands and the person sees
no error. Each operation carries its own `opid`, the same on every send (issue 17, item 2: the
server applies an operation id at most once, so a retry after an unknown outcome is safe)."""

from __future__ import annotations

import json
from typing import Any

import msgpack

from server.net.http import ROOMS_KEY
from server.table.objects import Counter
from tests.browser.conftest import BROWSER_TESTS, Pages, enter_room, settled, shot, wait_js
from tests.conftest import make_config, start_server

pytestmark = BROWSER_TESTS

BURST = 8


def events(frames: list[Any]) -> list[list[Any]]:
    """The Socket.IO events ``[name, payload]`` in websocket frames: the page speaks msgpack
    (binary frames, socket.io-msgpack-parser's ``{type, nsp, data}``), a JSON page ``42[...]``."""
    out: list[list[Any]] = []
    for f in frames:
        if isinstance(f, bytes):
            packet = msgpack.unpackb(f)
            if isinstance(packet, dict) and packet.get("type") == 2:
                out.append(packet["data"])
        elif f.startswith("42["):
            out.append(json.loads(f[2:]))
    return out


async def test_operations_refused_as_retryable_are_sent_again_until_they_land(
    browser: Any, redis_server: Any
) -> None:
    # Two operations at once, then ten a second: a burst of eight is mostly refused at first.
    cfg = make_config(redis_server.url)
    cfg.ops_burst = 2
    cfg.ops_per_second = 10.0
    srv = await start_server(cfg)
    own = Pages(browser, srv)
    try:
        page = await own.open("/?name=Ana")
        frames: list[Any] = []
        sent: list[Any] = []

        def watch(ws: Any) -> None:
            ws.on("framereceived", lambda payload: frames.append(payload))
            ws.on("framesent", lambda payload: sent.append(payload))

        page.on("websocket", watch)
        await page.select_option("[data-testid=template]", "blank")
        await page.click("[data-testid=create-room]")
        code = await enter_room(page)
        await page.evaluate(
            """(n) => { const room = window.__cardtable.room;
            for (let i = 0; i < n; i++)
              room.cmd.create({op: 'create', kind: 'counter', x: 100 + 90 * i, y: 300, value: i,
                           label: 'C' + i}); }""",
            BURST,
        )

        await wait_js(page, "s.server.filter(o => o.t === 'counter').length === arg", BURST)
        await settled(page)
        got = events(frames)
        assert any(name == "delta" for name, *_ in got)  # the frames were read
        refused = [e for e in got if e[0] == "error" and e[1].get("code") == "rate_limited"]
        assert refused, "the burst was never refused: the test proves nothing"
        ops = [e[1] for e in events(sent) if e[0] == "op"]
        opids: dict[Any, set[str]] = {}
        for op in ops:
            opids.setdefault(op["ref"], set()).add(op.get("opid", ""))
        assert len(ops) > len(opids), "no operation was sent twice: the test proves nothing"
        assert all(len(ids) == 1 and "" not in ids for ids in opids.values()), opids
        assert len({next(iter(ids)) for ids in opids.values()}) == len(opids)  # one id each
        table = await srv.app[ROOMS_KEY].load_table(code)
        labels = sorted(o.label for o in table.objects.values() if isinstance(o, Counter))
        assert labels == sorted(f"C{i}" for i in range(BURST))
        assert await page.locator("[data-testid=toast].error").count() == 0
        await shot(page, "retry-burst-landed")
    finally:
        await own.close()
        await srv.stop()
    assert not own.errors, own.errors
