"""Context menus (split, draw several, flip a pile, spread, undo), multi-selection, seats."""

from __future__ import annotations

from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    create_and_join,
    drag,
    dump,
    settled,
    shot,
    table_point,
    wait_js,
)

pytestmark = BROWSER_TESTS


async def menu(page, selector: str, item: str, value: str | None = None) -> None:
    await page.click(selector, button="right")
    await page.click(f"[data-testid=menu-{item}]")
    if value is not None:
        await page.fill("[data-testid=prompt-input]", value)
        await page.click("[data-testid=prompt-ok]")


def obj(state: dict, oid: str) -> dict:
    return next(o for o in state["server"] if o["id"] == oid)


async def test_pile_menus_and_multi_select(pages):
    a, b, code = await create_and_join(pages)
    deck_badge = "[data-testid=stack-count][data-stack=deck]"
    await menu(a, deck_badge, "split")
    await wait_js(
        b, "s.server.some(o => o.t === 'stack' && o.id !== 'deck' && o.cards.length === 26)"
    )
    pile = next(
        o
        for o in (await dump(a))["server"]
        if o["t"] == "stack" and o["id"] not in ("deck", "discard")
    )
    await b.wait_for_selector(f"[data-testid=stack-count][data-stack='{pile['id']}']:text-is('26')")

    await menu(a, deck_badge, "draw-n", "3")
    await a.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=2")
    await b.wait_for_selector("[data-testid=hand-count-0]:text('3')")

    # Flip the split pile, then spread it in a row: every card of it shows its face to Ben.
    pile_badge = f"[data-testid=stack-count][data-stack='{pile['id']}']"
    await menu(a, pile_badge, "flip-pile")
    await wait_js(a, "s.pending.length === 0 && s.log.includes('Ana flipped a pile')")
    top = obj(await dump(a), pile["id"])["cards"][-1]
    await b.wait_for_selector(f"[data-id='{top}'][data-face]")
    assert await b.locator(f"[data-parent='{pile['id']}'][data-face]").count() == 1
    await menu(a, pile_badge, "layout")
    await wait_js(b, "s.server.some(o => o.id === arg && o.layout === 'row')", pile["id"])
    await b.wait_for_function(
        "id => document.querySelectorAll(`[data-parent='${id}'][data-face]`).length === 26",
        arg=pile["id"],
    )
    await settled(b)
    await shot(b, "row-ben")
    await menu(a, pile_badge, "layout")
    await wait_js(a, "s.server.some(o => o.id === arg && o.layout === 'pile')", pile["id"])
    await settled(a)  # let the row glide back before grabbing near it

    # Two loose cards, selected with a rubber band and dragged together.
    ids = []
    for x in (200, 340):
        deck = obj(await dump(a), "deck")
        ids.append(deck["cards"][-1])
        await drag(a, await center(a, f"[data-id='{ids[-1]}']"), await table_point(a, x, 760))
        await wait_js(a, "s.server.some(o => o.id === arg && o.parent === null)", ids[-1])
    before = {i: obj(await dump(a), i) for i in ids}
    await drag(a, await table_point(a, 60, 600), await table_point(a, 560, 960))
    await wait_js(a, "s.selected.length === 2 && arg.every(i => s.selected.includes(i))", ids)
    await drag(
        a,
        await center(a, f"[data-id='{ids[0]}']"),
        await table_point(a, before[ids[0]]["x"] + 50 + 900, before[ids[0]]["y"] + 70 - 300),
    )
    await wait_js(b, "arg.every(i => s.server.some(o => o.id === i && o.y < 600))", ids)
    after = {i: obj(await dump(b), i) for i in ids}
    dx = [after[i]["x"] - before[i]["x"] for i in ids]
    assert abs(dx[0] - dx[1]) <= 2 and 850 < dx[0] < 950
    # F flips the whole selection.
    await a.keyboard.press("f")
    for i in ids:
        await b.wait_for_selector(f"[data-id='{i}'][data-face]")

    # Undo the last flip... (only the last operation of Ana's, if nobody touched it since).
    await a.click("[data-testid=undo]")
    await wait_js(b, "s.log.includes('Ana undid their last move')")
    await wait_js(a, "s.log.includes('Ana undid their last move')")
    await settled(a)
    await shot(a, "menus-ana")


async def test_seats_spectators_and_rename(pages):
    a, b, code = await create_and_join(pages)
    await b.click("[data-testid=leave-seat]")
    await wait_js(b, "s.me.seat === null")
    await a.wait_for_selector("[data-testid=spectator] [data-testid=player-name]:text-is('Ben')")
    await b.wait_for_selector("[data-testid=my-hand]:has-text('You are watching')")
    # A spectator can't touch the table.
    deck = obj(await dump(b), "deck")
    top = await center(b, f"[data-id='{deck['cards'][-1]}']")
    await drag(b, top, await table_point(b, 200, 200))
    await b.locator("[data-testid=toast]", has_text="Spectators").first.wait_for()
    await shot(b, "spectator-ben")
    await b.click("[data-testid=sit-3]")
    await wait_js(b, "s.me.seat === 3")
    await a.wait_for_selector("[data-testid=seat-3] [data-testid=player-name]:text-is('Ben')")

    await a.click("[data-testid=rename]")
    await a.fill("[data-testid=prompt-input]", "Ana Maria")
    await a.click("[data-testid=prompt-ok]")
    await b.wait_for_selector("[data-testid=seat-0] [data-testid=player-name]:text-is('Ana Maria')")
    await wait_js(b, "s.log.includes('Ana is now Ana Maria')")


async def test_a_panel_redraw_between_press_and_release_keeps_the_click(pages):
    """The players panel redraws when anyone's line changes. Ben presses "Sit here" on seat 3
    while Ana renames herself (her line changes, his button's line does not): the click still
    seats him, as the button he pressed is still the one he releases on."""
    a, b, code = await create_and_join(pages)
    await b.click("[data-testid=leave-seat]")
    await wait_js(b, "s.me.seat === null")
    sit = await b.locator("[data-testid=sit-3]").bounding_box()
    assert sit is not None
    await b.mouse.move(sit["x"] + sit["width"] / 2, sit["y"] + sit["height"] / 2)
    await b.mouse.down()
    await a.click("[data-testid=rename]")
    await a.fill("[data-testid=prompt-input]", "Ana Maria")
    await a.click("[data-testid=prompt-ok]")
    await b.wait_for_selector("[data-testid=seat-0] [data-testid=player-name]:text-is('Ana Maria')")
    await b.mouse.up()
    await wait_js(b, "s.me.seat === 3")
