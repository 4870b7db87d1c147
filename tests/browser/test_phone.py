"""A phone (390 x 844, touch) and a phone on its side: the table is laid out for the screen,
buttons are big enough for a finger, the hand scrolls, and a long-press menu needs its own tap
(issue 13). Everything here is done with touch events; screenshots go to test-artifacts/."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import (
    BROWSER_TESTS,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

OPEN = "() => document.querySelector('.room').classList.contains('panel-open')"
PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


class Finger:
    """One finger on the screen, through the DevTools protocol (real touch events)."""

    def __init__(self, page: Any, cdp: Any) -> None:
        self.page = page
        self.cdp = cdp

    @classmethod
    async def on(cls, page: Any) -> Finger:
        return cls(page, await page.context.new_cdp_session(page))

    async def down(self, x: float, y: float) -> None:
        await self.cdp.send("Input.dispatchTouchEvent",
                            {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})

    async def up(self) -> None:
        await self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    async def tap(self, selector: str) -> None:
        """A tap (touch events) in the middle of the element, scrolled into view first."""
        await self.page.locator(selector).first.tap()

    async def long_press(self, x: float, y: float) -> None:
        """Press until the context menu shows; the finger stays down."""
        await self.down(x, y)
        await self.page.locator("[data-testid=context-menu]").wait_for()


async def box_of(page: Any, selector: str) -> dict[str, float]:
    loc = page.locator(selector).first
    await loc.wait_for()
    box = await loc.bounding_box()
    assert box is not None, f"{selector} is not visible"
    return box


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


async def phone_room(pages: Any, viewport: tuple[int, int] = (390, 844)) -> tuple[Any, Finger]:
    page = await pages.open("/?name=Pia", viewport=viewport, **PHONE)
    finger = await Finger.on(page)
    await page.locator("[data-testid=create-room]").wait_for()
    small = [b for b in await visible_buttons(page, ".home button, .home input, .home select")
             if b["h"] < 44]
    assert not small, small
    await shot(page, f"phone-home-{viewport[0]}")
    await page.select_option("[data-testid=template]", "standard")
    await finger.tap("[data-testid=create-room]")
    await enter_room(page)
    await settled(page)
    return page, finger


async def visible_buttons(page: Any, selector: str) -> list[dict[str, Any]]:
    return await page.evaluate(
        """sel => [...document.querySelectorAll(sel)].filter(b => {
            const r = b.getBoundingClientRect(); const st = getComputedStyle(b);
            return r.width > 0 && r.height > 0 && st.visibility !== 'hidden'
              && r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight;
          }).map(b => { const r = b.getBoundingClientRect();
            return {id: b.dataset.testid || b.textContent, w: r.width, h: r.height}; })""",
        selector)


async def check_layout(page: Any) -> None:
    """Readable table cards, labels clear of their count badges, no empty bands, big buttons."""
    deck = next(o for o in (await dump(page))["objects"] if o["id"] == "deck")
    card = await box_of(page, f"[data-id='{deck['cards'][-1]}']")
    assert card["width"] >= 48 and card["height"] >= 67, card
    label = await box_of(page, "[data-testid=stack][data-id=deck] .stack-label")
    badge = await box_of(page, "[data-testid=stack-count][data-stack=deck]")
    assert label["height"] >= 12 and not overlap(label, badge), (label, badge)
    stage = await box_of(page, "[data-testid=stage]")
    felt = await box_of(page, "[data-testid=table]")
    hand = await box_of(page, "[data-testid=my-hand]")
    # The table fills the stage above the hand: no band wider than the margin on any side.
    assert felt["y"] <= stage["y"] + 10 and felt["y"] + felt["height"] >= hand["y"] - 10
    assert felt["x"] <= stage["x"] + 10
    assert felt["x"] + felt["width"] >= stage["x"] + stage["width"] - 10
    small = [b for b in await visible_buttons(page, ".topbar button, .zoom-buttons button")
             if b["w"] < 44 or b["h"] < 44]
    assert not small, small


async def test_phone_portrait_layout_hand_and_long_press(pages):
    page, finger = await phone_room(pages)
    await check_layout(page)
    await shot(page, "phone-portrait-table")

    # A long-press on the deck opens its menu; lifting the finger chooses nothing.
    # The browser turns the lift into a click on whatever is under the finger: count those that
    # land on a menu item.
    await page.evaluate("""() => { window.__itemClicks = 0; window.__touchends = 0;
        document.addEventListener('click', e => {
          if (e.target.closest?.('[role=menuitem]')) window.__itemClicks++; }, true);
        document.addEventListener('touchend', () => window.__touchends++, true); }""")
    deck = await box_of(page, "[data-testid=stack][data-id=deck]")
    at = (deck["x"] + deck["width"] / 2, deck["y"] + deck["height"] / 2)
    await finger.long_press(*at)
    title = await page.text_content("[data-testid=menu-title]")
    assert title == "Deck · 52 cards"
    labels = await page.locator("[data-testid=context-menu] [role=menuitem]").all_text_contents()
    assert len(labels) <= 13 and sum("Rotate 90°" in t for t in labels) == 1, labels
    assert not any("Rename" in t for t in labels), labels
    for b in await visible_buttons(page, "[data-testid=context-menu] button"):
        assert b["h"] >= 44, b
    await shot(page, "phone-portrait-menu")
    await finger.up()
    await page.wait_for_function("() => window.__touchends > 0")
    await settled(page)
    assert await page.locator("[data-testid=context-menu]").is_visible()
    assert len(next(o for o in (await dump(page))["server"] if o["id"] == "deck")["cards"]) == 52

    # A tap of its own on an item does it: draw 16 cards into the hand.
    await finger.tap("[data-testid=menu-draw-n]")
    await page.fill("[data-testid=prompt-input]", "16")
    await finger.tap("[data-testid=prompt-ok]")
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards.length === 16")
    await page.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=15")
    await settled(page)
    await shot(page, "phone-portrait-hand")

    # The hand is fanned with every card's corner showing, and it scrolls to the rest.
    # (Where each card is laid, before its little fan turn.)
    xs = sorted(await page.evaluate(
        """() => [...document.querySelectorAll('[data-where=hand]')].map(e =>
            Number(/translate\\(([-\\d.e]+)px/.exec(e.style.transform)[1]))"""))
    assert len(xs) == 16
    assert min(b - a for a, b in zip(xs, xs[1:], strict=False)) >= 20
    right = page.locator("[data-testid=hand-scroll-right]")
    assert await right.is_visible()
    rb = await right.bounding_box()
    assert rb["width"] >= 44 and rb["height"] >= 44
    # The last card runs past the screen's edge until the hand is scrolled.
    right_edge = """() => Math.max(...[...document.querySelectorAll('[data-where=hand]')]
        .map(e => e.getBoundingClientRect().right))"""
    assert await page.evaluate(right_edge) > 390
    await finger.tap("[data-testid=hand-scroll-right]")
    await page.wait_for_function(f"() => ({right_edge})() <= 390")
    await page.locator("[data-testid=hand-scroll-left]").wait_for()
    await settled(page)
    await shot(page, "phone-portrait-hand-scrolled")

    # A long-press on a card of the hand near the screen's corner puts the menu under the finger:
    # the lift must not play the card.
    cards = next(o for o in (await dump(page))["server"] if o["id"] == "hand0")["cards"]
    last = await box_of(page, f"[data-id='{cards[-1]}']")
    at = (min(last["x"] + last["width"] / 2, 370), last["y"] + last["height"] / 2)
    await finger.long_press(*at)
    under = await page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[role=menuitem]')"
        "?.dataset.testid ?? null",
        list(at))
    assert under is not None, "the menu should open under the finger for this check"
    clicks = await page.evaluate("() => window.__itemClicks")
    await finger.up()
    # The lift did reach the item as a click (this is the case that used to play the card) ...
    await page.wait_for_function("n => window.__itemClicks > n", arg=clicks)
    await settled(page)
    # ... and the menu ignored it: still open, the card still in the hand.
    assert await page.locator("[data-testid=context-menu]").is_visible()
    assert len(next(o for o in (await dump(page))["server"] if o["id"] == "hand0")["cards"]) == 16

    # The side panel is a drawer: it slides over the table and closes again.
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(OPEN)
    await settled(page)
    panel = await box_of(page, ".panel")
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= 391
    await shot(page, "phone-portrait-panel")
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(f"() => !({OPEN})()")
    # ... and a touch on the table beside it closes it too.
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(OPEN)
    await settled(page)
    await page.touchscreen.tap(20, 400)
    await page.wait_for_function(f"() => !({OPEN})()")


async def test_phone_landscape_layout(pages):
    page, finger = await phone_room(pages, viewport=(844, 390))
    await check_layout(page)
    await shot(page, "phone-landscape-table")
