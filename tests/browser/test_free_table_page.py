"""A free table that feels finished, the page's half (issue 21 item 4): the letter keys act on the
object under the pointer (as the help says), not on whatever was focused last; a player who draws
hears which card they drew ("You drew the 7 of hearts"), the others hear only that a card was
taken; a focused card of your hand moves left or right with Alt/Ctrl+arrow; the other players
have name plates by their seats; a shuffle and a deal animate (not with reduced motion).
"""

from __future__ import annotations

import re
from typing import Any

from plugins.cards import card_name
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)
from tests.browser.test_seats import DESKTOP, rule_room, until_my_turn

pytestmark = BROWSER_TESTS

SEND = "op => window.__cardtable.room.send(op)"


async def obj(page: Any, oid: str) -> dict:
    return next(o for o in (await dump(page))["server"] if o["id"] == oid)


async def second_pile(page: Any) -> str:
    """Two cards from the deck made into a pile of their own on the table; its id."""
    deck = await obj(page, "deck")
    first, second = deck["cards"][-1], deck["cards"][-2]
    await page.evaluate(SEND, {"op": "move", "id": first, "x": 300, "y": 420})
    await wait_js(
        page, "s.pending.length === 0 && s.server.some(o => o.id === arg && !o.parent)", first
    )
    await page.evaluate(SEND, {"op": "move", "id": second, "to": first})
    await wait_js(
        page,
        "s.pending.length === 0 && s.server.some(o => o.t === 'stack' && o.id !== 'deck'"
        " && o.cards.length === 2)",
    )
    return str(
        next(
            o["id"]
            for o in (await dump(page))["server"]
            if o["t"] == "stack" and o["id"] != "deck" and len(o["cards"]) == 2
        )
    )


async def test_letter_keys_act_on_the_object_under_the_pointer(pages):
    a = await pages.open("/?name=Ana")
    await a.click("[data-testid=create-room]")
    await enter_room(a)
    pile = await second_pile(a)
    deck_before = await obj(a, "deck")
    # The deck has focus; the pointer rests on the other pile.
    await a.focus("[data-id=deck]")
    await a.mouse.move(*await center(a, f"[data-id='{pile}']"))
    await a.wait_for_function(
        "id => window.__cardtable.state.hover === id || "
        "window.__cardtable.state.view.get(window.__cardtable.state.hover)"
        "?.parent === id",
        arg=pile,
    )
    # S shuffles the pile under the pointer: its cards get new ids; the deck's stay.
    before = (await obj(a, pile))["cards"]
    await a.keyboard.press("s")
    await wait_js(
        a,
        "s.pending.length === 0 && (() => { const p = s.server.find(o => o.id === arg.id);"
        " return p && !p.cards.some(c => arg.before.includes(c)); })()",
        {"id": pile, "before": before},
    )
    # F flips its top card face up.
    await a.keyboard.press("f")
    await wait_js(
        a,
        "s.pending.length === 0 && (() => { const p = s.server.find(o => o.id === arg);"
        " const top = s.server.find(o => o.id === p.cards[p.cards.length - 1]);"
        " return top && top.up; })()",
        pile,
    )
    deck = await obj(a, "deck")
    assert deck["cards"] == deck_before["cards"], "the focused deck was not shuffled"
    top = await obj(a, deck["cards"][-1])
    assert not top["up"], "nor flipped"
    # D draws from the pile under the pointer.
    await a.keyboard.press("d")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 1")
    assert len((await obj(a, pile))["cards"]) == 1
    assert len((await obj(a, "deck"))["cards"]) == len(deck_before["cards"])

    # Moving focus by key forgets the pointer: Tab to the deck, F flips the deck's top card.
    await a.keyboard.press("Tab")
    for _ in range(40):
        if await a.evaluate("() => document.activeElement.dataset.id === 'deck'"):
            break
        await a.keyboard.press("Tab")
    await a.keyboard.press("f")
    await wait_js(
        a,
        "s.pending.length === 0 && (() => { const d = s.server.find(o => o.id === 'deck');"
        " return s.server.find(o => o.id === d.cards[d.cards.length - 1]).up; })()",
    )


async def test_the_drawer_hears_the_card_they_drew_and_the_others_do_not(pages):
    a, b, _code = await create_and_join(pages)
    await a.mouse.move(*await center(a, "[data-id=deck]"))
    await a.keyboard.press("d")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 1")
    hand = await obj(a, "hand0")
    face = (await obj(a, hand["cards"][0]))["face"]
    said = f"You drew the {card_name(face)}"
    await a.locator("[data-testid=live-keys] p", has_text=said).wait_for(state="attached")
    heard_a = await a.locator("[data-testid=live-keys]").text_content()
    assert "face-down card" not in heard_a
    # Ben hears that Ana took a card, never which.
    line = (await dump(b))["log"][-1]
    assert line.startswith("Ana ")
    await b.locator("[data-testid=live-moves] p", has_text=line).wait_for(state="attached")
    heard_b = await b.locator("[data-testid=live-moves]").text_content()
    heard_b += await b.locator("[data-testid=live-keys]").text_content()
    assert card_name(face) not in heard_b and "You drew" not in heard_b

    # Several at once, by keyboard: Enter on the deck picks its top card up, Enter drops it in
    # the hand; the drop is named by its face once it is there.
    await a.focus("[data-id=deck]")
    await a.keyboard.press("Enter")
    await a.locator("[data-testid=kbd-hint]").wait_for()
    await a.keyboard.press("Enter")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 2")
    hand = await obj(a, "hand0")
    face2 = (await obj(a, hand["cards"][-1]))["face"]
    await a.locator(
        "[data-testid=live-keys] p", has_text=f"You drew the {card_name(face2)}"
    ).wait_for(state="attached")


async def test_a_rule_games_draw_by_keyboard_names_the_card_drawn(pages):
    """Gin against a computer: Enter on the stock draws its top card (the card's one move); the
    drawer hears "You drew the ...", never "face-down card: moved"."""
    page = await rule_room(pages, "gin_rummy", 2, DESKTOP)

    def stock_draw(g: dict) -> bool:
        return any(a["type"] == "draw" and a.get("source") == "stock" for a in g["legal"])

    await until_my_turn(page, stock_draw)
    seat = (await dump(page))["me"]["seat"]
    before = (await obj(page, f"hand{seat}"))["cards"]
    await page.focus("[data-id=stock]")
    await page.keyboard.press("Enter")
    await wait_js(
        page,
        "s.pending.length === 0 && s.server.find(o => o.id === arg.h).cards.length === arg.n",
        {"h": f"hand{seat}", "n": len(before) + 1},
    )
    new = next(c for c in (await obj(page, f"hand{seat}"))["cards"] if c not in before)
    face = (await obj(page, new))["face"]
    said = page.locator("[data-testid=live-keys] p", has_text=f"You drew the {card_name(face)}")
    await said.wait_for(state="attached")
    assert "face-down card" not in await page.locator("[data-testid=live-keys]").text_content()


async def test_a_hand_card_moves_left_and_right_by_keyboard(pages):
    a = await pages.open("/?name=Ana")
    await a.click("[data-testid=create-room]")
    await enter_room(a)
    await a.evaluate("() => window.__cardtable.room.cmd.take('deck', 4)")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 4")
    order = (await obj(a, "hand0"))["cards"]
    await a.focus(f"[data-id='{order[0]}']")
    await a.keyboard.press("Control+ArrowRight")
    await wait_js(
        a,
        "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').cards[1] === arg",
        order[0],
    )
    assert (await obj(a, "hand0"))["cards"] == [order[1], order[0], order[2], order[3]]
    assert await a.evaluate("id => document.activeElement.dataset.id === id", order[0])
    await a.locator("[data-testid=live-keys] p", has_text="place 2 of 4").wait_for(state="attached")
    await a.keyboard.press("Alt+ArrowRight")
    await wait_js(
        a,
        "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').cards[2] === arg",
        order[0],
    )
    await a.keyboard.press("Control+ArrowLeft")
    await a.keyboard.press("Control+ArrowLeft")
    await a.keyboard.press("Control+ArrowLeft")
    await wait_js(
        a,
        "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').cards[0] === arg",
        order[0],
    )
    await a.locator("[data-testid=live-keys] p", has_text="already first").wait_for(
        state="attached"
    )
    assert (await obj(a, "hand0"))["cards"] == order
    assert "/r/" in a.url, "Alt+Left did not go back a page"
    await settled(a)


PLATES = """() => [...document.querySelectorAll('[data-testid=seat-plate]')].map(el => {
  const r = el.getBoundingClientRect();
  return {seat: el.dataset.seat, name: el.querySelector('[data-testid=plate-name]').textContent,
    cards: el.querySelector('[data-testid=plate-cards]').textContent,
    status: el.querySelector('[data-testid=plate-status]').textContent,
    label: el.getAttribute('aria-label'), box: [r.left, r.top, r.right, r.bottom]}; })"""


def overlaps(a: list[float], b: dict) -> bool:
    return min(a[2], b["x"] + b["width"]) > max(a[0], b["x"]) and min(
        a[3], b["y"] + b["height"]
    ) > max(a[1], b["y"])


async def plates(page: Any) -> list[dict]:
    return list(await page.evaluate(PLATES))


async def test_the_other_players_have_name_plates_by_their_seats(pages):
    for where, size, extra in (
        ("desktop", (1280, 800), {}),
        ("phone", (390, 844), {"is_mobile": True, "has_touch": True}),
    ):
        a = await pages.open("/?name=Ana", viewport=size, **extra)
        await a.click("[data-testid=create-room]")
        code = await enter_room(a)
        # Alone at the table: no plate (your own place is your hand).
        assert await plates(a) == []
        b = await pages.open(f"/r/{code}?name=Ben", viewport=size, **extra)
        await enter_room(b)
        cy = await pages.open(f"/r/{code}?name=Cy", viewport=size, **extra)
        await enter_room(cy)
        await wait_js(a, "s.players.length === 3")
        await a.evaluate(SEND, {"op": "deal", "id": "deck", "n": 3})
        await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand2').n === 3")
        await a.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=plate-cards]')]"
            ".filter(el => el.textContent === '3 cards').length === 2"
        )
        await settled(a)
        got = {p["name"]: p for p in await plates(a)}
        assert set(got) == {"Ben", "Cy"}, got
        for p in got.values():
            assert p["cards"] == "3 cards" and p["status"] == "online", p
            assert p["label"].startswith(p["name"]) and "3 cards" in p["label"], p
        # Each plate lies on the table, over none of the piles, away from the other.
        stage = await a.locator(".stage").bounding_box()
        deck = await a.locator("[data-id=deck]").bounding_box()
        for p in got.values():
            x0, y0, x1, y1 = p["box"]
            assert x0 >= stage["x"] - 1 and x1 <= stage["x"] + stage["width"] + 1, (where, p)
            assert not overlaps(p["box"], deck), (where, p, deck)
        ben, cyp = got["Ben"]["box"], got["Cy"]["box"]
        assert not overlaps(
            ben, {"x": cyp[0], "y": cyp[1], "width": cyp[2] - cyp[0], "height": cyp[3] - cyp[1]}
        )
        # Ben sees Ana's and Cy's plates, not his own.
        await b.wait_for_function(
            "() => document.querySelectorAll('[data-testid=seat-plate]').length === 2"
        )
        assert {p["name"] for p in await plates(b)} == {"Ana", "Cy"}
        await shot(a, f"free-plates-{where}")
        # Cy's page closes: his plate says he is away (until he is gone for good).
        await cy.close()
        await a.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=seat-plate]')]"
            ".some(el => el.classList.contains('away') && "
            "el.querySelector('[data-testid=plate-status]').textContent === 'away')"
        )
        await settled(a)
        await shot(a, f"free-plates-away-{where}")


RECORD = """(() => {
  window.__motions = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, opts) {
    const a = animate.call(this, frames, opts);
    const stage = document.querySelector('.stage');
    const st = stage ? stage.getBoundingClientRect() : {left: 0, top: 0};
    const plates = {};
    for (const p of document.querySelectorAll('[data-testid=seat-plate]')) {
      const r = p.getBoundingClientRect();
      plates[p.dataset.seat] = [r.left + r.width / 2 - st.left, r.top + r.height / 2 - st.top];
    }
    window.__motions.push({id: opts && opts.id, el: this.dataset.id || this.dataset.testid || '',
      parent: this.dataset.parent || null, first: String(frames[0].transform || ''),
      last: String(frames[frames.length - 1].transform || ''),
      w: parseFloat(this.style.width), h: parseFloat(this.style.height), plates});
    return a;
  };
})();"""

TRANSLATE = re.compile(r"translate\(([-\d.e]+)px, ([-\d.e]+)px\)")


def centre(m: dict, which: str) -> tuple[float, float]:
    """The centre of the element at an animation's first (or last) keyframe: the translates add
    up (a riffle's offset comes before the card's own place); it turns about its centre."""
    got = TRANSLATE.findall(m[which])
    assert got, m
    return sum(float(x) for x, _ in got) + m["w"] / 2, sum(float(y) for _, y in got) + m["h"] / 2


async def three_at_a_table(pages: Any, **context: Any) -> tuple[Any, Any, Any]:
    a = await pages.open("/?name=Ana")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    b = await pages.open(f"/r/{code}?name=Ben")
    await enter_room(b)
    c = await pages.open(None, **context)
    await c.add_init_script(RECORD)
    await c.goto(f"{pages.server.url}/r/{code}?name=Cy")
    await enter_room(c)
    await wait_js(a, "s.players.length === 3")
    await settled(c)
    return a, b, c


async def motions(page: Any) -> list[dict]:
    return list(await page.evaluate("window.__motions"))


async def test_a_shuffle_riffles_and_a_deal_flies_to_each_seat(pages):
    a, _b, c = await three_at_a_table(pages)
    await c.locator("[data-testid=seat-plate]").nth(1).wait_for()
    # Ana shuffles the deck: Cy's page riffles its top cards back into place.
    await a.evaluate(SEND, {"op": "shuffle", "id": "deck"})
    await c.wait_for_function("() => window.__motions.some(m => m.id === 'shuffle')")
    deck = await obj(c, "deck")
    riffled = [m for m in await motions(c) if m["id"] == "shuffle"]
    assert len(riffled) >= 10, riffled
    assert {m["parent"] for m in riffled} == {"deck"}
    assert {m["el"] for m in riffled} <= set(deck["cards"]), "the new cards, after the shuffle"
    # The two halves start either side of the pile and end in it.
    sides = {centre(m, "first")[0] < centre(m, "last")[0] for m in riffled}
    assert sides == {True, False}, riffled
    await c.evaluate(
        "() => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 200; })"
    )
    await shot(c, "free-shuffle-riffle")
    await c.evaluate("() => document.getAnimations().forEach((a) => a.play())")
    await settled(c)

    # Ana deals 3 to each: backs fly from the deck to Ana's and Ben's plates on Cy's page.
    await a.evaluate(SEND, {"op": "deal", "id": "deck", "n": 3})
    await wait_js(c, "s.server.find(o => o.id === 'hand2').n === 3")
    await c.wait_for_function("() => window.__motions.filter(m => m.id === 'deal').length >= 6")
    dealt = [m for m in await motions(c) if m["id"] == "deal"]
    assert len(dealt) == 6, dealt
    box = await c.locator("[data-id=deck]").bounding_box()
    stage = await c.locator(".stage").bounding_box()
    dx, dy = box["x"] - stage["x"] + box["width"] / 2, box["y"] - stage["y"] + box["height"] / 2
    plates = dealt[0]["plates"]
    assert set(plates) == {"0", "1"}, plates
    ends = []
    for m in dealt:
        fx, fy = centre(m, "first")
        assert abs(fx - dx) < 3 and abs(fy - dy) < 3, (m, "from the deck")
        lx, ly = centre(m, "last")
        seat = min(plates, key=lambda s: (plates[s][0] - lx) ** 2 + (plates[s][1] - ly) ** 2)
        assert abs(plates[seat][0] - lx) < 3 and abs(plates[seat][1] - ly) < 3, (m, plates)
        ends.append(seat)
    assert ends == ["0", "1"] * 3, "round the table, one card at a time"
    await c.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=card-dealt]')]"
        ".some(el => el.getAnimations().length)"
    )
    await c.evaluate(
        "() => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 300; })"
    )
    await shot(c, "free-deal-flight")
    await c.evaluate("() => document.getAnimations().forEach((a) => a.play())")
    await settled(c)
    assert await c.locator("[data-testid=card-dealt]").count() == 0, "gone once landed"


async def test_free_play_with_reduced_motion_moves_nothing(pages):
    a, _b, c = await three_at_a_table(pages, reduced_motion="reduce")
    await a.evaluate(SEND, {"op": "shuffle", "id": "deck"})
    await a.evaluate(SEND, {"op": "deal", "id": "deck", "n": 3})
    await wait_js(c, "s.server.find(o => o.id === 'hand2').n === 3")
    await settled(c)
    assert [m for m in await motions(c) if m["id"] in ("shuffle", "deal")] == []
    assert await c.locator("[data-testid=card-dealt]").count() == 0
