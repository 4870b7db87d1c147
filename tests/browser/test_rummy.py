"""Rummy in the browser, through the generic game UI: a 2-4 player game the host starts before
every seat is taken, a draw by double-clicking the stock, and a meld laid down by dropping
several selected hand cards together on "New meld" (one `move_many`), the zone glowing while
they are dragged.
"""

from __future__ import annotations

import json
from typing import Any

from plugins.registry import GAMES
from plugins.rummy.rules import ENGINE
from server.net.http import ROOMS_KEY
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

# Each hand holds one run and nothing else that melds; the stock's two top cards (the first two
# draws) meld with nothing.
RUN_A = ["S1", "S2", "S3"]
RUN_B = ["C1", "C2", "C3"]
HAND_A = [*RUN_A, "D5", "D7", "D9", "D11", "D13", "C6", "C8"]
HAND_B = [*RUN_B, "H5", "H7", "H9", "H11", "H13", "S6", "S8"]


def stacked_deal() -> Any:
    """A two-player deal from a stacked deck: cards alternate between the hands, then the first
    discard (S13), then the stock with D2 and H3 on top."""
    order = [c for pair in zip(HAND_A, HAND_B, strict=True) for c in pair] + ["S13", "D2", "H3"]
    rest = [f"{s}{r}" for s in "CDHS" for r in range(1, 14) if f"{s}{r}" not in order]
    return ENGINE.new_game(2, {}, 1, deck=[*order, *rest])


async def test_rummy_started_early_and_a_meld_dropped_at_once(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=rummy]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "rummy")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=game-status]", has_text="2 of 4 seated").wait_for()
    # Two may play: the host starts now instead of waiting for four.
    await a.locator("[data-testid=game-start]").wait_for()
    await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 2")
    await a.locator("[data-testid=host-start]").wait_for(state="detached")
    assert await a.locator("[data-testid=game-start]").is_hidden()
    assert await a.locator("[data-testid=bot-2]").count() == 0, "seat 3 does not play"

    # A known deal (a test shortcut through the room service, checked by the engine; play goes
    # on as usual).
    deal = stacked_deal()
    await server.app[ROOMS_KEY].set_game_state(code, GAMES["rummy"].engine.dump(deal))
    await wait_js(
        a,
        "JSON.stringify([...s.game.view.hand].sort()) === arg",
        json.dumps(sorted(deal.hands[0])).replace(" ", ""),
    )
    hand = (await dump(a))["game"]["view"]["hand"]
    run = RUN_A if "S1" in hand else RUN_B
    assert set(run) <= set(hand)

    # Ana's turn (after the computer's, if it deals first): draw by double-clicking the stock.
    await wait_js(a, "s.game.controls.some(c => c.action.type === 'draw')", timeout=15_000)
    stock_top = next(o for o in (await dump(a))["objects"] if o["id"] == "stock")["cards"][-1]
    await a.dblclick(f"[data-id='{stock_top}']")
    await wait_js(a, "s.game.view.hand.length === 11 && s.pending.length === 0")
    assert len(set((await dump(a))["game"]["view"]["hand"]) & {"D2", "H3"}) == 1

    # Select the run's three cards, drag them together: "New meld" glows; drop: one move.
    await wait_js(a, "s.game.controls.some(c => c.action.type === 'meld')")
    ids = await a.evaluate(
        """faces => { const s = window.__cardtable.state;
        return faces.map(f => [...s.view.values()].find(o => o.face === f && o.parent &&
          o.parent.startsWith('hand')).id); }""",
        run,
    )
    for cid in ids:
        await a.click(f"[data-id='{cid}']", modifiers=["Control"])
    await wait_js(a, "s.selected.length === 3")
    start = await center(a, f"[data-id='{ids[1]}']")
    end = await center(a, "[data-id=newmeld]")
    await a.mouse.move(*start)
    await a.mouse.down()
    await a.mouse.move(start[0] + 10, start[1] - 60, steps=3)
    await a.locator("[data-id=newmeld].accepts").wait_for()
    await a.mouse.move(*end, steps=6)
    sent = await a.evaluate("""() => { const s = window.__cardtable.room.conn.socket;
        window.__ops = []; const emit = s.emit; s.emit = function (ev, p) {
          if (ev === 'op') window.__ops.push(p.op); return emit.apply(this, arguments); };
        return true; }""")
    assert sent
    await a.mouse.up()
    await wait_js(
        a, "s.game.view.melds.some(m => m.length === 3 && arg.every(c => m.includes(c)))", run
    )
    assert await a.evaluate("window.__ops") == ["move_many"]
    await wait_js(a, "s.log.some(l => l.startsWith('Ana melded'))")
    await settled(a)
    await shot(a, "rummy-meld")
