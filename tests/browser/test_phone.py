"""A phone (390 x 844, touch) and a phone on its side: the table is laid out for the screen,
buttons are big enough for a finger, the hand scrolls, and a long-press menu needs its own tap
(issue 13). Everything here is done with touch events; screenshots go to test-artifacts/."""

from __future__ import annotations

import random
from typing import Any

from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE as GIN
from server.net.http import ROOMS_KEY
from tests.browser.conftest import (
    BROWSER_TESTS,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

OPEN = "() => document.querySelector('.room').classList.contains('panel-open')"
PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


class Finger:
    """One finger on the screen, through the DevTools protocol (real touch events)."""

    def __init__(self, page: Any, cdp: Any) -> None:
        self.page = page
        self.cdp = cdp

    @classmethod
    async def on(cls, page: Any) -> Finger:
        return cls(page, await page.context.new_cdp_session(page))

    async def down(self, x: float, y: float) -> None:
        await self.cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )

    async def move(self, x: float, y: float) -> None:
        await self.cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )

    async def up(self) -> None:
        await self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    async def tap(self, selector: str) -> None:
        """A tap (touch events) in the middle of the element, scrolled into view first."""
        await self.page.locator(selector).first.tap()

    async def long_press(self, x: float, y: float) -> None:
        """Press until the context menu shows; the finger stays down."""
        await self.down(x, y)
        await self.page.locator("[data-testid=context-menu]").wait_for()


async def box_of(page: Any, selector: str) -> dict[str, float]:
    loc = page.locator(selector).first
    await loc.wait_for()
    box = await loc.bounding_box()
    assert box is not None, f"{selector} is not visible"
    return box


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


async def phone_room(pages: Any, viewport: tuple[int, int] = (390, 844)) -> tuple[Any, Finger]:
    page = await pages.open("/?name=Pia", viewport=viewport, **PHONE)
    finger = await Finger.on(page)
    await page.locator("[data-testid=create-room]").wait_for()
    small = [
        b
        for b in await visible_buttons(page, ".home button, .home input, .home select")
        if b["h"] < 44
    ]
    assert not small, small
    await shot(page, f"phone-home-{viewport[0]}")
    await page.select_option("[data-testid=template]", "standard")
    await finger.tap("[data-testid=create-room]")
    await enter_room(page)
    await settled(page)
    return page, finger


async def visible_buttons(page: Any, selector: str) -> list[dict[str, Any]]:
    return await page.evaluate(
        """sel => [...document.querySelectorAll(sel)].filter(b => {
            const r = b.getBoundingClientRect(); const st = getComputedStyle(b);
            return r.width > 0 && r.height > 0 && st.visibility !== 'hidden'
              && r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight;
          }).map(b => { const r = b.getBoundingClientRect();
            return {id: b.dataset.testid || b.textContent, w: r.width, h: r.height}; })""",
        selector,
    )


async def check_layout(page: Any) -> None:
    """Readable table cards, labels clear of their count badges, no empty bands, big buttons."""
    deck = next(o for o in (await dump(page))["objects"] if o["id"] == "deck")
    card = await box_of(page, f"[data-id='{deck['cards'][-1]}']")
    assert card["width"] >= 48 and card["height"] >= 67, card
    label = await box_of(page, "[data-testid=stack][data-id=deck] .stack-label")
    badge = await box_of(page, "[data-testid=stack-count][data-stack=deck]")
    assert label["height"] >= 12 and not overlap(label, badge), (label, badge)
    stage = await box_of(page, "[data-testid=stage]")
    felt = await box_of(page, "[data-testid=table]")
    hand = await box_of(page, "[data-testid=my-hand]")
    # The table fills the stage above the hand: no band wider than the margin on any side.
    assert felt["y"] <= stage["y"] + 10 and felt["y"] + felt["height"] >= hand["y"] - 10
    assert felt["x"] <= stage["x"] + 10
    assert felt["x"] + felt["width"] >= stage["x"] + stage["width"] - 10
    small = [
        b
        for b in await visible_buttons(page, ".topbar button, .zoom-buttons button")
        if b["w"] < 44 or b["h"] < 44
    ]
    assert not small, small


async def test_phone_portrait_layout_hand_and_long_press(pages):
    page, finger = await phone_room(pages)
    await check_layout(page)
    await shot(page, "phone-portrait-table")

    # A long-press on the deck opens its menu; lifting the finger chooses nothing.
    # The browser turns the lift into a click on whatever is under the finger: count those that
    # land on a menu item.
    await page.evaluate("""() => { window.__itemClicks = 0; window.__touchends = 0;
        document.addEventListener('click', e => {
          if (e.target.closest?.('[role=menuitem]')) window.__itemClicks++; }, true);
        document.addEventListener('touchend', () => window.__touchends++, true); }""")
    deck = await box_of(page, "[data-testid=stack][data-id=deck]")
    at = (deck["x"] + deck["width"] / 2, deck["y"] + deck["height"] / 2)
    await finger.long_press(*at)
    title = await page.text_content("[data-testid=menu-title]")
    assert title == "Deck · 52 cards"
    labels = await page.locator("[data-testid=context-menu] [role=menuitem]").all_text_contents()
    assert len(labels) <= 13 and sum("Rotate 90°" in t for t in labels) == 1, labels
    assert not any("Rename" in t for t in labels), labels
    for b in await visible_buttons(page, "[data-testid=context-menu] button"):
        assert b["h"] >= 44, b
    await shot(page, "phone-portrait-menu")
    await finger.up()
    await page.wait_for_function("() => window.__touchends > 0")
    await settled(page)
    assert await page.locator("[data-testid=context-menu]").is_visible()
    assert len(next(o for o in (await dump(page))["server"] if o["id"] == "deck")["cards"]) == 52

    # A tap of its own on an item does it: draw 16 cards into the hand.
    await finger.tap("[data-testid=menu-draw-n]")
    await page.fill("[data-testid=prompt-input]", "16")
    await finger.tap("[data-testid=prompt-ok]")
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards.length === 16")
    await page.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=15")
    await settled(page)
    await shot(page, "phone-portrait-hand")

    # The hand is fanned with every card's corner showing, and it scrolls to the rest.
    # (Where each card is laid, before its little fan turn.)
    xs = sorted(
        await page.evaluate(
            """() => [...document.querySelectorAll('[data-where=hand]')].map(e =>
            Number(/translate\\(([-\\d.e]+)px/.exec(e.style.transform)[1]))"""
        )
    )
    assert len(xs) == 16
    assert min(b - a for a, b in zip(xs, xs[1:], strict=False)) >= 20
    right = page.locator("[data-testid=hand-scroll-right]")
    assert await right.is_visible()
    rb = await right.bounding_box()
    assert rb["width"] >= 44 and rb["height"] >= 44
    # The last card runs past the screen's edge until the hand is scrolled.
    right_edge = """() => Math.max(...[...document.querySelectorAll('[data-where=hand]')]
        .map(e => e.getBoundingClientRect().right))"""
    assert await page.evaluate(right_edge) > 390
    await finger.tap("[data-testid=hand-scroll-right]")
    await page.wait_for_function(f"() => ({right_edge})() <= 390")
    await page.locator("[data-testid=hand-scroll-left]").wait_for()
    await settled(page)
    await shot(page, "phone-portrait-hand-scrolled")

    # A long-press on a card of the hand near the screen's corner puts the menu under the finger:
    # the lift must not play the card.
    cards = next(o for o in (await dump(page))["server"] if o["id"] == "hand0")["cards"]
    last = await box_of(page, f"[data-id='{cards[-1]}']")
    at = (min(last["x"] + last["width"] / 2, 370), last["y"] + last["height"] / 2)
    await finger.long_press(*at)
    under = await page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[role=menuitem]')"
        "?.dataset.testid ?? null",
        list(at),
    )
    assert under is not None, "the menu should open under the finger for this check"
    clicks = await page.evaluate("() => window.__itemClicks")
    await finger.up()
    # The lift did reach the item as a click (this is the case that used to play the card) ...
    await page.wait_for_function("n => window.__itemClicks > n", arg=clicks)
    await settled(page)
    # ... and the menu ignored it: still open, the card still in the hand.
    assert await page.locator("[data-testid=context-menu]").is_visible()
    assert len(next(o for o in (await dump(page))["server"] if o["id"] == "hand0")["cards"]) == 16

    # The side panel is a drawer: it slides over the table and closes again.
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(OPEN)
    await settled(page)
    panel = await box_of(page, ".panel")
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= 391
    await shot(page, "phone-portrait-panel")
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(f"() => !({OPEN})()")
    # ... and a touch on the table beside it closes it too.
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(OPEN)
    await settled(page)
    await page.touchscreen.tap(20, 400)
    await page.wait_for_function(f"() => !({OPEN})()")


async def test_phone_landscape_layout(pages):
    page, finger = await phone_room(pages, viewport=(844, 390))
    await check_layout(page)
    await shot(page, "phone-landscape-table")


# --- a game on an upright phone (issue 13): the whole table in view, cards readable -------------

IN_VIEW = """() => {
  const st = document.querySelector('[data-testid=stage]').getBoundingClientRect();
  const hand = document.querySelector('[data-testid=my-hand]').getBoundingClientRect();
  const bottom = Math.min(hand.top, innerHeight);
  const sel = '[data-testid=seat-plate], .fan-card, [data-testid=counter], '
    + '[data-testid=label], [data-testid=stack], [data-testid=card][data-where=stack]';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const inside = r.left >= Math.max(0, st.left) - 0.5
      && r.right <= Math.min(innerWidth, st.right) + 0.5
      && r.top >= st.top - 0.5 && r.bottom <= bottom + 0.5;
    out.push({what: el.dataset.id || el.dataset.testid || el.className, inside,
              box: [r.left, r.top, r.right, r.bottom].map(Math.round)});
  }
  return out;
}"""


async def phone_game(pages: Any, game: str, bots: tuple[int, ...]) -> tuple[Any, Finger]:
    page = await pages.open("/?name=Pia", viewport=(390, 844), **PHONE)
    finger = await Finger.on(page)
    await page.locator(f"[data-testid=game-select] option[value={game}]").wait_for(state="attached")
    await page.select_option("[data-testid=game-select]", game)
    await finger.tap("[data-testid=create-room]")
    await enter_room(page)
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(OPEN)
    for seat in bots:
        await finger.tap(f"[data-testid=bot-{seat}]")
        await wait_js(page, "s.players.some(p => p.bot && p.seat === arg)", seat)
    await finger.tap("[data-testid=panel-toggle]")
    await page.wait_for_function(f"() => !({OPEN})()")
    await wait_js(page, "s.game && !s.game.waiting", None)
    await page.locator("[data-testid=other-hand] .fan-card").nth(len(bots) * 10 - 1).wait_for()
    await settled(page)
    return page, finger


async def assert_whole_table(page: Any, seats: int) -> None:
    """Every other hand (its cards), every seat plate (names and numbers), every marker and every
    zone in view above the hand strip, and table cards at least 40 px wide."""
    assert await page.locator("[data-testid=other-hand]").count() == seats - 1
    plates = await page.locator("[data-testid=seat-plate]").count()
    assert plates == seats
    boxes = await page.evaluate(IN_VIEW)
    out = [b for b in boxes if not b["inside"]]
    assert not out, out
    kinds = {b["what"] for b in boxes}
    assert "seat-plate" in kinds and "fan-card" in kinds, kinds
    card_w = await page.evaluate("() => window.__cardtable.room.r.cardSize('table').w")
    assert card_w >= 40, card_w


async def test_spades_on_an_upright_phone_shows_the_whole_table(pages):
    page, finger = await phone_game(pages, "spades", (1, 2, 3))
    await assert_whole_table(page, 4)
    # Four places, four trick zones: none on top of another.
    tricks = [await box_of(page, f"[data-id=trick{p}]") for p in range(4)]
    for i, a in enumerate(tricks):
        for b in tricks[i + 1 :]:
            assert not overlap(a, b), (a, b)
    await shot(page, "phone-spades-bidding")
    # Bid (the pad takes taps), then every player's bid is on their seat plate, all in view.
    for _ in range(8):
        await wait_js(
            page,
            "s.pending.length === 0 && (s.game.view.bids.every(b => b !== null)"
            " || s.game.controls.some(c => c.action.type === 'bid'))",
        )
        g = (await dump(page))["game"]
        if all(b is not None for b in g["view"]["bids"]):
            break
        await finger.tap("[data-testid=bid-pad] [data-testid=bid][data-bid='3']")
        await wait_js(page, "s.game.view.bids[0] !== null")
    await wait_js(page, "s.game.view.bids.every(b => b !== null)")
    await settled(page)
    await assert_whole_table(page, 4)
    bids = await page.locator("[data-testid=seat-plate] [data-stat=bid]").all_text_contents()
    assert len(bids) == 4 and all(b != "Bid –" for b in bids), bids
    # No loose counters or labels: the numbers are on the plates.
    loose = await page.locator("[data-testid=label], [data-testid=counter]").count()
    assert loose == 0, loose
    # Play a card by dragging it up out of the hand onto the middle, when it is our turn.
    await wait_js(
        page,
        "s.pending.length === 0 && s.game.controls.some(c => c.action.type === 'play')",
        timeout=20_000,
    )
    face = next(
        c["cards"][0]
        for c in (await dump(page))["game"]["controls"]
        if c["action"]["type"] == "play"
    )
    card = await box_of(page, f"[data-testid=card][data-where=hand][data-face='{face}']")
    trick = await box_of(page, "[data-id=trick0]")
    # (Its left edge: the next card of the hand covers the rest.)
    x0, y0 = card["x"] + 10, card["y"] + card["height"] / 2
    x1, y1 = trick["x"] + trick["width"] / 2, trick["y"] + trick["height"] / 2
    await finger.down(x0, y0)
    for i in range(1, 11):
        await finger.move(x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10)
    await finger.up()
    await wait_js(page, "s.pending.length === 0 && !s.game.view.hand.includes(arg)", face)
    await settled(page)
    tcard = await page.evaluate("""() => Math.max(0, ...[...document.querySelectorAll(
        '[data-testid=card][data-where=stack]')].map(e => e.getBoundingClientRect().width))""")
    assert tcard >= 40, tcard
    await assert_whole_table(page, 4)
    await shot(page, "phone-spades-playing")


async def test_gin_on_an_upright_phone_shows_the_whole_table(pages):
    page, _ = await phone_game(pages, "gin_rummy", (1,))
    await assert_whole_table(page, 2)
    stock = await page.evaluate("""() => [...document.querySelectorAll(
        '[data-testid=card][data-parent=stock]')].map(e => e.getBoundingClientRect().width)""")
    assert stock and min(stock) >= 40, stock
    await shot(page, "phone-gin")


def gin_knocked_by(knocker: int) -> Any:
    """A Gin Rummy position from real play (the computer playing both sides): `knocker` has
    knocked with three melds or more and the other player is laying off."""
    for seed in range(300):
        rng = random.Random(seed)
        state = GIN.new_game(2, {}, seed)
        while state.phase not in ("layoff", "hand_over", "game_over"):
            player = GIN.to_act(state)[0]
            state = GIN.apply(state, player, choose_action(GIN, state, player, rng))
        if (
            state.phase == "layoff"
            and state.knock is not None
            and state.knock.knocker == knocker
            and len(state.knock.melds) >= 3
        ):
            return state
    raise AssertionError("no such knock")


async def test_gin_knock_on_an_upright_phone_shows_the_melds(pages, server):
    page, _ = await phone_game(pages, "gin_rummy", (1,))
    code = (await dump(page))["code"]
    # The computer has knocked (a test shortcut through the room service, checked by the
    # engine): its melds and deadwood lie in rows on its side of the table.
    await server.app[ROOMS_KEY].set_game_state(code, GIN.dump(gin_knocked_by(1)))
    await wait_js(page, "s.game.view.phase === 'layoff'")
    await page.locator("[data-id=meld2]").wait_for()
    await settled(page)
    await shot(page, "phone-gin-knock")
    boxes = await page.evaluate(IN_VIEW)
    out = [b for b in boxes if not b["inside"]]
    assert not out, out
    melds = [await box_of(page, f"[data-id=meld{i}]") for i in range(3)]
    # In order along the row, each further on, and in the top half (the computer's).
    assert melds[0]["x"] + 20 < melds[1]["x"] and melds[1]["x"] + 20 < melds[2]["x"], melds
    felt = await box_of(page, "[data-testid=table]")
    assert all(m["y"] + m["height"] < felt["y"] + felt["height"] / 2 for m in melds), melds


# --- touch targets and swipes (issue 13) ---------------------------------------------------------

HIT_AREA = """([sel, side]) => {
  const b = document.querySelector(sel);
  const r = b.getBoundingClientRect();
  // The 44 x 44 px a finger needs: from the button's outer edge inwards ("−" grows to the left,
  // "+" to the right), centred on it up and down.
  const left = side < 0 ? r.right - 44 : r.left;
  const top = r.top + r.height / 2 - 22;
  const missed = [];
  for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) {
    const x = left + 1 + (42 * i) / 4, y = top + 1 + (42 * j) / 4;
    if (document.elementFromPoint(x, y)?.closest('button') !== b)
      missed.push([Math.round(x), Math.round(y)]);
  }
  return {w: r.width, h: r.height, left, top, missed};
}"""


async def test_phone_widget_buttons_take_a_finger(pages):
    page, finger = await phone_room(pages)
    # A counter and chips in the middle of the view.
    await page.evaluate("""() => { const room = window.__cardtable.room; const g = room.r.geom;
        const cx = (g.w / 2 - g.ox) / g.s, cy = (g.hand.y / 2 - g.oy) / g.s;
        room.cmd.create({op: 'create', kind: 'counter', x: Math.round(cx - 75),
                         y: Math.round(cy - 160), value: 5, label: 'Score'});
        room.cmd.create({op: 'create', kind: 'chips', x: Math.round(cx - 48),
                         y: Math.round(cy + 60), count: 4, color: '#d33'}); }""")
    await wait_js(
        page, "s.server.some(o => o.t === 'counter') && s.server.some(o => o.t === 'chips')"
    )
    await settled(page)
    await shot(page, "phone-widgets")
    for testid, side in (
        ("counter-minus", -1),
        ("counter-plus", 1),
        ("chips-minus", -1),
        ("chips-plus", 1),
    ):
        got = await page.evaluate(HIT_AREA, [f"[data-testid={testid}]", side])
        # The button looks small (it shrinks with the table) but takes a finger's 44 x 44 px.
        assert got["w"] < 44 and got["h"] < 44, (testid, got)
        assert not got["missed"], (testid, got)
    # A tap in that area, outside the little button itself, presses it.
    got = await page.evaluate(HIT_AREA, ["[data-testid=counter-minus]", -1])
    await page.touchscreen.tap(got["left"] + 4, got["top"] + 22)
    await wait_js(page, "s.server.find(o => o.t === 'counter').value === 4")
    got = await page.evaluate(HIT_AREA, ["[data-testid=chips-plus]", 1])
    await page.touchscreen.tap(got["left"] + 40, got["top"] + 40)
    await wait_js(page, "s.server.find(o => o.t === 'chips').count === 5")


async def test_phone_swipe_scrolls_the_hand_and_an_upward_move_plays_a_card(pages):
    page, finger = await phone_room(pages)
    # 30 cards: the hand runs some 300 px past the screen.
    await page.evaluate("() => window.__cardtable.room.cmd.take('deck', 30)")
    await wait_js(page, "s.server.find(o => o.id === 'hand0').cards.length === 30")
    await page.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=29")
    await settled(page)
    scroll = "() => window.__cardtable.room.r.geom.hand.scroll"
    assert await page.evaluate(scroll) == 0
    cards = next(o for o in (await dump(page))["server"] if o["id"] == "hand0")["cards"]
    first = await box_of(page, f"[data-id='{cards[0]}']")
    x0 = 250.0
    y0 = first["y"] + first["height"] / 2
    # A mostly sideways swipe that starts on a card of the hand scrolls the hand ...
    await finger.down(x0, y0)
    for i in range(1, 9):
        await finger.move(x0 - 20 * i, y0 - 2 * i)
    await finger.up()
    await page.wait_for_function(f"() => ({scroll})() >= 100")
    await settled(page)
    after = await box_of(page, f"[data-id='{cards[0]}']")
    assert after["x"] < first["x"] - 100, (first, after)
    await shot(page, "phone-hand-swiped")
    # ... and moves no card: all 30 still in the hand, in the same order; the deck untouched.
    state = await dump(page)
    assert next(o for o in state["server"] if o["id"] == "hand0")["cards"] == cards
    assert len(next(o for o in state["server"] if o["id"] == "deck")["cards"]) == 22
    assert not state["pending"]
    # A mostly upward move from a card of the hand drags it out onto the table.
    hand = await box_of(page, "[data-testid=my-hand]")
    x, y = 200.0, hand["y"] + hand["height"] / 2
    under = await page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-where=hand]')?.dataset.id",
        [x, y],
    )
    assert under in cards
    await finger.down(x, y)
    for i in range(1, 11):
        await finger.move(x + 2 * i, y - 30 * i)
    await finger.up()
    # (A card leaving a hand gets a new id: it is the one loose card on the table.)
    assert not [o for o in state["server"] if o["t"] == "card" and not o.get("parent")]
    await wait_js(
        page,
        "s.pending.length === 0 && s.server.find(o => o.id === 'hand0')"
        ".cards.length === 29 && !s.server.find(o => o.id === 'hand0')"
        ".cards.includes(arg) && s.server.filter(o => o.t === 'card' && "
        "!o.parent).length === 1",
        under,
    )
    assert await page.evaluate(scroll) >= 100, "the drag did not scroll the hand"
