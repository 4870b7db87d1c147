""" "Group melds" in a Rummy hand (issue 20 item 5): the toggle orders Ana's hand with the melds
the engine finds in it together (``view.groups``), the rest after; it keeps doing so when the
hand changes (a drawn card joining a meld), and the page remembers it after a reload.
"""

from __future__ import annotations

from typing import Any

from plugins.rummy.rules import ENGINE
from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, center, drag, dump, enter_room, wait_js
from tests.browser.test_rummy_hand import stacked_deal

pytestmark = BROWSER_TESTS

HAND_ORDER_JS = """s => { const h = s.objects.find(o => o.id === 'hand' + s.me.seat);
  const face = new Map(s.objects.filter(o => o.t === 'card').map(o => [o.id, o.face]));
  return h && h.cards ? h.cards.map(id => face.get(id)).join() : ''; }"""


async def hand_order(page: Any) -> list[str]:
    got = await page.evaluate(f"() => ({HAND_ORDER_JS})(window.__cardtable.dump())")
    return str(got).split(",") if got else []


async def grouped(page: Any) -> list[str]:
    """The order the toggle should give: the view's melds, then the rest in the page's sort."""
    g = (await dump(page))["game"]["view"]
    melded = [c for m in g["groups"] for c in m]
    return melded


async def wait_grouped(page: Any) -> list[str]:
    """Wait until the hand starts with the view's melds, in their order; returns that order."""
    await wait_js(
        page,
        f"s.pending.length === 0 && ({HAND_ORDER_JS})(s).startsWith("
        "s.game.view.groups.flat().join())",
    )
    order = await hand_order(page)
    melded = await grouped(page)
    assert melded and order[: len(melded)] == melded, (order, melded)
    return order


async def test_group_melds_keeps_the_hand_in_meld_order_and_is_remembered(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=rummy]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "rummy")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=host-start]").wait_for()
    await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 2")

    deal = stacked_deal()
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(deal))
    await wait_js(a, "s.game.view.hand.length === 10 && s.game.view.groups.flat().length === 9")
    before = await hand_order(a)
    groups = (await dump(a))["game"]["view"]["groups"]
    if before[: len(groups[0])] == groups[0]:
        # The hand's order after the new state depends on the room's first (random) deal (a CI
        # run saw it grouped already): put its first card last, so the toggle has work.
        await a.evaluate(
            """() => { const t = window.__cardtable, s = t.state;
                const h = s.view.get('hand' + s.me.seat);
                t.room.send({op: 'move', id: h.cards[0], to: h.id, index: h.cards.length - 1}); }"""
        )
        await wait_js(a, "s.pending.length === 0")
        before = await hand_order(a)
    assert before[: len(groups[0])] != groups[0]  # the dealt order is not the grouped one

    toggle = a.locator("[data-testid=game-group]")
    assert await toggle.get_attribute("aria-pressed") == "false"
    await toggle.click()
    assert await toggle.get_attribute("aria-pressed") == "true"
    order = await wait_grouped(a)
    assert order[-1] == "D12"  # the one card in no meld comes last
    assert await a.evaluate("localStorage.getItem('cardtable.groupMelds')") == "1"

    # A drawn card that joins a meld: the hand regroups by itself.
    stock = await a.evaluate(
        "() => { const s = window.__cardtable.state.view.get('stock'); return s.cards.at(-1); }"
    )
    await drag(a, await center(a, f"[data-id='{stock}']"), await center(a, "[data-testid=my-hand]"))
    await wait_js(a, "s.game.view.hand.length === 11 && s.game.view.groups.flat().length === 10")
    order = await wait_grouped(a)
    assert "S7" in order[:10] and order[-1] == "D12", order

    # Remembered: after a reload the toggle is still on.
    await a.reload()
    await wait_js(a, "s.game && !s.game.waiting && s.game.view.hand.length === 11")
    assert await a.locator("[data-testid=game-group]").get_attribute("aria-pressed") == "true"
    await wait_grouped(a)
