"""Pennies holds together in the browser (issue 20 item 4): Ana and three computers, a round
played by the bots until 6+ melds are down (a self-play position put in the room), drawn on a
1440 x 900 desktop and a 390 x 844 phone (2, 3 and 4 players on both; Rummy with 4 and 6+ melds
on the phone too, where the side seats shrink to plates and the melds take the full width). On
the page: every zone (melds, "New meld", the stock, the discard pile) with its name over it, the
pennies and spent chips, the contract label, the seat plates and the other players' hands lie
inside the table and none overlaps another. Screenshots:
test-artifacts/pennies-layout-<players>-<desktop|phone>.png and rummy-layout-4-phone.png.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import plugins.rummy as rummy
from plugins.pennies import ENGINE, choose_action
from plugins.pennies.rules import PLAY, PenniesState
from plugins.simulate import drive
from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS

PHONE = {"has_touch": True}

# Every box the page draws on the table for the game, in page pixels: zones (their names over
# them measured from the text itself), widgets, and the other players' fanned hands.
BOXES_JS = """() => {
  const r = window.__cardtable.room.r;
  const st = r.stage.getBoundingClientRect();
  const g = r.geom;
  const table = {x: st.left + g.ox, y: st.top + g.oy, w: g.tw * g.s, h: g.th * g.s};
  const out = [];
  const add = (name, b) => out.push({name, x: b.left, y: b.top, w: b.width, h: b.height});
  for (const el of document.querySelectorAll('.obj.stack, .obj.widget')) {
    const b = el.getBoundingClientRect();
    add(el.dataset.id, b);
    const label = el.querySelector('.stack-label');
    if (label && label.firstChild && label.textContent.trim()) {
      const range = document.createRange();
      range.selectNodeContents(label);
      add(el.dataset.id + ':name', range.getBoundingClientRect());
    }
  }
  for (const el of document.querySelectorAll('.seat-plate')) {
    const b = el.getBoundingClientRect();
    if (b.width && b.height) add('plate ' + el.dataset.player, b);
  }
  for (const el of document.querySelectorAll('.other-hand .fan-cards')) {
    let u = null;
    for (const img of el.querySelectorAll('img')) {
      const b = img.getBoundingClientRect();
      u = u ? {l: Math.min(u.l, b.left), t: Math.min(u.t, b.top), r: Math.max(u.r, b.right),
               b: Math.max(u.b, b.bottom)} : {l: b.left, t: b.top, r: b.right, b: b.bottom};
    }
    if (u) out.push({name: 'hand ' + el.parentElement.dataset.player, x: u.l, y: u.t,
                     w: u.r - u.l, h: u.b - u.t});
  }
  return {table, boxes: out};
}"""


def many_melds(players: int = 4, seed: int = 3, at_least: int = 8) -> PenniesState:
    """A round of ``players`` played by the bots until ``at_least`` melds are down, Ana (player 0)
    among those who laid some, stopped when it is her turn to play (the computers wait)."""

    def enough(s: PenniesState) -> bool:
        laid = sum(len(m) for m in s.melds)
        return s.phase == PLAY and s.turn == 0 and laid >= at_least and bool(s.melds[0])

    state = ENGINE.new_game(players, {}, seed)
    bots = [choose_action] * players
    played = drive(ENGINE, state, bots, [random.Random(seed)] * players, stop=enough)
    assert enough(played.state), "the bots never got there: try another seed"
    return played.state


def problems(found: dict[str, Any]) -> list[str]:
    t = found["table"]
    out = []
    boxes = [b for b in found["boxes"] if b["w"] > 0 and b["h"] > 0]
    for b in boxes:
        if (
            b["x"] < t["x"] - 1
            or b["y"] < t["y"] - 1
            or b["x"] + b["w"] > t["x"] + t["w"] + 1
            or b["y"] + b["h"] > t["y"] + t["h"] + 1
        ):
            out.append(f"{b['name']} off the table")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a["name"].split(":")[0] == b["name"].split(":")[0]:
                continue  # a zone and its own name
            overlap_x = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            overlap_y = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if overlap_x > 1 and overlap_y > 1:
                out.append(f"{a['name']} overlaps {b['name']}")
    return out


def rummy_melds(players: int = 4, seed: int = 1, at_least: int = 6) -> Any:
    """A Rummy hand of ``players`` played by the bots until ``at_least`` melds are down, stopped
    when it is Ana's (player 0's) turn to draw."""

    def enough(s: Any) -> bool:
        return s.phase == "draw" and s.turn == 0 and len(s.melds) >= at_least

    for tries in range(20):
        state = rummy.ENGINE.new_game(players, {}, seed + tries)
        bots = [rummy.choose_action] * players
        rng = [random.Random(seed + tries)] * players
        played = drive(rummy.ENGINE, state, bots, rng, stop=enough)
        if enough(played.state):
            return played.state
    raise AssertionError("the bots never got there: try another seed")


async def start(pages: Any, players: int, game: str = "pennies", **context: Any) -> tuple[Any, str]:
    """Ana's room of ``game`` with ``players - 1`` computers, the game started, on a wide
    screen (the players panel beside the table)."""
    a = await pages.open("/?name=Ana", viewport=(1440, 900), **context)
    await a.locator(f"[data-testid=game-select] option[value={game}]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", game)
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    for seat in range(1, players):
        await a.click(f"[data-testid=bot-{seat}]")
        await wait_js(a, "s.players.filter(p => p.seat !== null).length === arg", seat + 1)
    # Every seat taken: the game starts by itself (or with the host's button).
    await wait_js(
        a, "s.game && (!s.game.waiting || document.querySelector('[data-testid=host-start]'))"
    )
    if await a.evaluate("() => window.__cardtable.dump().game.waiting"):
        await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === arg", players)
    assert (await dump_me(a)) == 0
    return a, code


async def dump_me(page: Any) -> int:
    return int(await page.evaluate("() => window.__cardtable.dump().game.me"))


SIZES = {"desktop": ((1440, 900), {}), "phone": ((390, 844), PHONE)}


async def drawn(pages: Any, server: Any, players: int, size: str) -> tuple[Any, dict[str, Any]]:
    """The position of ``many_melds(players)`` as Ana's page draws it at ``size``: the boxes on
    the table, and a screenshot."""
    position = many_melds(players)
    laid = sum(len(m) for m in position.melds)
    viewport, context = SIZES[size]
    a, code = await start(pages, players, **context)
    await a.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(position))
    await wait_js(
        a,
        "s.game.view.melds.flat().length === arg && "
        "s.objects.filter(o => o.t === 'stack' && /^m[0-9]x/.test(o.id)).length === arg",
        laid,
    )
    await settled(a)
    found = await a.evaluate(BOXES_JS)
    await shot(a, f"pennies-layout-{players}-{size}")
    melds = [b for b in found["boxes"] if b["name"] and b["name"][0] == "m" and "x" in b["name"]]
    assert len(melds) == laid >= 6, melds
    return a, found


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_pennies_with_many_melds_holds_together_on_a_desktop(pages, server, players):
    _, found = await drawn(pages, server, players, "desktop")
    assert not problems(found), problems(found)


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_pennies_with_many_melds_holds_together_on_a_phone(pages, server, players):
    _, found = await drawn(pages, server, players, "phone")
    assert not problems(found), problems(found)


async def test_rummy_with_four_players_and_many_melds_holds_together_on_a_phone(pages, server):
    position = rummy_melds()
    viewport, context = SIZES["phone"]
    a, code = await start(pages, 4, "rummy", **context)
    await a.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    await server.app[ROOMS_KEY].set_game_state(code, rummy.ENGINE.dump(position))
    laid = len(position.melds)
    await wait_js(
        a,
        "s.objects.filter(o => o.t === 'stack' && /^meld[0-9]/.test(o.id)).length === arg",
        laid,
    )
    await settled(a)
    found = await a.evaluate(BOXES_JS)
    await shot(a, "rummy-layout-4-phone")
    melds = [b for b in found["boxes"] if b["name"].startswith("meld") and ":" not in b["name"]]
    assert len(melds) == laid >= 6, melds
    assert len([b for b in found["boxes"] if b["name"].startswith("plate")]) == 4
    assert not problems(found), problems(found)
