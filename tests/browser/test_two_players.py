"""Two people in one room, each in their own browser context: create, join, drag, deal, flip."""

from __future__ import annotations

import json

from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    create_and_join,
    drag,
    dump,
    settled,
    shot,
    table_point,
    wait_js,
)

pytestmark = BROWSER_TESTS


async def test_create_join_drag_and_flip(pages):
    a, b, code = await create_and_join(pages)
    assert (await dump(a))["me"]["seat"] == 0 and (await dump(b))["me"]["seat"] == 1
    await b.wait_for_selector("[data-testid=seat-0] [data-testid=player-name]:text('Ana')")

    # Ana drags the top card of the deck onto the empty table.
    top = await dump(a)
    deck = next(o for o in top["objects"] if o["id"] == "deck")
    card_id = deck["cards"][-1]
    start = await center(a, f"[data-id='{card_id}']")
    end = await table_point(a, 300, 250)
    await drag(a, start, end)
    # Optimistic: Ana's view moved at once; then both converge on the server's answer.
    await wait_js(a, "s.objects.some(o => o.id === arg && o.parent === null)", card_id)
    for p in (a, b):  # the server's answer reaches each page in its own time
        await wait_js(
            p,
            "s.server.some(o => o.id === arg && o.parent === null && o.x > 200 && o.x < 300)",
            card_id,
        )
    b_obj = next(o for o in (await dump(b))["server"] if o["id"] == card_id)
    a_obj = next(o for o in (await dump(a))["server"] if o["id"] == card_id)
    assert (a_obj["x"], a_obj["y"]) == (b_obj["x"], b_obj["y"])
    assert "face" not in b_obj  # face down: nobody sees it
    # Ben's page shows the card where Ana dropped it.
    bx, by = await table_point(b, a_obj["x"], a_obj["y"])
    await b.wait_for_function(  # the glide into place (slower on a loaded machine)
        """([id, x, y]) => { const r = document.querySelector(`[data-id='${id}']`)
            .getBoundingClientRect(); return Math.abs(r.x - x) < 3 && Math.abs(r.y - y) < 3; }""",
        arg=[card_id, bx, by],
    )

    # Double-click flips it for everyone.
    await a.dblclick(f"[data-id='{card_id}']")
    await b.wait_for_selector(f"[data-id='{card_id}'][data-face]")
    face = await b.get_attribute(f"[data-id='{card_id}']", "data-face")
    # Ana's page shows the same face once its next frame is drawn (the delta reaches both pages;
    # which one draws first depends on the machine).
    await a.wait_for_selector(f"[data-id='{card_id}'][data-face='{face}']")
    await wait_js(b, "s.log.some(l => l === 'Ana flipped a card')")

    # F with the pointer over it flips it back.
    await a.hover(f"[data-id='{card_id}']")
    await a.keyboard.press("f")
    await b.wait_for_selector(f"[data-id='{card_id}']:not([data-face])")

    # Rotate with R.
    await a.keyboard.press("r")
    await wait_js(b, "s.server.some(o => o.id === arg && o.rot === 90)", card_id)

    # Drop a second card on the first: they form a pile, with its count shown.
    deck = next(o for o in (await dump(a))["objects"] if o["id"] == "deck")
    second = deck["cards"][-1]
    await drag(
        a, await center(a, f"[data-id='{second}']"), await center(a, f"[data-id='{card_id}']")
    )
    await wait_js(
        b,
        """s.server.some(o => o.t === 'stack' && o.cards.length === 2
        && o.cards.includes(arg))""",
        card_id,
    )
    pile = next(o for o in (await dump(b))["server"] if o["t"] == "stack" and card_id in o["cards"])
    await b.wait_for_selector(f"[data-testid=stack-count][data-stack='{pile['id']}']:text('2')")
    await b.wait_for_selector("[data-testid=stack-count][data-stack=deck]:text('50')")

    # Drag the whole pile by its count badge.
    badge = await center(a, f"[data-testid=stack-count][data-stack='{pile['id']}']")
    dest = await table_point(a, 1200, 700)
    await drag(a, badge, dest)
    await wait_js(b, "s.server.some(o => o.id === arg && o.x > 1000 && o.y > 550)", pile["id"])
    await settled(a)
    await settled(b)
    await shot(a, "two-players-ana")
    await shot(b, "two-players-ben")


async def test_deal_hands_show_only_own_faces(pages):
    a, b, code = await create_and_join(pages)
    # Shuffle and deal 5 each through the pile's context menu.
    await a.click("[data-testid=stack-count][data-stack=deck]", button="right")
    await a.click("[data-testid=menu-shuffle]")
    await wait_js(b, "s.log.some(l => l.startsWith('Ana shuffled Deck (fair shuffle '))")
    await a.click("[data-testid=stack-count][data-stack=deck]", button="right")
    await a.click("[data-testid=menu-deal]")
    await a.fill("[data-testid=prompt-input]", "5")
    await a.click("[data-testid=prompt-ok]")
    for p in (a, b):
        await wait_js(p, "s.log.some(l => l === 'Ana dealt 5 cards from Deck to each player')")
        await p.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=4")
    await b.wait_for_selector("[data-testid=hand-count-0]:text('5')")
    await a.wait_for_selector("[data-testid=hand-count-1]:text('5')")

    sa, sb = await dump(a), await dump(b)
    hand_a = next(o for o in sa["server"] if o["id"] == "hand0")["cards"]
    hand_b = next(o for o in sb["server"] if o["id"] == "hand1")["cards"]

    def faces(s: dict) -> dict:
        return {
            o["id"]: o["face"]
            for o in s["objects"] + s["server"]
            if o["t"] == "card" and "face" in o
        }

    faces_a, faces_b = faces(sa), faces(sb)
    assert set(hand_a) == set(faces_a) and set(hand_b) == set(faces_b)
    # Nothing about the other seat's faces anywhere in the page: not the DOM, not the JS state.
    for page, other_faces, state in ((a, faces_b, sa), (b, faces_a, sb)):
        html = await page.content()
        blob = json.dumps(state)
        for face in other_faces.values():
            assert f'data-face="{face}"' not in html
            assert f'"face": "{face}"' not in blob
    # The page shows its own hand along the bottom, faces up; the other hand only as a count.
    assert await a.locator("[data-testid=card][data-where=hand]").count() == 5
    assert await a.locator("[data-testid=card][data-where=away][data-face]").count() == 0
    await settled(a)
    await settled(b)
    await shot(a, "deal-ana")
    await shot(b, "deal-ben")

    # Reorder Ana's hand: drag the first card to the end.
    first = hand_a[0]
    last_box = await a.locator(f"[data-id='{hand_a[-1]}']").bounding_box()
    await drag(
        a,
        await center(a, f"[data-id='{first}']"),
        (last_box["x"] + last_box["width"] + 10, last_box["y"] + last_box["height"] / 2),
    )
    await wait_js(a, "s.server.find(o => o.id === 'hand0').cards.slice(-1)[0] === arg", first)

    # Ana plays a card from her hand onto the discard pile: it lands face up for everyone, as a
    # new card (a card leaving a hand gets a new id, so it can't be linked to the hand).
    played = hand_a[2]
    face = faces_a[played]
    await drag(a, await center(a, f"[data-id='{played}']"), await center(a, "[data-id=discard]"))
    top = """(() => { const d = s.server.find(o => o.id === 'discard');
        const t = d && s.server.find(o => o.id === d.cards[d.cards.length - 1]);
        return !!t && t.face === arg[0] && t.id !== arg[1]; })()"""
    for p in (a, b):
        await wait_js(p, top, [face, played])
    await b.wait_for_selector(f"[data-parent=discard][data-face='{face}']")
    assert await b.locator(f"[data-id='{played}']").count() == 0
    await b.wait_for_selector("[data-testid=hand-count-0]:text('4')")

    # Ben draws with D over the deck.
    await b.hover("[data-testid=stack-count][data-stack=deck]")
    await b.keyboard.press("d")
    await b.wait_for_selector("[data-testid=card][data-where=hand][data-face] >> nth=5")
    await a.wait_for_selector("[data-testid=hand-count-1]:text('6')")
    await shot(b, "deal-ben-after-draw")


async def test_live_drag_is_shown_to_others(pages, server):
    """Ben sees Ana's drag live (the server relays `drag`); a card dragged out of a hand is
    never shared."""
    from server.app import HANDLERS_KEY, SIO_KEY

    sio, handlers = server.app[SIO_KEY], server.app[HANDLERS_KEY]
    shared: list[str] = []  # every id a page sent in a `drag`, in order
    relay = handlers.on_drag

    async def recording(sid, data=None):
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            shared.extend(str(i.get("id")) for i in data["items"] if isinstance(i, dict))
        await relay(sid, data)

    sio.on("drag", recording)
    try:
        await live_drag(pages, shared)
    finally:
        sio.on("drag", relay)


async def live_drag(pages, shared: list[str]) -> None:
    a, b, code = await create_and_join(pages)
    await a.evaluate("window.__cardtable.room.conn.features.add('drag')")
    card = next(o for o in (await dump(a))["objects"] if o["id"] == "deck")["cards"][-1]
    before = await b.locator(f"[data-id='{card}']").bounding_box()
    start = await center(a, f"[data-id='{card}']")
    end = await table_point(a, 1300, 800)
    await a.mouse.move(*start)
    await a.mouse.down()
    await a.mouse.move(*end, steps=15)
    # Still dragging: Ben's copy follows although nothing is committed yet.
    await b.wait_for_function(
        "([id, x]) => document.querySelector(`[data-id='${id}']`).getBoundingClientRect().x > x",
        arg=[card, before["x"] + 300],
    )
    assert next(o for o in (await dump(b))["server"] if o["id"] == card)["parent"] == "deck"
    await a.mouse.up()
    await wait_js(b, "s.server.some(o => o.id === arg && o.parent === null && o.x > 1100)", card)

    # Ana takes a card into her hand and drags it out onto the table. It lands under a new id;
    # sharing the hand card's id on the way would link the two for everyone, so nothing of
    # that drag is sent. (A table card dragged after it is shared: updates arrive in order, so
    # once that one is seen, any update of the first drag would have been seen too.)
    await a.hover("[data-testid=stack-count][data-stack=deck]")
    await a.keyboard.press("d")
    await wait_js(a, "s.server.find(o => o.id === 'hand0').cards.length === 1")
    held = next(o for o in (await dump(a))["server"] if o["id"] == "hand0")["cards"][0]
    shared.clear()
    start = await center(a, f"[data-id='{held}']")
    await a.mouse.move(*start)
    await a.mouse.down()
    await a.mouse.move(*await table_point(a, 400, 300), steps=15)
    await a.mouse.move(*await table_point(a, 450, 250), steps=5)
    await a.mouse.up()
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 0")
    other = next(o for o in (await dump(a))["objects"] if o["id"] == "deck")["cards"][-1]
    await drag(a, await center(a, f"[data-id='{other}']"), await table_point(a, 1000, 300))
    await wait_js(b, "s.server.some(o => o.id === arg && o.parent === null)", other)
    assert other in shared, "the table card's drag is shared"
    assert held not in shared and shared[: shared.index(other)] == [], shared
