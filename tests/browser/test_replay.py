"""Provably fair deals in the page (issue 25): Ana's page, seated in a Spades room, sends its own
random value for deal 1 by itself; she seats three computers and plays the deal to its end (each
of her moves the first legal one, sent as the page's own game command); then "Hands" lists the
finished hand, its replay steps forwards and back with every card face up, and "Verify this
deal" runs the browser's checker on the record and says it is fair. On a desktop and a phone;
screenshots of the replay and the verdict in test-artifacts/."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from plugins import fair
from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS

DESKTOP = (1440, 900)
PHONE = (390, 844)


async def _get(url: str) -> Any:
    async with aiohttp.ClientSession() as http, http.get(url) as r:
        return r.status, await r.json()


async def _play_to_the_end(page: Any) -> None:
    """Ana makes the first legal move whenever it is hers, until the deal is over."""
    for _ in range(60):
        await wait_js(
            page,
            "s.game && !s.game.waiting && s.pending.length === 0 && ("
            "['deal_over', 'game_over'].includes(s.game.phase) || "
            "((s.game.to_act || []).includes(s.game.me) && s.game.legal.length > 0))",
            timeout=30_000,
        )
        s = await dump(page)
        if s["game"]["phase"] in ("deal_over", "game_over"):
            return
        await page.evaluate(
            "() => { const r = window.__cardtable.room; r.command(r.s.game.legal[0]); }"
        )
        await wait_js(page, "s.v > arg", s["v"], timeout=30_000)
    raise AssertionError("the deal did not end")


@pytest.mark.parametrize("device", ["desktop", "phone"])
async def test_a_finished_hand_replays_and_verifies_in_the_page(server, pages, device):
    phone = device == "phone"
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "spades"}) as r,
    ):
        assert r.status == 201
        code = (await r.json())["code"]
    page = await pages.open(
        f"/r/{code}?name=Ana",
        viewport=PHONE if phone else DESKTOP,
        **({"has_touch": True, "is_mobile": True} if phone else {}),
    )
    await enter_room(page)
    # Seated, the page adds its randomness to deal 1 by itself.
    await wait_js(page, "s.me.seat === 0 && s.game && s.game.fair && s.game.fair.sent.includes(0)")
    for seat in (1, 2, 3):
        await page.evaluate(
            "(seat) => window.__cardtable.room.conn.request('host', {action: 'bot', seat})", seat
        )
    await wait_js(page, "s.game && !s.game.waiting", timeout=20_000)
    await _play_to_the_end(page)

    status, record = await _get(f"{server.url}/api/rooms/{code}/hands/1")
    assert status == 200 and fair.verify(record).ok
    assert record["values"][0] is not None and record["values"][1:] == [None, None, None]

    # The hand is over: its sheet (scores and reveal) opens, with "Hands" beside "Close".
    await page.click("[data-testid=sheet-hands]")
    await page.locator("[data-testid=replay-1]").click()
    caption = page.locator("[data-testid=replay-caption]")
    total = len(record["steps"]) - 1
    assert (await caption.text_content()).startswith(f"The deal (before move 1 of {total})")
    hands = page.locator("[data-testid=replay-hands]")
    assert (await hands.text_content()).count("♠") + (await hands.text_content()).count(
        "♥"
    ) > 10  # every hand face up: 52 cards, a quarter of them spades
    await page.click("[data-testid=replay-next]")
    await page.click("[data-testid=replay-next]")
    assert (await caption.text_content()).startswith(f"Move 2 of {total}: ")
    await page.click("[data-testid=replay-back]")
    assert (await caption.text_content()).startswith(f"Move 1 of {total}: ")
    assert record["steps"][1]["text"] in await caption.text_content()
    await page.click("[data-testid=replay-last]")
    assert (await caption.text_content()).startswith(f"Move {total} of {total}: ")
    assert await page.locator("[data-testid=replay-next]").is_disabled()
    await page.click("[data-testid=replay-first]")
    await page.click("[data-testid=replay-next]")
    await settled(page)
    await shot(page, f"replay-{device}")
    await page.click("[data-testid=replay-verify]")
    verdict = page.locator("[data-testid=replay-verdict]")
    await page.wait_for_function(
        "() => /fair/.test(document.querySelector('[data-testid=replay-verdict]').textContent)"
    )
    assert (await verdict.text_content()).startswith("Verified: fair.")
    box = await page.locator(".replay-box").bounding_box()
    width = page.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    await settled(page)
    await shot(page, f"replay-verified-{device}")


async def test_fair_shuffles_in_free_play_reveal_and_verify(server, pages):
    """Free play, whose shuffles are always fair: the host's seated page adds its value to shuffle
    1 by itself, she shuffles the deck (the log line shows the next commitment short), reveals
    the shuffles; the revealed shuffle opens from the players panel's "Hands" and verifies in
    the page."""
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"template": "standard"}) as r,
    ):
        code = (await r.json())["code"]
    page = await pages.open(f"/r/{code}?name=Ana", viewport=DESKTOP)
    await enter_room(page)
    await wait_js(page, "s.me.seat === 0 && s.fair && s.fair.deal === 1 && s.fair.sent.includes(0)")
    await page.evaluate("() => window.__cardtable.room.send({op: 'shuffle', id: 'deck'})")
    await wait_js(page, "s.fair && s.fair.deal === 2")
    said = "Ana shuffled Deck (fair shuffle 1; next commitment "
    await wait_js(page, f"s.log.some(l => l.startsWith('{said}'))")
    line = page.locator("[data-testid=log-line]", has_text="Ana shuffled Deck")
    commitment = await page.evaluate("() => window.__cardtable.dump().fair.commitment")
    assert (await line.text_content()).endswith(f"{said}{commitment[:8]}…)")
    assert await line.locator(".hash").get_attribute("title") == commitment
    await settled(page)
    await shot(page, "free-shuffle-log-desktop")
    await page.click("[data-testid=host-reveal-shuffles]")
    await wait_js(page, "s.log.some(l => l.includes('Shuffles revealed'))")
    status, record = await _get(f"{server.url}/api/rooms/{code}/hands/1")
    assert status == 200 and record["game"] == "free" and record["values"][0] is not None
    await page.click("[data-testid=host-hands]")
    await page.locator("[data-testid=replay-1]").click()
    assert await page.locator("[data-testid=replay-caption]").text_content() == "Shuffled"
    await page.click("[data-testid=replay-verify]")
    await page.wait_for_function(
        "() => /fair/.test(document.querySelector('[data-testid=replay-verdict]').textContent)"
    )
    assert (await page.locator("[data-testid=replay-verdict]").text_content()).startswith(
        "Verified: fair."
    )
    await settled(page)
    await shot(page, "replay-free-shuffle-desktop")
