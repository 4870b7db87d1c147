"""The rough edges a first visit met on a laptop (issue 13, part 2): menus, spreading a deck,
selections, log times, the name prompt, toasts, drags over the panel, the hand's gap, who is
dragging, the full-room and disconnected screens, and the table's size on a wide screen."""

from __future__ import annotations

import time

from server.net.http import ROOMS_KEY
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    table_point,
    wait_js,
)

pytestmark = BROWSER_TESTS

DECK_BADGE = "[data-testid=stack-count][data-stack=deck]"


def obj(state: dict, oid: str) -> dict:
    return next(o for o in state["server"] if o["id"] == oid)


async def new_room(pages, viewport=(1366, 800), name="Ana"):
    page = await pages.open(f"/?name={name}", viewport=viewport)
    await page.select_option("[data-testid=template]", "standard")
    await page.click("[data-testid=create-room]")
    code = await enter_room(page)
    await settled(page)
    return page, code


async def test_menus_spread_and_a_pile_with_a_card(pages):
    page, _ = await new_room(pages)
    # Escape closes a menu.
    await page.click(DECK_BADGE, button="right")
    await page.locator("[data-testid=context-menu]").wait_for()
    await page.keyboard.press("Escape")
    await page.locator("[data-testid=context-menu]").wait_for(state="detached")

    # The deck's menu, opened on its top card, is the deck's: titled, short, no repeats.
    top = obj(await dump(page), "deck")["cards"][-1]
    await page.click(f"[data-id='{top}']", button="right")
    assert await page.text_content("[data-testid=menu-title]") == "Deck · 52 cards"
    labels = await page.locator("[data-testid=context-menu] [role=menuitem]").all_text_contents()
    assert len(labels) <= 13, labels
    assert sum(t.startswith("Rotate 90°") for t in labels) == 1, labels
    assert not any("Rename" in t for t in labels), labels
    await settled(page)
    await shot(page, "desktop-deck-menu")

    # Spread out in a row: the whole deck fans out, every card's corner in sight.
    await page.click("[data-testid=menu-layout]")
    await wait_js(page, "s.server.some(o => o.id === 'deck' && o.layout === 'row')")
    await settled(page)
    xs = sorted(
        [
            (await page.locator(f"[data-id='{c}']").bounding_box())["x"]
            for c in obj(await dump(page), "deck")["cards"]
        ]
    )
    assert xs[-1] - xs[0] > 400 and min(b - a for a, b in zip(xs, xs[1:], strict=False)) >= 7
    await shot(page, "desktop-deck-spread")
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-layout]")
    await wait_js(page, "s.server.some(o => o.id === 'deck' && o.layout === 'pile')")
    await settled(page)

    # A loose card and the deck selected together: the menu offers to put the card on the deck.
    top = obj(await dump(page), "deck")["cards"][-1]
    await page.mouse.move(*await center(page, f"[data-id='{top}']"))
    await page.mouse.down()
    await page.mouse.move(*await table_point(page, 300, 250), steps=8)
    await page.mouse.up()
    await wait_js(page, "s.server.some(o => o.id === arg && o.parent === null)", top)
    await settled(page)
    await page.click(f"[data-id='{top}']")
    await page.click(DECK_BADGE, modifiers=["Control"])
    await wait_js(page, "s.selected.length === 2")
    await page.click(f"[data-id='{top}']", button="right")
    assert await page.text_content("[data-testid=menu-title]") == "2 selected"
    await page.click("[data-testid=menu-onto-pile]")
    await wait_js(
        page,
        "s.server.some(o => o.id === 'deck' && o.cards.length === 52 && o.cards[51] === arg)",
        top,
    )


async def test_log_times_survive_a_reload(pages, server):
    page, code = await new_room(pages)
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-shuffle]")
    await wait_js(page, "s.log.some(l => l.startsWith('Ana shuffled Deck (fair shuffle '))")
    # Date the first line three hours back, on the server, and reload the page.
    earlier = time.time() - 3 * 3600

    def backdate(table):
        table.log_at = [earlier, *table.log_times()[1:]]

    await server.app[ROOMS_KEY].edit(code, backdate)
    await page.reload()
    await enter_room(page)
    want = await page.evaluate(
        "ms => { const t = new Date(ms); return String(t.getHours()).padStart(2, '0') + ':'"
        " + String(t.getMinutes()).padStart(2, '0'); }",
        earlier * 1000,
    )
    first = page.locator("[data-testid=log-line] time").first
    await first.wait_for(state="attached")
    assert await first.text_content() == want


async def test_name_prompt_explains_and_cancels(pages):
    _, code = await new_room(pages)
    page = await pages.open(f"/r/{code}")
    await page.locator("[data-testid=prompt]").wait_for()
    await page.click("[data-testid=prompt-ok]")
    error = page.locator("[data-testid=prompt-error]")
    await error.wait_for()
    assert "name" in (await error.text_content()).lower()
    assert await page.locator("[data-testid=prompt]").count() == 1
    await page.click("[data-testid=prompt-cancel]")
    await page.wait_for_url(f"{pages.server.url}/")
    await page.locator("[data-testid=create-room]").wait_for()
    assert await page.locator("[data-testid=prompt]").count() == 0


async def test_toasts_drags_over_the_panel_and_the_hand_gap(pages):
    page, _ = await new_room(pages)
    # A toast sits above the hand strip, not on it.
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-lock]")
    await wait_js(page, "s.server.some(o => o.id === 'deck' && o.locked)")
    start = await center(page, DECK_BADGE)
    await page.mouse.move(*start)
    await page.mouse.down()
    await page.mouse.move(start[0] + 40, start[1] + 40, steps=4)
    await page.mouse.up()
    toast = page.locator("[data-testid=toast]", has_text="locked").first
    await toast.wait_for()
    box = await toast.bounding_box()
    hand = await page.locator("[data-testid=my-hand]").bounding_box()
    assert box["y"] + box["height"] <= hand["y"]
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-lock]")
    await wait_js(page, "s.server.some(o => o.id === 'deck' && !o.locked)")

    # A card dragged over the side panel stays in sight above it.
    top = obj(await dump(page), "deck")["cards"][-1]
    panel = await page.locator(".panel").bounding_box()
    over = (panel["x"] + panel["width"] / 2, panel["y"] + panel["height"] - 60)
    await page.mouse.move(*await center(page, f"[data-id='{top}']"))
    await page.mouse.down()
    await page.mouse.move(*over, steps=12)
    hit = await page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-id]')?.dataset.id ?? null",
        list(over),
    )
    assert hit == top
    await shot(page, "desktop-drag-over-panel")
    await page.mouse.move(*await table_point(page, 400, 300), steps=8)
    await page.mouse.up()
    await wait_js(page, "s.server.some(o => o.id === arg && o.parent === null)", top)

    # Five cards in the hand; dragging the first along the strip opens a gap where it will land.
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-draw-n]")
    await page.fill("[data-testid=prompt-input]", "5")
    await page.click("[data-testid=prompt-ok]")
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards.length === 5")
    await settled(page)
    cards = obj(await dump(page), "hand0")["cards"]
    boxes = [await page.locator(f"[data-id='{c}']").bounding_box() for c in cards]
    step = boxes[1]["x"] - boxes[0]["x"]
    await page.mouse.move(boxes[0]["x"] + 20, boxes[0]["y"] + 30)
    await page.mouse.down()
    # Over the slot between the third and the fourth card.
    target = (boxes[3]["x"] + boxes[0]["width"] / 2 - step / 2 + 2, boxes[0]["y"] + 30)
    await page.mouse.move(*target, steps=10)
    gap = """([ids, step]) => { const xs = ids.map(i => document.querySelector(`[data-id='${i}']`)
        .getBoundingClientRect().x).sort((a, b) => a - b);
        const d = xs.slice(1).map((x, i) => x - xs[i]);
        return d.filter(v => v > 1.6 * step).length === 1
          && d.filter(v => v < 1.2 * step).length === d.length - 1; }"""
    await page.wait_for_function(gap, arg=[cards[1:], step])
    await settled(page)
    await shot(page, "desktop-hand-gap")
    await page.mouse.up()
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards[3] === arg", cards[0])


async def test_who_is_dragging_what(pages):
    a, b, _ = await create_and_join(pages)
    top = obj(await dump(a), "deck")["cards"][-1]
    await a.mouse.move(*await center(a, f"[data-id='{top}']"))
    await a.mouse.down()
    await a.mouse.move(*await table_point(a, 400, 300), steps=10)
    await a.mouse.move(*await table_point(a, 420, 310), steps=4)
    tag = b.locator(f"[data-id='{top}'] [data-testid=drag-tag]")
    await tag.wait_for()
    assert await tag.text_content() == "Ana"
    await shot(b, "desktop-drag-tag-ben")
    await a.mouse.up()
    await wait_js(b, "s.server.some(o => o.id === arg && o.parent === null)", top)
    await tag.wait_for(state="detached")


async def test_full_room_and_a_cut_off_spectator(pages, server):
    a, b, code = await create_and_join(pages)
    # Ben watches; cut off, he isn't promised a seat he doesn't have.
    await b.click("[data-testid=leave-seat]")
    await wait_js(b, "s.me.seat === null")
    await b.goto(f"{pages.server.url}/r/{code}?giveup=2")
    await enter_room(b)
    await b.context.set_offline(True)
    screen = b.locator("[data-testid=screen-disconnected]")
    await screen.wait_for(timeout=8000)
    assert "seat" not in (await screen.inner_text()).lower()
    await b.context.set_offline(False)

    # The room fills up; the next visitor reads why once, and can try again.
    rooms = server.app[ROOMS_KEY]
    while len((await rooms.load_table(code)).players) < 16:
        await rooms.join(code, f"Guest {len((await rooms.load_table(code)).players)}", seat=None)
    late = await pages.open(f"/r/{code}?name=Late")
    full = late.locator("[data-testid=screen-full]")
    await full.wait_for()
    text = await full.inner_text()
    assert text.lower().count("this room is full") == 1, text
    await late.locator("[data-testid=try-again]").wait_for()
    await shot(late, "desktop-room-full")


async def test_wide_screen_uses_the_space(pages):
    for viewport, least in (((1366, 800), 64), ((1920, 1080), 85)):
        page, _ = await new_room(pages, viewport=viewport)
        top = obj(await dump(page), "deck")["cards"][-1]
        box = await page.locator(f"[data-id='{top}']").bounding_box()
        assert box["width"] >= least, (viewport, box)
        felt = await page.locator("[data-testid=table]").bounding_box()
        stage = await page.locator("[data-testid=stage]").bounding_box()
        # No empty band wider than a tenth of the stage beside the table.
        assert felt["x"] - stage["x"] <= stage["width"] / 10, (viewport, felt, stage)
        await shot(page, f"desktop-table-{viewport[0]}")


async def test_court_cards_have_figures(pages):
    page, _ = await new_room(pages)
    await page.click(DECK_BADGE, button="right")
    await page.click("[data-testid=menu-draw-n]")
    await page.fill("[data-testid=prompt-input]", "52")
    await page.click("[data-testid=prompt-ok]")
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards.length === 52")
    # Every jack, queen and king shows a picture from the svg-cards package, loaded.
    await page.wait_for_function(
        """() => { const imgs = [...document.querySelectorAll('[data-where=hand][data-face] img')]
            .filter(i => /^[CDHS]1[123]$/.test(i.closest('[data-face]').dataset.face));
          return imgs.length === 12 && imgs.every(i => i.src.includes('/assets/cards/')
            && i.complete && i.naturalWidth > 0); }"""
    )
    await settled(page)
    await shot(page, "desktop-hand-52")
    # The pictures travel with their licence.
    licence = await page.request.get(f"{pages.server.url}/assets/cards/LICENSE")
    assert licence.ok and "LESSER GENERAL PUBLIC LICENSE" in (await licence.text()).upper()
