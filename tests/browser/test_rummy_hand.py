"""A whole Rummy hand in the browser, played by a person against a computer: from a stacked
deal Ana draws by dragging the stock's top card into her hand, lays down two melds by selecting
cards and dropping them on "New meld", drags her last card onto the discard pile and goes out
(rummy, on her first turn). The hand-over sheet then shows the scoreboard row and the reveal of
the computer's cards, and the test checks both against the engine's own scoring.
"""

from __future__ import annotations

import json
from typing import Any

from plugins.rummy.rules import ENGINE, hand_points
from server.net.http import ROOMS_KEY
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    drag,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

SEED = 0  # the computer (player 1) deals the first hand, so Ana (player 0) plays first
RUN = ["S1", "S2", "S3", "S4", "S5", "S6"]
SEVENS = ["C7", "D7", "H7", "S7"]
LAST = "D12"
HAND_ANA = [*RUN, "C7", "D7", "H7", LAST]
# The computer's cards: no meld among them, 44 points (88 doubled stays under the target 100).
HAND_BOT = ["C1", "C2", "C4", "C8", "D2", "D5", "D9", "H3", "H4", "H6"]
UPCARD = "H13"
FIRST_DRAW = "S7"


def stacked_deal() -> Any:
    """Ana's ten cards hold a run of six spades and three sevens; the stock's top card is the
    fourth seven, so after the draw every card but the queen of diamonds melds."""
    order = [c for pair in zip(HAND_ANA, HAND_BOT, strict=True) for c in pair]
    order += [UPCARD, FIRST_DRAW]
    rest = [f"{s}{r}" for s in "CDHS" for r in range(1, 14) if f"{s}{r}" not in order]
    state = ENGINE.new_game(2, {}, SEED, deck=[*order, *rest])
    assert state.dealer == 1 and state.turn == 0
    assert state.stock[-1] == FIRST_DRAW and state.discard == (UPCARD,)
    return state


def hand_card(face: str) -> str:
    return f"[data-testid=card][data-where=hand][data-face='{face}']"


async def drop_on(page: Any, faces: list[str], target: str) -> None:
    """Ctrl-click ``faces`` in the hand, then drag them together onto ``target``."""
    await wait_js(page, "s.pending.length === 0")
    await page.evaluate("() => window.__cardtable.state.selected.clear()")
    for face in faces:
        await page.click(hand_card(face), modifiers=["Control"])
    await wait_js(page, "s.selected.length === arg", len(faces))
    await drag(page, await center(page, hand_card(faces[0])), await center(page, target))


async def test_ana_goes_rummy_and_the_sheet_shows_the_engine_score(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=rummy]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "rummy")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=host-start]").wait_for()
    await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 2")
    assert (await dump(a))["game"]["me"] == 0

    deal = stacked_deal()
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(deal))
    await wait_js(
        a,
        "JSON.stringify(s.game.view.hand) === arg && s.game.view.turn === 0 && "
        "s.game.controls.some(c => c.action.type === 'draw')",
        json.dumps(list(deal.hands[0])).replace(" ", ""),
    )

    # The draw: the stock's top card dragged into the hand.
    stock_top = next(o for o in (await dump(a))["objects"] if o["id"] == "stock")["cards"][-1]
    await drag(a, await center(a, f"[data-id='{stock_top}']"), await center(a, hand_card("S3")))
    await wait_js(a, "s.game.view.hand.length === 11 && s.game.view.hand.includes(arg)", FIRST_DRAW)

    # Two melds, each a selection dropped on "New meld".
    await drop_on(a, RUN, "[data-id=newmeld]")
    await wait_js(
        a, "s.game.view.melds.length === 1 && s.game.view.melds[0].join() === arg", ",".join(RUN)
    )
    await drop_on(a, SEVENS, "[data-id=newmeld]")
    await wait_js(
        a,
        "s.game.view.melds.length === 2 && [...s.game.view.melds[1]].sort().join() === arg",
        ",".join(sorted(SEVENS)),
    )
    assert (await dump(a))["game"]["view"]["hand"] == [LAST]

    # The last card onto the discard pile: it goes face down and the hand is over.
    await wait_js(a, "s.pending.length === 0")
    await drag(a, await center(a, hand_card(LAST)), await center(a, "[data-id=discard]"))
    await wait_js(a, "s.game.phase === 'hand_over' && !!s.game.reveal")

    # The engine's own result for the position the server now holds.
    table = await server.app[ROOMS_KEY].load_table(code)
    state = ENGINE.load(table.game.state)
    result = state.results[-1]
    assert result.winner == 0 and result.rummy
    assert result.left[1] == tuple(HAND_BOT)
    assert result.values == (0, hand_points(HAND_BOT)) == (0, 44)
    assert result.points == 2 * 44 and state.scores == (88, 0)
    assert state.out_card == LAST and state.discard == (UPCARD,)

    # The sheet opens by itself: the status, the scoreboard row and the computer's cards.
    sheet = a.locator("[data-testid=game-sheet]")
    await sheet.wait_for()
    assert await sheet.locator("h2").text_content() == "Hand over"
    assert (
        await sheet.locator("[data-testid=sheet-status]").text_content()
        == "Ana went rummy and scores 88"
    )
    rows = sheet.locator("[data-testid=score-row]")
    assert await rows.count() == 1
    cells = await rows.first.locator("td").all_text_contents()
    assert cells == ["Hand 1 (rummy)", str(result.points), "0"]
    for player, total in enumerate(state.scores):
        assert await sheet.locator(f"[data-testid=score-total-{player}]").text_content() == str(
            total
        )
    assert (
        await sheet.locator("[data-testid=scoreboard-note]").text_content()
        == "First to 100; the highest total wins"
    )
    bot = sheet.locator("[data-testid=reveal-player-1]")
    shown = await bot.locator("[data-face]").evaluate_all("els => els.map(e => e.dataset.face)")
    assert sorted(shown) == sorted(HAND_BOT)
    assert await sheet.locator("[data-testid=reveal-points-1]").text_content() == "44"
    assert await sheet.locator("[data-testid=reveal-points-0]").text_content() == "0"
    assert (
        await sheet.locator("[data-testid=reveal-note-0]").text_content()
        == "went rummy: scores 88 (doubled)"
    )
    assert await sheet.locator("[data-testid=sheet-control][data-type=next_hand]").is_visible()
    # The score button in the game bar carries the totals too.
    bot_name = next(p["name"] for p in (await dump(a))["players"] if p["bot"])
    assert await a.locator("[data-testid=game-scores]").text_content() == f"Ana 88 · {bot_name} 0"
    await settled(a)
    await shot(a, "rummy-score")
