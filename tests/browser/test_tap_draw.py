"""A single tap on the stock draws when drawing is all it can do (issue 20 item 6), on an upright
touch phone (390x844) in Gin Rummy and Rummy against a computer: one tap on the stock's top card
and the card is in the hand (before, it only selected the card: a double tap or a drag drew). A
tap on the face-up discard still only selects it (taking it is a choice). (Pennies draws by its
buy prompt's "No thanks": its stock has no move of its own.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import BROWSER_TESTS, wait_js
from tests.browser.test_seats import UPRIGHT, game, rule_room, until_my_turn

pytestmark = BROWSER_TESTS


def may_draw_stock(g: dict) -> bool:
    return any(a["type"] == "draw" and a.get("source") == "stock" for a in g["legal"])


async def hand_size(page: Any) -> int:
    return int(
        await page.evaluate(
            "() => { const s = window.__cardtable.state; const o = s.view.get('hand' + s.me.seat);"
            " return o.cards.length; }"
        )
    )


async def top_card(page: Any, stack: str) -> str:
    return str(
        await page.evaluate(
            "id => { const s = window.__cardtable.state.view.get(id); return s.cards.at(-1); }",
            stack,
        )
    )


@pytest.mark.parametrize("name", ["gin_rummy", "rummy"])
async def test_a_single_tap_on_the_stock_draws(pages, name):
    page = await rule_room(pages, name, 2, UPRIGHT)
    g = await until_my_turn(page, may_draw_stock)
    before = await hand_size(page)
    v = await page.evaluate("() => window.__cardtable.state.v")

    # The discard: a tap selects it, nothing is sent.
    discard = await top_card(page, "discard")
    if discard and discard != "undefined":
        await page.tap(f"[data-id='{discard}']")
        await wait_js(page, "s.selected.includes(arg)", discard)
        assert await page.evaluate("() => window.__cardtable.state.v") == v
        assert await hand_size(page) == before

    stock = await top_card(page, "stock")
    await page.tap(f"[data-id='{stock}']")
    await page.wait_for_function("v => window.__cardtable.state.v > v", arg=v)
    await page.wait_for_function(
        "n => { const s = window.__cardtable.state; return s.pending.length === 0"
        " && s.view.get('hand' + s.me.seat).cards.length === n; }",
        arg=before + 1,
    )
    after = await game(page)
    assert not may_draw_stock(after), "drawn: the next move is a discard"
    assert after["me"] in after["to_act"]
    assert await hand_size(page) == before + 1
    assert g["name"] == name
