"""A free table that feels finished (issue 21 item 4, the server-side half's page bits): a room
from a card template opens ready to play (edit mode is for building: a Blank table, or the Edit
button), a double click on a die rolls it once, and a burst of counter clicks is one log line."""

from __future__ import annotations

from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, wait_js

pytestmark = BROWSER_TESTS


async def _room(pages, template: str):
    page = await pages.open("/?name=Ana")
    await page.select_option("[data-testid=template]", template)
    await page.click("[data-testid=create-room]")
    code = await enter_room(page)
    await settled(page)
    return page, code


async def _add(page, what: str) -> str:
    """Add a widget in edit mode (the Edit button), then go back to playing."""
    toggle = page.locator("[data-testid=edit-toggle]")
    await toggle.filter(has_text="Edit table").click()
    before = {o["id"] for o in (await dump(page))["server"]}
    await page.click("[data-testid=add-menu]")
    await page.click(f"[data-testid=menu-add-{what}]")
    await wait_js(
        page, "s.server.some(o => o.t === arg[0] && !arg[1].includes(o.id))", [what, sorted(before)]
    )
    await toggle.filter(has_text="Done editing").click()
    await toggle.filter(has_text="Edit table").wait_for()
    return next(o["id"] for o in (await dump(page))["server"] if o["id"] not in before)


async def test_a_card_table_opens_ready_to_play_and_a_blank_one_for_building(pages):
    page, _ = await _room(pages, "standard")
    toggle = page.locator("[data-testid=edit-toggle]")
    await toggle.filter(has_text="Edit table").wait_for()
    assert await page.locator("[data-testid=edit-add]").is_hidden()
    assert not await page.evaluate("document.querySelector('.room').classList.contains('editing')")
    await toggle.click()  # the Edit button still switches it on
    await toggle.filter(has_text="Done editing").wait_for()
    assert await page.locator("[data-testid=edit-add]").is_visible()

    blank, _ = await _room(pages, "blank")
    await blank.locator("[data-testid=edit-toggle]", has_text="Done editing").wait_for()


async def test_a_double_click_on_a_die_rolls_it_once(pages):
    page, code = await _room(pages, "standard")
    die = await _add(page, "die")
    await settled(page)
    await page.dblclick(f"[data-id='{die}']")
    # Every roll the page sent is answered once nothing is pending; the room's own log has them.
    await wait_js(page, "s.pending.length === 0 && s.log.some(l => l.startsWith('Ana rolled'))")
    table = await pages.server.app[ROOMS_KEY].load_table(code)
    assert sum(line.startswith("Ana rolled") for line in table.log) == 1, table.log


async def test_a_burst_of_counter_clicks_is_one_line_in_the_moves(pages):
    page, _ = await _room(pages, "standard")
    counter = await _add(page, "counter")
    for _ in range(3):
        await page.click(f"[data-id='{counter}'] [data-testid=counter-plus]")
    await wait_js(page, "s.pending.length === 0 && s.log.some(l => l.endsWith(' to 3'))")
    await settled(page)
    lines = await page.locator("[data-testid=log-line]").all_text_contents()
    counted = [line for line in lines if " set " in line]
    assert len(counted) == 1 and counted[0].endswith(" to 3"), lines
