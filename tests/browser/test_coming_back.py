"""Coming back to a room in the browser: a person away past the grace period finds their seat
and hand again on reopening the link, the host their powers; a seat taken meanwhile is said so,
with the free seats offered; a stranger takes over a departed player's cards only when asked."""

from __future__ import annotations

import time
from typing import Any

from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, create_and_join, dump, settled, shot, wait_js

pytestmark = BROWSER_TESTS


async def leave_for_good(server: Any, code: str, page: Any) -> None:
    """Close ``page`` and settle presence past the grace period (an explicit clock, no wait):
    its player leaves the room, remembered."""
    player = (await dump(page))["me"]["player"]
    await page.close()
    rooms = server.app[ROOMS_KEY]
    grace = 120.0
    now = time.time()
    for at in (now, now + grace + 1):
        table = await rooms.load_table(code)
        live = {pid for pid in table.players if pid != player}
        await rooms.refresh_presence(code, live, at, grace)
    assert player not in (await rooms.load_table(code)).players


async def reopen(page_before: Any, server: Any, code: str, **viewport: Any) -> Any:
    """The same browser (same context: same localStorage) opens the room's link again."""
    page = await page_before.context.new_page()
    if viewport:
        await page.set_viewport_size(viewport)
    await page.goto(f"{server.url}/r/{code}")
    await wait_js(page, "s.v >= 0 && s.conn === 'online'")
    return page


async def hand_faces(page: Any, hand: str) -> list[str]:
    """The faces of the cards in ``hand`` as this page's server state has them, sorted."""
    return sorted(
        o["face"]
        for o in (await dump(page))["server"]
        if o["t"] == "card" and o.get("parent") == hand
    )


async def deal(page: Any, n: int) -> None:
    await page.click("[data-testid=stack-count][data-stack=deck]", button="right")
    await page.click("[data-testid=menu-deal]")
    await page.fill("[data-testid=prompt-input]", str(n))
    await page.click("[data-testid=prompt-ok]")


async def test_coming_back_after_the_grace_finds_seat_and_hand(pages, server):
    a, b, code = await create_and_join(pages)
    await deal(a, 3)
    await wait_js(b, "s.server.find(o => o.id === 'hand1').cards.length === 3")
    ben = (await dump(b))["me"]["player"]
    hand = await hand_faces(b, "hand1")
    context = b.context
    await leave_for_good(server, code, b)

    # Ana sees that Ben left, and his seat (with his 3 cards) is marked as his.
    await wait_js(a, "s.players.length === 1 && s.former.length === 1")
    left = a.locator("[data-testid=seat-1] [data-testid=seat-left-by]")
    await left.wait_for()
    assert "Ben (left)" in await left.text_content()

    page = await context.new_page()
    await page.goto(f"{server.url}/r/{code}")
    await wait_js(page, "s.v >= 0 && s.conn === 'online'")
    me = (await dump(page))["me"]
    assert me["player"] == ben and me["seat"] == 1
    assert await hand_faces(page, "hand1") == hand
    assert await page.locator("[data-testid=screen-removed]").count() == 0
    await wait_js(
        a, "s.players.length === 2 && s.players.some(p => p.name === 'Ben' && p.seat === 1)"
    )
    await settled(page)
    await shot(page, "coming-back-ben")


async def test_a_taken_seat_is_said_and_the_host_is_host_again(pages, server):
    a, b, code = await create_and_join(pages)
    await deal(a, 2)
    await wait_js(a, "s.server.find(o => o.id === 'hand0').cards.length === 2")
    await leave_for_good(server, code, a)

    # Ben, the one present, holds the host's powers while Ana is away.
    await wait_js(b, "s.players.length === 1 && s.players[0].host")

    # A stranger opens the link: seated at an empty seat, not Ana's (which holds her cards).
    cy = await pages.open(f"/r/{code}?name=Cy")
    await wait_js(cy, "s.v >= 0 && s.conn === 'online'")
    assert (await dump(cy))["me"]["seat"] == 2
    # Cy takes over Ana's seat on purpose: the page asks first.
    await cy.click("[data-testid=sit-0]")
    dialog = cy.locator("[data-testid=confirm]")
    await dialog.wait_for()
    assert "Take over Ana's seat, 2 cards?" in await dialog.text_content()
    await shot(cy, "take-over-question")
    await cy.click("[data-testid=confirm-ok]")
    await wait_js(cy, "s.me.seat === 0 && s.server.find(o => o.id === 'hand0').cards.length === 2")

    # Ana's browser comes back, on a phone: welcomed, told her seat was taken, offered the
    # free seats; she is host again.
    page = await reopen(a, server, code, width=390, height=844)
    modal = page.locator("[data-testid=seat-taken]")
    await modal.wait_for()
    text = await modal.text_content()
    assert "Cy took seat 1" in text
    await settled(page)
    await shot(page, "phone-welcome-back-seat-taken")
    await wait_js(page, "s.players.some(p => p.name === 'Ana' && p.host && p.seat === null)")
    await wait_js(b, "!s.players.find(p => p.name === 'Ben').host")
    await page.click("[data-testid=seat-taken-sit-2]")
    await wait_js(page, "s.me.seat === 2")
