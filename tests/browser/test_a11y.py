"""Keyboard and screen reader (issue 13): axe-core finds no serious or critical violation on the
home page, a free-play room and every game's room (small text at 4.5:1 included); every object
and every card of your hand takes focus and is named in words, a face-down card only as
"face-down card"; a keyboard alone draws a card, plays it, flips it and gives one away in free
play, and plays a legal Gin Rummy move against a computer (the drop goes through the same path
as a drag, the server decides); other players' moves are read out in a polite live region.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from plugins.cards import card_name
from tests.browser.conftest import (
    BROWSER_TESTS,
    axe_violations,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

GAMES = ("gin_rummy", "spades", "rummy", "pennies")

ACTIVE = """() => { const a = document.activeElement;
  return a && a.dataset ? {id: a.dataset.id || null, where: a.dataset.where || null,
    face: a.dataset.face || null, label: a.getAttribute('aria-label'),
    testid: a.dataset.testid || null, tag: a.tagName} : null; }"""


# Text straight on the felt (pile and zone names): axe can't judge text over a gradient, so
# the page's own colours are checked against every colour stop of the felt's gradient.
FELT_CONTRAST = """() => {
  const rgba = (s) => s.match(/[\\d.]+/g).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const stops = [...getComputedStyle(document.querySelector('.felt')).backgroundImage
    .matchAll(/rgba?\\([^)]*\\)/g)].map((m) => rgba(m[0]));
  const out = [];
  for (const el of document.querySelectorAll('.stack-label, .chips .wlabel')) {
    if (!el.textContent.trim()) continue;
    const [r, g, b, a = 1] = rgba(getComputedStyle(el).color);
    let worst = Infinity;
    for (const bg of stops) {
      const fg = [r, g, b].map((c, i) => a * c + (1 - a) * bg[i]);
      const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      worst = Math.min(worst, (hi + 0.05) / (lo + 0.05));
    }
    out.push([el.textContent, Math.round(worst * 100) / 100, stops.length]);
  }
  return out;
}"""


async def felt_contrast(page: Any) -> list[str]:
    """Pile and zone names on the felt below 4.5:1 against any of its colours."""
    got = await page.evaluate(FELT_CONTRAST)
    assert got and all(n >= 2 for _, _, n in got), got
    return [f"{text!r} {ratio}:1" for text, ratio, _ in got if ratio < 4.5]


def report(where: str, found: list[dict]) -> str:
    return f"{where}: " + json.dumps(found, indent=1)[:4000]


async def game_room(server: Any, game: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": game}) as r,
    ):
        assert r.status == 201, await r.text()
        return str((await r.json())["code"])


async def fill_with_computers(page: Any) -> None:
    """The host seats computers until the game may start, and starts it if it still waits."""
    need = int((await dump(page))["game"]["min_players"])
    for seat in range(1, need):
        await page.click(f"[data-testid=bot-{seat}]")
        await wait_js(page, "s.players.some(p => p.bot && p.seat === arg)", seat)
    if (await dump(page))["game"]["waiting"]:
        await page.click("[data-testid=game-start]")
    await wait_js(page, "s.game && !s.game.waiting")


async def active(page: Any) -> dict | None:
    return await page.evaluate(ACTIVE)


async def tab_to(page: Any, expr: str, limit: int = 120) -> dict:
    """Press Tab until the focused element satisfies `expr` (JS over `a`, see ACTIVE)."""
    for _ in range(limit):
        await page.keyboard.press("Tab")
        a = await active(page)
        if a and await page.evaluate(f"(a) => !!({expr})", a):
            return a
    raise AssertionError(f"Tab never reached {expr}")


async def test_axe_on_home_free_play_and_every_game(pages, server):
    found: list[str] = []
    home = await pages.open("/?name=Ana", bypass_csp=True)
    await home.locator("[data-testid=create-room]").wait_for()
    await home.locator("[data-testid=game-select] option[value=spades]").wait_for(state="attached")
    if bad := await axe_violations(home):
        found.append(report("home", bad))

    await home.click("[data-testid=create-room]")
    await enter_room(home)
    await home.locator("[data-testid=card]").first.wait_for()
    # A card on the table face up and one in the hand, so that both are checked too.
    await home.evaluate("() => window.__cardtable.room.cmd.take('deck', 2)")
    await wait_js(home, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 2")
    # A room log long enough to scroll: a scrollable region must be reachable by keyboard.
    await home.evaluate("""() => { const room = window.__cardtable.room;
        for (let i = 0; i < 40; i++) room.send({op: 'flip', id: 'deck'}); }""")
    await home.wait_for_function("""() => { const log = document.querySelector('[data-testid=log]');
        return log.scrollHeight > log.clientHeight; }""")
    await wait_js(home, "s.pending.length === 0")
    if bad := await axe_violations(home):
        found.append(report("free play", bad))
    if low := await felt_contrast(home):
        found.append(f"free play, text on the felt: {low}")

    for game in GAMES:
        code = await game_room(server, game)
        page = await pages.open(f"/r/{code}?name=Ana", bypass_csp=True)
        await enter_room(page)
        await page.locator("[data-testid=game-bar]").wait_for()
        if bad := await axe_violations(page):
            found.append(report(f"{game}, waiting", bad))
        await fill_with_computers(page)
        await wait_js(page, "s.objects.some(o => o.t === 'card' && o.parent === 'hand0')")
        await settled(page)
        if bad := await axe_violations(page):
            found.append(report(f"{game}, playing", bad))
        if low := await felt_contrast(page):
            found.append(f"{game}, text on the felt: {low}")
        await shot(page, f"a11y-{game}")
    assert not found, "\n".join(found)


async def test_every_object_takes_focus_and_no_label_names_a_hidden_face(pages):
    a, b, code = await create_and_join(pages)
    await a.evaluate("() => window.__cardtable.room.cmd.take('deck', 3)")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 3")
    await wait_js(b, "s.server.find(o => o.id === 'hand0').n === 3")
    for page, seat in ((a, 0), (b, 1)):
        labels = await page.evaluate(
            """() => [...document.querySelectorAll('[data-testid=card]')].map(el => ({
              id: el.dataset.id, where: el.dataset.where, face: el.dataset.face || null,
              label: el.getAttribute('aria-label'), tab: el.getAttribute('tabindex'),
              hidden: el.getAttribute('aria-hidden')}))"""
        )
        for c in labels:
            if c["face"] is None:
                assert c["label"].split(", ")[0] == "face-down card", c
            else:
                assert "face-down" not in c["label"], c
        hand = [c for c in labels if c["where"] == "hand"]
        assert len(hand) == (3 if seat == 0 else 0)
        assert all(c["tab"] == "0" and c["face"] for c in hand)
        assert all(c["label"].endswith(", in your hand") for c in hand)
        buried = [c for c in labels if c["where"] == "stack"]
        assert buried and all(c["tab"] is None and c["hidden"] == "true" for c in buried)
        deck = page.locator("[data-id=deck]")
        assert await deck.get_attribute("tabindex") == "0"
        assert await deck.get_attribute("aria-label") == "Deck: 49 cards, top card face down"
    # Ben's page never holds the faces of Ana's cards, in any attribute.
    faces = {
        o["face"] for o in (await dump(a))["server"] if o["t"] == "card" and o["parent"] == "hand0"
    }
    html = await b.content()
    for f in faces:
        assert card_name(f).lower() not in html.lower(), f


async def test_free_play_by_keyboard_alone(pages):
    a, b, code = await create_and_join(pages)
    # The pointer rests on the deck: the keys must act on the focused object, not on it.
    deck_box = await a.locator("[data-id=deck]").bounding_box()
    await a.mouse.move(deck_box["x"] + 20, deck_box["y"] + 20)

    # Tab to the deck; Enter picks up its top card; the first place offered is your hand.
    got = await tab_to(a, "a.id === 'deck'")
    assert got["label"] == "Deck: 52 cards, top card face down"
    top = await a.evaluate("() => window.__cardtable.state.view.get('deck').cards.slice(-1)[0]")
    await a.keyboard.press("Enter")
    hint = a.locator("[data-testid=kbd-hint]")
    await hint.wait_for()
    assert await hint.get_attribute("data-place") == "hand"
    carried = a.locator(f"[data-id='{top}']")
    assert await carried.evaluate("el => el.classList.contains('kbd-carried')")
    await settled(a)
    await shot(a, "a11y-keyboard-carry")
    await a.keyboard.press("Enter")
    await wait_js(a, "s.pending.length === 0 && s.server.find(o => o.id === 'hand0').n === 1")
    assert await hint.is_hidden()
    await wait_js(b, "s.server.find(o => o.id === 'hand0').n === 1")
    # Focus followed the card into the hand, where it is named by its face.
    await a.wait_for_function(
        "id => { const a = document.activeElement;"
        " return a.dataset.id === id && !!a.dataset.face; }",
        arg=top,
    )
    got = await active(a)
    assert got["id"] == top and got["where"] == "hand" and got["face"], got
    assert got["label"].endswith(", in your hand") and "face-down" not in got["label"]
    face = got["face"]
    # Ben's page reads Ana's move out in its live region; Ana's page doesn't read her own.
    line = (await dump(b))["log"][-1]
    assert line.startswith("Ana ")
    await b.locator("[data-testid=live-moves] p", has_text=line).wait_for(state="attached")
    assert line not in (await a.locator("[data-testid=live-moves]").text_content())
    await settled(a)
    await shot(a, "a11y-keyboard-in-hand")

    # Play it: Space picks it up, the arrows go to an empty spot on the table, Enter drops it
    # there face up (as a drag from the hand does).
    await a.keyboard.press(" ")
    await hint.wait_for()
    for _ in range(20):
        if await hint.get_attribute("data-place") == "spot":
            break
        await a.keyboard.press("ArrowRight")
    assert await hint.get_attribute("data-place") == "spot"
    assert await a.locator("[data-testid=kbd-spot]").is_visible()
    await a.keyboard.press("Enter")
    loose = "s.server.find(o => o.t === 'card' && !o.parent && o.face === arg && o.up)"
    await wait_js(a, f"s.pending.length === 0 && {loose}", face)
    await wait_js(b, loose, face)
    table_card = next(
        o["id"]
        for o in (await dump(a))["server"]
        if o["t"] == "card" and not o["parent"] and o.get("face") == face
    )
    await wait_js(a, "document.activeElement.dataset.id === arg", table_card)

    # F flips the focused card (not the deck under the pointer); Ben sees its back.
    await a.keyboard.press("f")
    await wait_js(
        b, "s.server.some(o => o.id === arg && !o.up && o.face === undefined)", table_card
    )
    await wait_js(a, "s.pending.length === 0")
    deck = next(o for o in (await dump(a))["server"] if o["id"] == "deck")
    assert not any(o["up"] for o in (await dump(a))["server"] if o["id"] in deck["cards"])
    for page in (a, b):
        label = await page.locator(f"[data-id='{table_card}']").get_attribute("aria-label")
        assert label == "face-down card"
    assert await b.locator(f"[data-id='{table_card}']").get_attribute("data-face") is None

    # Escape puts a picked-up card back: nothing is sent.
    v = (await dump(a))["v"]
    await a.keyboard.press("Enter")
    await hint.wait_for()
    await a.keyboard.press("Escape")
    assert await hint.is_hidden()
    assert (await dump(a))["pending"] == [] and (await dump(a))["v"] == v

    # Give a card to Ben: back to the deck (Tab order wraps through the table), pick up its top
    # card, arrow to Ben's seat in the players panel, Enter.
    await tab_to(a, "a.id === 'deck'")
    await a.keyboard.press("Enter")
    await hint.wait_for()
    for _ in range(20):
        if await hint.get_attribute("data-place") == "seat1":
            break
        await a.keyboard.press("ArrowLeft")
    assert await hint.get_attribute("data-place") == "seat1"
    assert "Ben's hand" in await hint.text_content()
    await a.keyboard.press("Enter")
    await wait_js(b, "s.server.find(o => o.id === 'hand1').n === 1")
    await b.locator("[data-testid=card][data-where=hand]").wait_for()


async def test_gin_by_keyboard_against_a_computer(pages, server):
    code = await game_room(server, "gin_rummy")
    a = await pages.open(f"/r/{code}?name=Ana")
    await enter_room(a)
    await fill_with_computers(a)
    # Wait for Ana's turn with a move from the discard pile (take the upcard, or draw from it).
    await wait_js(
        a, "s.game.controls.some(c => c.kind === 'drag' && c.source === 'discard')", timeout=20_000
    )
    upcard = await a.evaluate(
        "() => { const v = window.__cardtable.state.view;"
        " return v.get(v.get('discard').cards.slice(-1)[0]).face; }"
    )
    got = await tab_to(a, "a.id === 'discard'")
    assert got["label"].startswith("Discard: ") and "top card" in got["label"]
    # Enter makes the card's one move (it has exactly one): into Ana's hand.
    await a.keyboard.press("Enter")
    await wait_js(a, "s.server.find(o => o.id === 'hand0').n === 11 && s.pending.length === 0")
    await wait_js(a, "s.game.controls.some(c => c.kind === 'drag' && c.dest === 'discard')")
    legal = [
        f
        for c in (await dump(a))["game"]["controls"]
        if c["kind"] == "drag" and c.get("dest") == "discard"
        for f in c.get("cards", [])
    ]
    assert legal and upcard not in legal
    # A hand card by keyboard: arrows move through the hand; Space picks it up; the first
    # place offered is the one the game allows (the discard pile); Enter drops it there.
    await tab_to(a, "a.where === 'hand'")
    for _ in range(12):
        now = await active(a)
        if now["face"] in legal:
            break
        await a.keyboard.press("ArrowRight")
    card = (await active(a))["face"]
    assert card in legal
    await a.keyboard.press(" ")
    hint = a.locator("[data-testid=kbd-hint]")
    await hint.wait_for()
    assert await hint.get_attribute("data-place") == "discard"
    assert "(allowed)" in await hint.text_content()
    assert await a.locator("[data-id=discard].accepts").count() == 1
    await settled(a)
    await shot(a, "a11y-gin-keyboard")
    await a.keyboard.press("Enter")
    # The server took it as Ana's discard: the log says so, and her hand has 10 cards, that one
    # gone. The card tops the discard pile until the computer answers, which takes it or covers
    # it (a card below the top shows neither its face nor its id): under load the answer may
    # come before the page is read, so the pile is read together with the log, never alone.
    discarded = f"Ana discarded the {card_name(card)}"
    await wait_js(a, "s.log.some(line => line.startsWith(arg))", discarded)
    await wait_js(
        a,
        "(() => { const h = s.server.find(o => o.id === 'hand0');"
        " return s.pending.length === 0 && h.n === 10"
        " && !h.cards.some(id => s.server.find(o => o.id === id).face === arg); })()",
        card,
    )
    await wait_js(
        a,
        "(() => { const d = s.server.find(o => o.id === 'discard');"
        " const top = s.server.find(o => o.id === d.cards[d.cards.length - 1]);"
        " const i = s.log.findLastIndex(line => line.startsWith(arg.said));"
        " return (top && top.face === arg.card)"
        " || s.log.slice(i + 1).some(line => line.startsWith('Computer 2')); })()",
        {"card": card, "said": discarded},
    )
    # The computer's answer is read out.
    said = a.locator("[data-testid=live-moves] p", has_text="Computer 2")
    await said.first.wait_for(state="attached")


async def test_focus_ring_screenshots_desktop_and_phone(pages):
    for name, size, extra in (
        ("desktop", (1366, 800), {}),
        ("phone", (390, 844), {"is_mobile": True, "has_touch": True}),
    ):
        page = await pages.open("/?name=Ana", viewport=size, **extra)
        await page.click("[data-testid=create-room]")
        await enter_room(page)
        await page.evaluate("() => window.__cardtable.room.cmd.take('deck', 4)")
        await wait_js(page, "!s.pending.length && s.server.find(o => o.id === 'hand0').n === 4")
        await tab_to(page, "a.id === 'deck'")
        await settled(page)
        ring = await page.evaluate(
            "() => { const cs = getComputedStyle(document.activeElement);"
            " return [cs.outlineStyle, cs.outlineWidth, cs.boxShadow]; }"
        )
        assert ring[0] == "solid" and ring[1] == "3px" and ring[2] != "none", ring
        await shot(page, f"a11y-focus-deck-{name}")
        # A keyboard works on a small screen too: the deck's top card into the hand.
        await page.keyboard.press("Enter")
        await page.locator("[data-testid=kbd-hint][data-place=hand]").wait_for()
        await page.keyboard.press("Enter")
        await wait_js(page, "!s.pending.length && s.server.find(o => o.id === 'hand0').n === 5")
        await page.keyboard.press("Shift+Tab")  # the table wraps: from the first object…
        await tab_to(page, "a.where === 'hand'")
        await settled(page)
        await shot(page, f"a11y-focus-hand-{name}")


async def test_a_homemade_games_buttons_are_in_the_tab_order(pages):
    page = await pages.open("/?name=Dee")
    await page.click("[data-testid=library-start][data-name=poker]")
    await enter_room(page)
    await page.locator("[data-testid=auto-button]", has_text="New hand").wait_for()
    # Tab reaches the button among the table's objects; Enter presses it.
    await tab_to(page, "a.testid === 'auto-button'")
    for _ in range(10):
        if "New hand" in await page.evaluate("() => document.activeElement.textContent"):
            break
        await page.keyboard.press("ArrowRight")
    assert "New hand" in await page.evaluate("() => document.activeElement.textContent")
    await page.keyboard.press("Enter")
    await wait_js(page, "s.objects.some(o => o.t === 'hand' && o.seat === s.me.seat && o.n > 0)")


async def test_the_name_prompt_of_a_room_link_is_labelled_desktop_and_phone(pages, server):
    """Someone opening a room's link with no name yet meets the name prompt first: its text field
    is named (axe: no critical `label`), on a desktop and on a phone."""
    code = await game_room(server, "spades")
    for where, size in (("desktop", (1280, 800)), ("phone", (390, 844))):
        page = await pages.open(f"/r/{code}", viewport=size, bypass_csp=True)
        field = page.locator("[data-testid=prompt-input]")
        await field.wait_for()
        assert await field.evaluate("el => el === document.activeElement")
        bad = await axe_violations(page)
        assert not bad, report(f"name prompt, {where}", bad)
        # The field is named by the question it answers.
        assert await page.get_by_role("textbox", name="Your name at the table").count() == 1
        await shot(page, f"a11y-name-prompt-{where}")
