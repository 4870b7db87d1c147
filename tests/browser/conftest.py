"""Browser fixtures: Debian's Chromium driven by Playwright (async API), pages on the test server.

One server and one browser serve the whole browser suite (each test makes its own rooms and
browser contexts), all on the session's event loop: browser tests are marked
``pytest.mark.asyncio(loop_scope="session")`` (see ``pytestmark`` in each module). The ``browser``
fixture depends on ``server`` so that it closes before the server shuts down (otherwise aiohttp
waits for open websockets); the ``pages`` fixture closes every context at the end of its test.
Every page records console errors and uncaught exceptions, and ``pages`` fails the test on any
that were not expected (a CSP violation, for instance, is a console error).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from server.room.codes import pretty
from tests.conftest import RunningServer, make_config, skip_or_fail, start_server

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
WEB_INDEX = ROOT / "web" / "dist" / "index.html"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Console noise that is expected in some tests: a 404 asked for on purpose, and the browser's
# own report of websocket attempts failing while a test holds the network offline.
ALLOWED_CONSOLE = [
    re.compile(r"Failed to load resource: the server responded with a status of 404"),
    re.compile(r"WebSocket connection to .* failed"),
]


BROWSER_TESTS = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def server(redis_server: Any) -> AsyncIterator[RunningServer]:
    """The real server, once for all browser tests (overrides the per-test one). Computer players
    move after 0.15 s instead of 0.8 s, so that a hand against one fits in a short test."""
    running = await start_server(make_config(redis_server.url, bot_delay_seconds=0.15))
    yield running
    await running.stop()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(server: RunningServer) -> AsyncIterator[Any]:
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"{CHROMIUM} is missing (apt-get install chromium)")
    if not WEB_INDEX.exists():
        skip_or_fail("the web client is not built: run `make web`")
    try:
        from playwright.async_api import async_playwright
    except ImportError:  # pragma: no cover - depends on the environment
        skip_or_fail("playwright is not installed")
        raise
    pw = await async_playwright().start()
    b = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    await b.close()
    await pw.stop()


class Pages:
    """Opens pages in fresh browser contexts (each its own localStorage, like another person)."""

    def __init__(self, browser: Any, server: RunningServer) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    async def open(
        self, path: str = "/", *, viewport: tuple[int, int] = (1280, 800), **context_args: Any
    ) -> Any:
        ctx = await self.browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, **context_args
        )
        self.contexts.append(ctx)
        page = await ctx.new_page()
        page.set_default_timeout(10_000)

        def on_console(msg: Any) -> None:
            if msg.type == "error" and not any(p.search(msg.text) for p in ALLOWED_CONSOLE):
                self.errors.append(f"console: {msg.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        if path is not None:
            await page.goto(self.server.url + path)
        return page

    async def close(self) -> None:
        for ctx in self.contexts:
            await ctx.close()


@pytest_asyncio.fixture(loop_scope="session")
async def pages(browser: Any, server: RunningServer) -> AsyncIterator[Pages]:
    p = Pages(browser, server)
    yield p
    await p.close()
    assert not p.errors, "errors in the page:\n" + "\n".join(p.errors)


# --- helpers used by the tests -------------------------------------------------------------------


async def shot(page: Any, name: str) -> Path:
    """Save a screenshot under test-artifacts/ (look at them!)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path


async def dump(page: Any) -> dict[str, Any]:
    """The page's client state as plain data (window.__cardtable.dump())."""
    return json.loads(await page.evaluate("JSON.stringify(window.__cardtable.dump())"))


async def wait_js(page: Any, expr: str, arg: Any = None, timeout: float = 10_000) -> Any:
    """Wait until a JS expression over `s` (the dump) and `arg` is truthy."""
    fn = (
        "(arg) => { const s = window.__cardtable && window.__cardtable.dump(); "
        f"return !!s && ({expr}); }}"
    )
    return await page.wait_for_function(fn, arg=arg, timeout=timeout)


async def enter_room(page: Any) -> str:
    """Wait until the page has joined and holds the table; returns the room code."""
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]{8,10}(\?.*)?$"))
    await wait_js(page, "s.v >= 0 && s.conn === 'online'")
    return str((await dump(page))["code"])


async def table_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """Page coordinates of table point (x, y) (table units)."""
    got = await page.evaluate(
        """([x, y]) => { const r = window.__cardtable.room.r;
        const st = r.stage.getBoundingClientRect();
        return [st.left + r.geom.ox + x * r.geom.s, st.top + r.geom.oy + y * r.geom.s]; }""",
        [x, y],
    )
    return float(got[0]), float(got[1])


async def settled(page: Any, timeout: float = 10_000) -> None:
    """Wait until nothing on the page is animating (cards glide, panels slide, toasts fade):
    before a screenshot, or before grabbing something that may still be moving. Two animation
    frames first, so that a render already scheduled (state changes draw on the next frame) has
    started its transitions."""
    await page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    await page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running'"
        " || (a.effect && a.effect.getTiming().iterations === Infinity))",
        timeout=timeout,
    )


async def center(page: Any, selector: str) -> tuple[float, float]:
    """The centre of an element once it stopped moving (objects glide into place)."""
    loc = page.locator(selector).first
    await loc.wait_for()
    await settled(page)
    box = await loc.bounding_box()
    assert box is not None, f"{selector} is not visible"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def drag(
    page: Any,
    start: tuple[float, float],
    end: tuple[float, float],
    steps: int = 12,
    shift: bool = False,
) -> None:
    await page.mouse.move(*start)
    await page.mouse.down()
    if shift:
        await page.keyboard.down("Shift")
    await page.mouse.move(start[0] + 6, start[1] + 6, steps=2)
    await page.mouse.move(*end, steps=steps)
    await page.mouse.up()
    if shift:
        await page.keyboard.up("Shift")


async def create_and_join(pages: Pages, template: str = "standard") -> tuple[Any, Any, str]:
    """Ana creates a room from the home page; Ben joins by typing the code sloppily."""
    a = await pages.open("/?name=Ana")
    await a.select_option("[data-testid=template]", template)
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    shown = await a.text_content("[data-testid=room-code]")
    assert shown == pretty(code)

    b = await pages.open("/?name=Ben")
    await b.fill("[data-testid=join-code]", f" {code[:5].lower()} {code[5:].lower()} ")
    await b.click("[data-testid=join-room]")
    assert await enter_room(b) == code
    await wait_js(a, "s.players.length === 2")
    return a, b, code


AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


async def axe_violations(
    page: Any, impacts: tuple[str, ...] = ("serious", "critical")
) -> list[dict]:
    """Run axe-core (from web/node_modules, injected into the page: no network) over the whole
    page; its violations of these impacts, each as {id, impact, help, nodes: [selector, why]}.
    The page must come from a context opened with ``bypass_csp=True``: the page's policy allows
    no inline script, and the injected one is the only script that needs the exception."""
    if not AXE.exists():
        skip_or_fail(f"{AXE} is missing (cd web && npm ci)")
    if not await page.evaluate("() => !!window.axe"):
        await page.add_script_tag(content=AXE.read_text())
    found = await page.evaluate(
        """async () => { const r = await window.axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map(n => [n.target.join(' '), n.failureSummary])})); }"""
    )
    return [v for v in found if v["impact"] in impacts]
