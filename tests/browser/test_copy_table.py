"""Make a copy of this table, from its menu, in one click: the layout (every card back in its
deck) or everything as it lies; the copier lands in the copy. (Starting a library game from the
home page is tests/browser/test_homemade.py::test_library_poker_table.)"""

from __future__ import annotations

from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS


async def my_hand(page) -> list[str]:
    state = await dump(page)
    seat = state["me"]["seat"]
    hand = next(o for o in state["objects"] if o["t"] == "hand" and o["seat"] == seat)
    faces = {o["id"]: o.get("face") for o in state["objects"] if o["t"] == "card"}
    return sorted(faces[c] for c in hand["cards"])


async def test_copy_a_table_layout_or_everything(pages):
    page = await pages.open("/?name=Ana")
    await page.select_option("[data-testid=template]", "standard")
    await page.click("[data-testid=create-room]")
    code = await enter_room(page)
    await page.locator("[data-parent=deck]").last.click(button="right")
    await page.click("[data-testid=menu-deal]")
    await page.fill("[data-testid=prompt-input]", "3")
    await page.click("[data-testid=prompt-ok]")
    await wait_js(
        page,
        "s.objects.some(o => o.t === 'hand' && o.seat === s.me.seat && o.cards.length === 3"
        " && o.cards.every(id => s.objects.some(c => c.id === id && c.face)))",
    )
    held = await my_hand(page)

    # Everything: a new room, Ana in it, holding the same three cards.
    await page.click("[data-testid=copy-table]")
    await settled(page)
    await shot(page, "copy-table-menu")
    await page.click("[data-testid=menu-copy-everything]")
    await page.wait_for_url(lambda url: f"/r/{code}" not in url)
    copy = await enter_room(page)
    assert copy != code
    await wait_js(
        page,
        "s.objects.some(o => o.t === 'hand' && o.seat === s.me.seat && o.cards.length === 3"
        " && o.cards.every(id => s.objects.some(c => c.id === id && c.face)))",
    )
    assert await my_hand(page) == held
    deck = next(o for o in (await dump(page))["server"] if o["id"] == "deck")
    assert len(deck["cards"]) == 49

    # The layout: another new room, the hand empty and all 52 cards in the deck.
    await page.click("[data-testid=copy-table]")
    await page.click("[data-testid=menu-copy-layout]")
    await page.wait_for_url(lambda url: f"/r/{copy}" not in url)
    third = await enter_room(page)
    assert third not in (code, copy)
    await wait_js(page, "s.server.some(o => o.id === 'deck' && o.cards.length === 52)")
    assert await my_hand(page) == []
