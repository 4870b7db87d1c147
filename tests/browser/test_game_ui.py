"""The generic game UI drawn from a game view alone, for the parts no game on the server uses
yet: a question with a countdown (a buying window), a control that first wants cards picked from
the hand, the hint, and the final result with the reveal. The page is handed a game view in the
shape docs/protocol.md describes (as a game would send it) and must draw it and send the
controls' actions; the free-play room underneath answers them with "No game is running".
"""

from __future__ import annotations

import re
from typing import Any

from tests.browser.conftest import BROWSER_TESTS, create_and_join, dump, settled, shot, wait_js

pytestmark = BROWSER_TESTS

RECORD = """() => { const sock = window.__cardtable.room.conn.socket; const emit = sock.emit;
  window.__sent = []; sock.emit = function (ev, payload) {
    if (ev === 'game') window.__sent.push(payload.action);
    return emit.apply(this, arguments); }; }"""

SHOW = """(game) => { const t = window.__cardtable;
  if (game.timer) game.timer.ends = Date.now() / 1000 + game.timer.seconds;
  t.state.game = game; t.room.refresh(); }"""


def buying_view() -> dict[str, Any]:
    players = [
        {"player": 0, "seat": 0, "name": "Ana", "team": 0, "bot": False},
        {"player": 1, "seat": 1, "name": "Ben", "team": 1, "bot": False},
    ]
    return {
        "name": "pennies",
        "title": "Pennies",
        "options": {},
        "waiting": False,
        "min_players": 2,
        "max_players": 6,
        "players": players,
        "me": 0,
        "phase": "buying",
        "status": "Ben discarded the 7 of hearts: anyone may buy it",
        "to_act": [0, 1],
        "timer": {"ends": 0, "seconds": 30},
        "controls": [
            {
                "action": {"type": "buy"},
                "label": "Buy the 7 of hearts for 1 penny?",
                "kind": "prompt",
                "group": "buy",
            },
            {"action": {"type": "decline"}, "label": "No thanks", "kind": "prompt", "group": "buy"},
            {
                "action": {"type": "pass_cards"},
                "label": "Pass these 2 cards",
                "kind": "button",
                "pick": 2,
            },
        ],
        "hint": "You may buy 2 more times this round.",
        "scoreboard": {
            "columns": ["Ana", "Ben"],
            "rows": [],
            "totals": [0, 0],
            "note": "Seven rounds",
        },
        "reveal": None,
        "outcome": None,
        "widgets": [],
        "slots": [[800, 880], [800, 120]],
        "view": {},
        "legal": [],
    }


async def test_prompt_pick_and_result_from_a_game_view(pages):
    a, b, code = await create_and_join(pages)
    # Three cards into Ana's hand (a real draw), then the page gets the game view.
    for _ in range(3):
        await a.hover("[data-testid=stack-count][data-stack=deck]")
        await a.keyboard.press("d")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 3")
    hand = next(o for o in (await dump(a))["server"] if o["id"] == "hand0")["cards"]
    faces = {o["id"]: o["face"] for o in (await dump(a))["server"] if o["id"] in hand}
    await a.evaluate(RECORD)
    await a.evaluate(SHOW, buying_view())

    # The question, near the table, with its countdown; the hint beside the buttons.
    prompt = a.locator("[data-testid=game-prompt]")
    await prompt.wait_for()
    assert (
        await prompt.locator("[data-testid=game-prompt-question]").text_content()
        == "Buy the 7 of hearts for 1 penny?"
    )
    buttons = prompt.locator("[data-testid=game-prompt-button]")
    assert await buttons.all_text_contents() == ["Buy", "No thanks"]
    for timer in ("[data-testid=game-timer]", "[data-testid=game-prompt-timer]"):
        text = (await a.locator(f"{timer} .timer-text").text_content()).strip()
        assert re.fullmatch(r"\d+ s", text) and 0 < int(text.split()[0]) <= 30, text
    await a.wait_for_function(
        "() => { const m = /scaleX\\(([\\d.]+)\\)/.exec(document.querySelector("
        "'[data-testid=game-prompt-timer] .timer-fill').style.transform);"
        " return !!m && Number(m[1]) < 1 && Number(m[1]) > 0.5; }"
    )
    assert (
        await a.locator("[data-testid=game-hint]").text_content()
        == "You may buy 2 more times this round."
    )
    assert (
        await a.locator("[data-testid=game-status]").text_content()
        == "Ben discarded the 7 of hearts: anyone may buy it"
    )
    await settled(a)
    await shot(a, "game-ui-prompt")
    await buttons.first.click()
    await wait_js(a, "window.__sent.length === 1")
    assert await a.evaluate("window.__sent") == [{"type": "buy"}]
    await a.locator("[data-testid=toast]", has_text="No game is running").first.wait_for()

    # Pick 2 cards: clicking hand cards chooses them; the button sends them with the action.
    pick = a.locator("[data-testid=pick-control]")
    assert await pick.is_disabled()
    assert "0 of 2 chosen" in await pick.text_content()
    for cid in hand[:2]:
        await a.click(f"[data-id='{cid}']")
    await a.locator("[data-testid=pick-control]:not([disabled])").wait_for()
    assert "2 of 2 chosen" in await pick.text_content()
    await a.click(f"[data-id='{hand[2]}']")  # a third: too many
    await a.locator("[data-testid=pick-control][disabled]").wait_for()
    await a.click(f"[data-id='{hand[2]}']")
    await pick.click()
    await wait_js(a, "window.__sent.length === 2")
    assert (await a.evaluate("window.__sent"))[1] == {
        "type": "pass_cards",
        "cards": [faces[hand[0]], faces[hand[1]]],
    }
    await wait_js(a, "s.selected.length === 0")

    # The game ends: the sheet opens by itself with the result, the reveal and the scores.
    over = buying_view()
    over.update(
        controls=[],
        timer=None,
        hint=None,
        phase="game_over",
        to_act=[],
        status="Ana wins the game with 9 pennies",
        reveal=[
            {
                "player": 0,
                "melds": [["H7", "S7", "D7"]],
                "cards": ["C2"],
                "points": 2,
                "note": "Went out",
            },
            {"player": 1, "melds": [], "cards": ["S13", "H12"], "points": 20, "note": ""},
        ],
        outcome={"winners": [0], "scores": [9, 2]},
        scoreboard={
            "columns": ["Ana", "Ben"],
            "rows": [{"label": "Round 1", "cells": [5, 0]}, {"label": "Round 2", "cells": [4, 2]}],
            "totals": [9, 2],
            "note": "Seven rounds",
        },
    )
    await a.evaluate(SHOW, over)
    sheet = a.locator("[data-testid=game-sheet]")
    await sheet.wait_for()
    assert await a.locator("[data-testid=game-prompt]").is_hidden()
    assert await a.locator("[data-testid=game-timer]").is_hidden()
    assert await sheet.locator("[data-testid=game-winner]").text_content() == "You win"
    assert await sheet.locator("[data-testid=final-score-1]").text_content() == "2"
    assert await sheet.locator("[data-testid=reveal-player-0] [data-face]").count() == 4
    assert await sheet.locator("[data-testid=reveal-note-0]").text_content() == "Went out"
    assert await sheet.locator("[data-testid=reveal-points-1]").text_content() == "20"
    assert await sheet.locator("[data-testid=score-row]").count() == 2
    assert await sheet.locator("[data-testid=score-total-0]").text_content() == "9"
    assert await sheet.locator("[data-testid=scoreboard-note]").text_content() == "Seven rounds"
    await settled(a)
    await shot(a, "game-ui-result")
    await a.keyboard.press("Escape")
    await sheet.wait_for(state="hidden")
