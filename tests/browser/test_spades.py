"""Spades in the browser, through the same generic game UI as every rule game: a room made from
the server's list of games with its options, a waiting table filled with computer players, each
page turned so that its own player sits at the bottom (the others' hands fanned round the
table), Spades' bid pad, the first trick played by drag and by double-click with only the legal
cards glowing, the trick's countdown, and a spectator on a phone who sees player 0 at the bottom.
"""

from __future__ import annotations

import json
from typing import Any

from plugins.spades.rules import ENGINE as SPADES
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

# Every page records whether a countdown was ever on show (the trick stays on the table for a
# second: too short to be sure to look at the right moment, so the page tells us afterwards).
WATCH_TIMER = """() => { window.__sawTimer = false;
  const el = document.querySelector('[data-testid=game-timer]');
  new MutationObserver(() => { if (!el.hidden && /^\\d+ s$/.test(el.textContent.trim()))
    window.__sawTimer = true; }).observe(el, {attributes: true, childList: true, subtree: true,
    characterData: true}); }"""


async def game(page: Any) -> dict:
    return json.loads(await page.evaluate("JSON.stringify(window.__cardtable.state.game)"))


async def box(page: Any, selector: str) -> dict:
    await settled(page)
    got = await page.locator(selector).first.bounding_box()
    assert got is not None, selector
    return got


def same_place(one: dict, two: dict) -> bool:
    return all(abs(one[k] - two[k]) < 1.5 for k in ("x", "y", "width", "height"))


async def controls(page: Any, kind: str) -> list[dict]:
    return [c for c in (await game(page))["controls"] if c["action"]["type"] == kind]


async def test_spades_for_four_through_the_generic_ui(pages):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=spades]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "spades")
    await a.select_option("[data-testid=opt-target]", "200")
    await a.check("[data-testid=opt-blind_nil]")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    g = await game(a)
    assert g["name"] == "spades" and g["waiting"]
    assert g["options"] == {"target": 200, "blind_nil": True}
    await a.locator(
        "[data-testid=game-status]", has_text="Waiting for players: 1 of 4 seated"
    ).wait_for()

    # Ben joins; only the host may seat computers, in the empty seats.
    b = await pages.open(f"/r/{code}?name=Ben")
    await enter_room(b)
    await b.locator("[data-testid=game-status]", has_text="2 of 4 seated").wait_for()
    await a.locator("[data-testid=bot-2]").wait_for()
    assert await b.locator("[data-testid=bot-2]").count() == 0
    assert await a.locator("[data-testid=bot-1]").count() == 0, "Ben's seat is taken"
    for seat in (2, 3):
        await a.click(f"[data-testid=bot-{seat}]")
        await wait_js(a, "s.players.some(p => p.bot && p.seat === arg)", seat)
    for p in (a, b):
        await wait_js(p, "s.game && !s.game.waiting && s.game.players.length === 4")
        assert await p.locator("[data-testid=undo]").is_hidden()
    assert (await game(a))["me"] == 0 and (await game(b))["me"] == 1

    # Each page sits at the bottom: Ben's trick zone is where Ana's is on her page; Ben sees
    # Ana (player 0) on his right, Ana sees Ben on her left; three fanned hands, four plates.
    assert same_place(await box(a, "[data-id=trick0]"), await box(b, "[data-id=trick1]"))
    assert same_place(await box(a, "[data-id=trick2]"), await box(b, "[data-id=trick3]"))
    felt = await box(b, "[data-testid=table]")
    ana_on_b = await box(b, "[data-testid=other-hand][data-player='0'] .fan-cards")
    assert ana_on_b["x"] > felt["x"] + 0.75 * felt["width"]
    ben_on_a = await box(a, "[data-testid=other-hand][data-player='1'] .fan-cards")
    assert ben_on_a["x"] + ben_on_a["width"] < felt["x"] + 0.25 * felt["width"]
    for p in (a, b):
        assert await p.locator("[data-testid=other-hand]").count() == 3
    ben = a.locator("[data-testid=seat-plate][data-player='1']")
    assert await ben.locator("[data-testid=plate-name]").text_content() == "Ben"
    assert await ben.locator("[data-testid=plate-cards]").text_content() == "13 cards"

    # Bidding: the bid pad shows on the page whose turn it is, with the bids the server allows.
    shots = 0
    for _ in range(40):
        v = (await dump(a))["v"]
        await wait_js(b, "s.v >= arg", v)
        if (await game(a))["phase"] != "bidding":
            break
        for me, other in ((a, b), (b, a)):
            bids = await controls(me, "bid")
            if not bids:
                continue
            pad = me.locator("[data-testid=bid-pad]")
            await pad.wait_for()
            assert await other.locator("[data-testid=bid-pad]").is_hidden()
            assert await pad.locator("[data-testid=bid]").count() == len(bids)
            assert await other.locator("[data-testid=your-turn]").is_hidden()
            await me.locator("[data-testid=your-turn]").wait_for()
            if shots == 0:
                await settled(me)
                await shot(me, "spades-bid-pad")
                shots += 1
            await pad.locator("[data-testid=bid][data-bid='3']").click()
            break
        await wait_js(a, "s.v > arg", v)
    g = await game(a)
    assert g["phase"] == "playing", g["phase"]
    assert g["view"]["bids"][0] == 3 and g["view"]["bids"][1] == 3

    # The first trick: only the legal cards glow; Ana drags hers to the middle, Ben
    # double-clicks his. Each card shows up at its player's place on both pages.
    for p in (a, b):
        await p.evaluate(WATCH_TIMER)
    played: dict[int, str] = {}
    for _ in range(40):
        v = (await dump(a))["v"]
        await wait_js(b, "s.v >= arg", v)
        if (await game(a))["phase"] != "playing" or len(played) == 2:
            break
        for player, me in ((0, a), (1, b)):
            plays = await controls(me, "play")
            if not plays:
                continue
            faces = sorted(c["cards"][0] for c in plays)
            await wait_js(me, "s.pending.length === 0")
            glowing = await me.eval_on_selector_all(
                "[data-testid=card][data-where=hand].playable",
                "els => els.map(e => e.dataset.face)",
            )
            assert sorted(glowing) == faces
            face = faces[0]
            card = f"[data-testid=card][data-where=hand][data-face='{face}']"
            if player == 0:
                await drag(me, await center(me, card), await center(me, "[data-id=trick0]"))
            else:
                await me.dblclick(card)
            played[player] = face
            for p in (a, b):
                await wait_js(p, "s.game.view.trick.some(t => t.card === arg)", face)
            break
        else:
            await wait_js(a, "s.v > arg", v)
    assert sorted(played) == [0, 1]
    for player, face in played.items():
        for p in (a, b):
            # Still on the table (the trick waits a second), or already in the winner's pile.
            await wait_js(
                p,
                "s.game.view.tricks_taken.reduce((x, y) => x + y) === 1 || "
                "s.objects.some(o => o.id === arg[0] && o.cards.length === 1 && "
                "s.objects.some(c => c.id === o.cards[0] && c.face === arg[1]))",
                [f"trick{player}", face],
            )
    for p in (a, b):
        await wait_js(p, "s.game.view.tricks_taken.reduce((x, y) => x + y) === 1")
        assert await p.evaluate("window.__sawTimer") is True
    g = await game(b)
    winner = g["view"]["tricks_taken"].index(1)
    await wait_js(b, "s.objects.some(o => o.id === arg && o.cards.length === 4)", f"won{winner}")
    for p in (a, b):
        await settled(p)
    await shot(a, "spades-ana")
    await shot(b, "spades-ben")

    # A spectator on a phone: player 0 at the bottom, all four hands round the table, no
    # controls, nothing to edit.
    cy = await pages.open(f"/r/{code}?name=Cy", viewport=(390, 844), is_mobile=True, has_touch=True)
    await enter_room(cy)
    assert (await dump(cy))["me"]["seat"] is None
    assert (await game(cy))["me"] is None
    await cy.locator("[data-testid=other-hand] .fan-cards").nth(3).wait_for()
    assert await cy.locator("[data-testid=other-hand]").count() == 4
    felt = await box(cy, "[data-testid=table]")
    trick0 = await box(cy, "[data-id=trick0]")
    assert trick0["y"] > felt["y"] + felt["height"] / 2
    assert await cy.locator("[data-testid=control]").count() == 0
    assert await cy.locator("[data-testid=bid-pad]").is_hidden()
    for testid in ("undo", "add-menu", "your-turn"):
        assert await cy.locator(f"[data-testid={testid}]").is_hidden()
    await settled(cy)
    await shot(cy, "spades-phone-spectator")


async def test_one_person_and_three_computers_play_a_deal_to_the_score_sheet(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=spades]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "spades")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    for seat in (1, 2, 3):
        await a.click(f"[data-testid=bot-{seat}]")
        await wait_js(a, "s.players.some(p => p.bot && p.seat === arg)", seat)
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 4")

    # Ana bids with the pad and plays every trick by double-clicking a glowing card; the
    # computers bid and play by themselves and the server gathers each trick.
    plays = 0
    for _ in range(400):
        await wait_js(
            a,
            "s.pending.length === 0 && (s.game.controls.length > 0 || "
            "['deal_over', 'game_over'].includes(s.game.phase))",
            timeout=30_000,
        )
        g = await game(a)
        if g["phase"] in ("deal_over", "game_over"):
            break
        bids = [c for c in g["controls"] if c["action"]["type"] == "bid"]
        if bids:
            await a.locator("[data-testid=bid-pad] [data-testid=bid][data-bid='3']").click()
            await wait_js(a, "s.game.view.bids[0] !== null")
            continue
        playable = sorted(c["cards"][0] for c in g["controls"] if c["action"]["type"] == "play")
        assert playable, g["controls"]
        v = (await dump(a))["v"]
        await a.dblclick(f"[data-testid=card][data-where=hand][data-face='{playable[0]}']")
        await wait_js(a, "s.v > arg[0] && !s.game.view.hand.includes(arg[1])", [v, playable[0]])
        plays += 1
    assert plays == 13

    # The deal's score sheet: one row, the sides' totals as the engine scored them.
    g = await game(a)
    assert g["phase"] == "deal_over" and g["status"].startswith("Deal 1 is over")
    table = await server.app[ROOMS_KEY].load_table(code)
    state = SPADES.load(table.game.state)
    sheet = a.locator("[data-testid=game-sheet]")
    if await sheet.is_hidden():
        await a.click("[data-testid=game-scores]")
    await sheet.locator("[data-testid=score-row]").first.wait_for()
    assert await sheet.locator("[data-testid=score-row]").count() == 1
    for side in (0, 1):
        shown = await sheet.locator(f"[data-testid=score-total-{side}]").text_content()
        assert shown == str(state.scores[side])
    # The one-line summary on the Scores button names the sides' scores, not their bag counts.
    summary = await a.locator("[data-testid=game-scores]").text_content() or ""
    assert str(state.scores[0]) in summary and "bags" not in summary
    assert sum(len(t.cards) for t in state.tricks) == 52
    await sheet.locator("[data-testid=reveal]").wait_for()
    await settled(a)
    await shot(a, "spades-score-sheet")
