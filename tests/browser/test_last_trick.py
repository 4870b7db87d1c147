"""The last trick (issue 20 item 2): in Spades against three computers, once the first trick is
gathered a "Last trick" button in the game bar opens a panel with that trick's four cards, who
played each and who won it, read from the game view; a spectator sees it too (it is public). On
a 1440x900 desktop and a 390x844 touch phone, with screenshots of a trick in progress and of the
panel (test-artifacts/last-trick-*.png, trick-*.png).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import BROWSER_TESTS, dump, settled, shot
from tests.browser.test_seats import DESKTOP, PHONE, UPRIGHT, game, rule_room, until_my_turn

pytestmark = BROWSER_TESTS


def after_first_trick(g: dict) -> bool:
    return sum((g["view"] or {}).get("tricks_taken") or [0]) >= 1


def trick_in_progress(g: dict) -> bool:
    return after_first_trick(g) and len((g["view"] or {}).get("trick") or []) >= 2


async def panel(page: Any) -> dict:
    await page.locator("[data-testid=last-trick-card]").first.wait_for()
    await settled(page)
    return dict(
        await page.evaluate(
            """() => ({
        cards: [...document.querySelectorAll('[data-testid=last-trick-card]')].map((el) => ({
          player: Number(el.dataset.player), face: el.dataset.face,
          name: el.querySelector('figcaption').textContent,
          won: el.classList.contains('won')})),
        winner: document.querySelector('[data-testid=last-trick-winner]').textContent,
        box: (() => { const r = document.querySelector('[data-testid=last-trick]')
          .getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })(),
        view: {w: innerWidth, h: innerHeight}})"""
        )
    )


def names(g: dict, me: int | None) -> dict[int, str]:
    return {p["player"]: "You" if p["player"] == me else p["name"] for p in g["players"]}


@pytest.mark.parametrize("where", ["desktop", "phone"])
async def test_the_last_trick_shows_its_four_cards_and_who_won(pages, where):
    viewport = DESKTOP if where == "desktop" else UPRIGHT
    page = await rule_room(pages, "spades", 4, viewport)
    btn = page.locator("[data-testid=last-trick-btn]")
    g = await until_my_turn(page, trick_in_progress)
    await shot(page, f"trick-{where}")
    g = await game(page)
    last = g["view"]["last_trick"]
    assert await btn.is_visible()
    await btn.click()
    got = await panel(page)
    who = names(g, g["me"])
    assert [c["face"] for c in got["cards"]] == last["cards"]
    leader = last["leader"]
    assert [c["player"] for c in got["cards"]] == [(leader + i) % 4 for i in range(4)]
    assert [c["name"] for c in got["cards"]] == [who[c["player"]] for c in got["cards"]]
    assert [c["won"] for c in got["cards"]] == [c["player"] == last["winner"] for c in got["cards"]]
    assert got["winner"] == f"{who[last['winner']]} won it"
    b = got["box"]
    assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= got["view"]["w"], got
    await shot(page, f"last-trick-{where}")
    await page.locator("[data-testid=last-trick-close]").click()
    await page.locator("[data-testid=last-trick]").wait_for(state="hidden")

    # A spectator sees the same trick (public information).
    extra = PHONE if where == "phone" else {}
    watcher = await pages.open(
        f"/r/{(await dump(page))['code']}?name=Wes",
        viewport=viewport,
        **extra,
    )
    await watcher.wait_for_function(
        "() => window.__cardtable.state.game && window.__cardtable.state.game.view"
        " && window.__cardtable.state.game.view.last_trick"
    )
    await watcher.locator("[data-testid=last-trick-btn]").click()
    seen = await panel(watcher)
    wg = await game(watcher)
    assert len(seen["cards"]) == 4
    assert [c["face"] for c in seen["cards"]] == wg["view"]["last_trick"]["cards"]
    assert seen["winner"] == f"{names(wg, None)[wg['view']['last_trick']['winner']]} won it"
