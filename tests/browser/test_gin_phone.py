"""Gin Rummy on a touch phone (390 x 844), issue 20 item 5: the knock picker says "tap" and
marks the cards you may knock with without making the others see-through (an overlapping hand
of half-transparent cards is a smear); during the lay-off the game bar stays one or two rows.
Positions from the bots' own play are put in the room; screenshots gin-phone-knock.png and
gin-phone-layoff.png.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE, LAYOFF
from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS


def reached(want: Callable[[Any], bool]) -> Any:
    """The first position of the bots' self-play (seeds 0, 1, ...) where ``want`` holds."""
    for seed in range(100):
        rng = random.Random(seed)
        state = ENGINE.new_game(2, {}, seed)
        for _ in range(400):
            if want(state):
                return state
            if state.phase in ("hand_over", "game_over"):
                break
            player = ENGINE.to_act(state)[0]
            state = ENGINE.apply(state, player, choose_action(ENGINE, state, player, rng))
    raise AssertionError("the bots never got there")


def may_knock(state: Any) -> bool:
    legal = ENGINE.legal_actions(state, 0)
    return any(a["type"] == "knock" for a in legal) and any(a["type"] == "discard" for a in legal)


def laying_off(state: Any) -> bool:
    return state.phase == LAYOFF and ENGINE.to_act(state) == [0]


async def gin_against_a_computer(pages: Any) -> tuple[Any, str]:
    """Ana's Gin room with a computer, on a touch phone (seated on a wide screen first: the
    players panel is beside the table there), then held upright."""
    a = await pages.open("/?name=Ana", viewport=(1440, 900), has_touch=True, is_mobile=True)
    await a.locator("[data-testid=game-select] option[value=gin_rummy]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "gin_rummy")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await wait_js(a, "s.game && !s.game.waiting")
    await a.set_viewport_size({"width": 390, "height": 844})
    return a, code


async def test_the_knock_picker_on_a_phone(pages, server):
    a, code = await gin_against_a_computer(pages)
    position = reached(may_knock)
    commit = await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(position))
    await wait_js(
        a, "s.v >= arg && s.game.controls.some(c => c.action.type === 'knock')", commit.version
    )
    assert await a.evaluate("() => matchMedia('(pointer: coarse)').matches")
    await a.click("[data-testid=game-knock]")
    row = a.locator("[data-testid=knock-pick]")
    await row.wait_for()
    hint = await row.locator(".pick-hint").text_content()
    assert hint is not None and "tap the card" in hint and "click" not in hint, hint
    await a.locator("[data-testid=card][data-where=hand].pickable").first.wait_for()
    looks = await a.evaluate(
        """() => [...document.querySelectorAll('[data-testid=card][data-where=hand]')].map(el => {
          const img = getComputedStyle(el.querySelector('img'));
          return {pickable: el.classList.contains('pickable'),
                  unpickable: el.classList.contains('unpickable'),
                  opacity: Number(img.opacity) * Number(getComputedStyle(el).opacity),
                  outline: img.outlineStyle}; })"""
    )
    assert any(c["unpickable"] for c in looks) and any(c["pickable"] for c in looks), looks
    assert all(c["opacity"] == 1 for c in looks), looks  # no see-through cards
    assert all(c["outline"] == "solid" for c in looks if c["pickable"]), looks
    await settled(a)
    await shot(a, "gin-phone-knock")


async def test_the_game_bar_stays_low_during_the_lay_off_on_a_phone(pages, server):
    a, code = await gin_against_a_computer(pages)
    position = reached(laying_off)
    commit = await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(position))
    await wait_js(a, "s.v >= arg && s.game.phase === 'layoff'", commit.version)
    await a.locator("[data-testid=control][data-type=finish_layoff]").wait_for()
    await settled(a)
    await shot(a, "gin-phone-layoff")
    rows = await a.evaluate(
        """() => {
          const bar = document.querySelector('[data-testid=game-bar]');
          const boxes = [];
          for (const el of bar.querySelectorAll('button, .game-status, .game-hint, .deadwood'))
            if (el.offsetParent !== null) boxes.push(el.getBoundingClientRect());
          boxes.sort((p, q) => p.top - q.top);
          let rows = 0, bottom = -1;  // a row: boxes that overlap it vertically
          for (const b of boxes) {
            if (b.top >= bottom - 2) { rows += 1; bottom = b.bottom; }
            else bottom = Math.max(bottom, b.bottom);
          }
          const done = document.querySelector('[data-testid=control][data-type=finish_layoff]')
            .getBoundingClientRect();
          return {height: bar.getBoundingClientRect().height, rows,
                  done: done.right <= innerWidth && done.left >= 0};
        }"""
    )
    assert rows["rows"] <= 2 and rows["height"] <= 110 and rows["done"], rows
