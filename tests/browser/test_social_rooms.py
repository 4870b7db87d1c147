"""Online where you are, and a challenge that reaches you anywhere (issue 22 items 1-2): Ana in
a room is listed online "at a table" on Ben's home page; Ben challenges her; the toast (and the
tab title) appears in her room; she accepts and lands in the new room with Ben. On a desktop and
on a phone (screenshots saved: look at them)."""

from __future__ import annotations

import secrets

import pytest

from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot
from tests.browser.test_social import go_online

pytestmark = BROWSER_TESTS

PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


@pytest.mark.parametrize("form", ["desktop", "phone"])
async def test_online_at_a_table_and_a_challenge_toast_in_the_room(pages, form):
    kw = {"viewport": (390, 844), **PHONE} if form == "phone" else {}
    ana_name = "Ana" + secrets.token_hex(3)
    a = await pages.open(f"/?name={ana_name}", **kw)
    await a.click("[data-testid=create-room]")
    first = await enter_room(a)

    b = await pages.open("/?name=Ben")
    await go_online(b)
    await b.fill("[data-testid=lobby-search]", ana_name)
    ana = b.locator("[data-testid=lobby-player]", has_text=ana_name)
    await ana.wait_for()  # online, though she never pressed "Go online": she is in a room
    assert "at a table" in (await ana.locator("[data-testid=at-table]").text_content())
    assert first not in (await b.content())  # her room is private: its code is not shown
    await b.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
    await b.select_option("[data-testid=challenge-game]", "gin_rummy")
    await settled(b)
    await shot(b, f"social-rooms-lobby-at-table-{form}")
    await ana.locator("[data-testid=challenge-player]").click()

    toast = a.locator("[data-testid=challenge-toast]")
    await toast.wait_for()
    assert "Ben has challenged you to Gin rummy" in (await toast.text_content())
    await a.wait_for_function("document.title.startsWith('(1) Challenge — ')")
    await settled(a)
    await shot(a, f"social-rooms-toast-{form}")
    await toast.locator("[data-testid=challenge-accept]").click()

    code_b = await enter_room(b)
    await a.wait_for_url(f"**/r/{code_b}?seat=1")
    assert await enter_room(a) == code_b != first
    sa, sb = await dump(a), await dump(b)
    assert sa["me"]["seat"] == 1 and sb["me"]["seat"] == 0
    assert not (await a.title()).startswith("(")
    await settled(a)
    await shot(a, f"social-rooms-new-room-{form}")
