"""Seat plates in a rule room (issue 20 items 1, 6 and 7): each player has a plate at their place
with the name, "Computer" for a computer, the cards held and the game's numbers (Spades: bid,
tricks, bags; Pennies: pennies and score; Gin/Rummy: score). On desktop (1440x900) and on an
upright phone (390x844, touch), for 2, 3 and 4 players: every plate lies inside the table, no two
plates overlap, no plate covers a hand, a zone or a marker; the plate of the player to act glows.
The phone's game bar keeps one height whatever it shows. A spectator sees the plates and the
public cards, never a hand's faces. Screenshots go to test-artifacts/seats-*.png.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.conftest import BROWSER_TESTS, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS

PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}
DESKTOP = (1440, 900)
UPRIGHT = (390, 844)

# Everything a plate must keep clear of, and the plates, as page boxes.
BOXES = """() => {
  const rect = (el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const all = (sel) => [...document.querySelectorAll(sel)]
    .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
    .map((el) => ({what: el.dataset.id || el.dataset.testid || el.className, ...rect(el)}));
  return {
    table: rect(document.querySelector('[data-testid=table]')),
    plates: [...document.querySelectorAll('[data-testid=seat-plate]')].map((el) => ({
      player: Number(el.dataset.player), place: Number(el.dataset.place),
      acting: el.classList.contains('acting'), text: el.textContent,
      turn: el.querySelector('[data-testid=plate-turn]').textContent,
      stats: Object.fromEntries([...el.querySelectorAll('[data-stat]')]
        .map((s) => [s.dataset.stat, s.textContent])),
      cards: el.querySelector('[data-testid=plate-cards]').textContent, ...rect(el)})),
    hands: all('.fan-card'),
    zones: all('[data-testid=stack], [data-testid=card][data-where=stack], '
      + '[data-testid=counter], [data-testid=label], [data-testid=chips]').concat(
      // A zone's name: its text (the element spans more than the words, centred over the zone).
      [...document.querySelectorAll('.stack-label')].filter((el) => el.textContent).map((el) => {
        const r = document.createRange(); r.selectNodeContents(el);
        const b = r.getBoundingClientRect();
        return {what: 'name ' + el.textContent, x: b.left, y: b.top, w: b.width, h: b.height}; })),
    handFaces: document.querySelectorAll('[data-testid=card][data-where=hand]').length,
    bar: rect(document.querySelector('[data-testid=game-bar]')),
  };
}"""

ROOM = "JSON.stringify(window.__cardtable.state.game)"


async def game(page: Any) -> dict:
    return json.loads(await page.evaluate(ROOM))


def cross(a: dict, b: dict, slack: float = 1.0) -> bool:
    """Two page boxes overlap by more than `slack` px each way."""
    return (
        a["x"] + slack < b["x"] + b["w"]
        and b["x"] + slack < a["x"] + a["w"]
        and a["y"] + slack < b["y"] + b["h"]
        and b["y"] + slack < a["y"] + a["h"]
    )


async def rule_room(pages: Any, name: str, players: int, viewport: tuple[int, int]) -> Any:
    """A room of `name` made from the home page with `players - 1` computers, started."""
    extra = PHONE if viewport == UPRIGHT else {}
    page = await pages.open("/?name=Pia", viewport=viewport, **extra)
    await page.locator(f"[data-testid=game-select] option[value={name}]").wait_for(state="attached")
    await page.select_option("[data-testid=game-select]", name)
    await page.locator("[data-testid=create-room]").click()
    await enter_room(page)
    # Seat the computers through the server's host command (the players panel is another test's).
    for seat in range(1, players):
        await page.evaluate(
            "seat => window.__cardtable.room.conn.request('host', {action: 'bot', seat})", seat
        )
        await wait_js(page, "s.players.some(p => p.bot && p.seat === arg)", seat)
    g = await game(page)
    if g["waiting"]:
        await page.evaluate("() => window.__cardtable.room.conn.request('host', {action: 'start'})")
    await wait_js(page, "s.game && !s.game.waiting", None)
    return page


async def until_my_turn(page: Any, done: Any = None) -> dict:
    """Let the computers play until it is this page's player's turn (and `done(game)` holds);
    the page plays the first legal move itself when `done` wants more. Then nothing moves."""
    for _ in range(200):
        # The version first: a move made after it is waited for below, never missed.
        v = await page.evaluate("() => window.__cardtable.state.v")
        g = await game(page)
        mine = g["me"] in g["to_act"] and not g["outcome"]
        if mine and (done is None or done(g)):
            await settled(page)
            return g
        if mine:
            await page.evaluate(
                "a => window.__cardtable.room.conn.request('game', {action: a})", g["legal"][0]
            )
        try:
            await page.wait_for_function(
                "v => window.__cardtable.state.v > v", arg=v, timeout=15_000
            )
        except Exception as e:
            raise AssertionError(f"nothing moves: {g}") from e
    raise AssertionError("never this page's turn")


def check_geometry(got: dict, players: int) -> None:
    table, plates = got["table"], got["plates"]
    assert len(plates) == players, plates
    assert sorted(p["place"] for p in plates) == list(range(players))
    for p in plates:
        inside = (
            p["x"] >= table["x"] - 0.5
            and p["y"] >= table["y"] - 0.5
            and p["x"] + p["w"] <= table["x"] + table["w"] + 0.5
            and p["y"] + p["h"] <= table["y"] + table["h"] + 0.5
        )
        assert inside, (p, table)
        for other in plates:
            if other is not p:
                assert not cross(p, other), (p, other)
        for thing in got["hands"] + got["zones"]:
            assert not cross(p, thing, 2.0), (p["player"], thing)


def check_plates(got: dict, g: dict) -> None:
    by_player = {p["player"]: p for p in got["plates"]}
    counts = (g["view"] or {}).get("hand_counts")
    for pl in g["players"]:
        plate = by_player[pl["player"]]
        assert pl["name"] in plate["text"]
        assert ("Computer" in plate["text"]) == pl["bot"]
        assert plate["acting"] == (pl["player"] in g["to_act"]), (plate, g["to_act"])
        if counts:
            n = counts[pl["player"]]
            assert plate["cards"] == f"{n} card{'' if n == 1 else 's'}"
    me = by_player[g["me"]]
    assert me["place"] == 0 and me["turn"].endswith("your turn")  # after a countdown if timed


def stats_of(name: str, g: dict, player: int) -> dict:
    view = g["view"]
    if name == "spades":
        bid = view["bids"][player]
        return {
            "bid": "Bid –" if bid is None else ("Bid Nil" if bid == 0 else f"Bid {bid}"),
            "tricks": f"Took {view['tricks_taken'][player]}",
            "bags": f"Bags {view['bags'][player % 2]}",
        }
    if name == "pennies":
        return {
            "pennies": f"Pennies {view['pennies'][player]}",
            "score": f"Score {view['scores']['totals'][player]}",
        }
    return {"score": f"Score {view['scores'][player]}"}


CASES = [
    ("spades", 4),
    ("gin_rummy", 2),
    ("pennies", 3),
    ("pennies", 4),
    ("rummy", 3),
    ("rummy", 4),
]


@pytest.mark.parametrize("where", ["desktop", "phone"])
@pytest.mark.parametrize(("name", "players"), CASES)
async def test_seat_plates_sit_clear_of_everything(pages, name, players, where):
    page = await rule_room(pages, name, players, DESKTOP if where == "desktop" else UPRIGHT)
    if name == "spades":
        # A trick in progress: the page's player to play to it.
        g = await until_my_turn(page, lambda g: g["phase"] == "playing" and g["view"]["trick"])
    else:
        g = await until_my_turn(page)
    got = await page.evaluate(BOXES)
    await shot(page, f"seats-{name}-{players}-{where}")
    check_geometry(got, players)
    check_plates(got, g)
    for p in got["plates"]:
        assert p["stats"] == stats_of(name, g, p["player"]), p


async def test_a_computer_thinks_on_its_plate_and_the_phone_bar_keeps_its_height(pages):
    page = await rule_room(pages, "spades", 4, UPRIGHT)
    # Record every height the game bar takes and whether a computer's plate said "thinking…".
    await page.evaluate(
        """() => { window.__bar = new Set(); window.__thinking = false;
        const bar = document.querySelector('[data-testid=game-bar]');
        const look = () => { window.__bar.add(Math.round(bar.getBoundingClientRect().height));
          for (const el of document.querySelectorAll('[data-testid=seat-plate].bot.acting'))
            if (el.textContent.includes('thinking…')) window.__thinking = true; };
        new MutationObserver(look).observe(document.body,
          {attributes: true, childList: true, subtree: true, characterData: true}); look(); }"""
    )
    # The bid pad: one row over the lower part of the hand, the table and its plates uncovered,
    # every bid a finger can reach.
    await until_my_turn(page, lambda g: g["phase"] == "bidding")
    pad = await page.locator("[data-testid=bid-pad]").bounding_box()
    table = await page.locator("[data-testid=table]").bounding_box()
    hand = await page.locator("[data-testid=my-hand]").bounding_box()
    assert pad and table and hand
    assert pad["y"] >= table["y"] + table["height"] and pad["y"] >= hand["y"] + 0.4 * hand["height"]
    assert pad["x"] >= 0 and pad["x"] + pad["width"] <= UPRIGHT[0]
    await shot(page, "seats-phone-bid-pad")
    await page.locator("[data-testid=bid-pad] [data-testid=bid][data-bid='4']").tap()
    # Then tricks until one has been won and the next is under way.
    await until_my_turn(page, lambda g: g["phase"] == "playing" and len(g["view"]["played"]) >= 2)
    assert await page.evaluate("() => window.__thinking")
    heights = await page.evaluate("() => [...window.__bar]")
    assert len(heights) == 1, heights
    await shot(page, "seats-phone-bar")


@pytest.mark.parametrize("where", ["desktop", "phone"])
async def test_a_spectator_sees_the_plates_and_no_hand(pages, where):
    host = await rule_room(pages, "spades", 4, DESKTOP)
    code = (await game(host)) and await host.evaluate("() => window.__cardtable.state.code")
    g = await until_my_turn(host, lambda g: g["phase"] == "playing" and g["view"]["trick"])
    viewport = DESKTOP if where == "desktop" else UPRIGHT
    extra = PHONE if where == "phone" else {}
    page = await pages.open(f"/r/{code}?name=Sam", viewport=viewport, **extra)
    await enter_room(page)
    await wait_js(page, "s.game && !s.game.waiting && s.game.me === null", None)
    await wait_js(page, "s.v >= arg", (await host.evaluate("() => window.__cardtable.state.v")))
    await page.locator("[data-testid=seat-plate]").nth(3).wait_for()
    await settled(page)
    got = await page.evaluate(BOXES)
    await shot(page, f"seats-spectator-{where}")
    check_geometry(got, 4)
    assert got["handFaces"] == 0
    strip = await page.locator("[data-testid=my-hand]").text_content()
    assert "the hands stay hidden" in strip, strip  # not an empty hand, nor "take a seat"
    faces = await page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=card][data-face]')]"
        ".map(e => e.dataset.where)"
    )
    assert faces and set(faces) == {"stack"}, faces  # the trick's public cards only
    by_place = {p["place"]: p for p in got["plates"]}
    assert by_place[0]["player"] == 0  # the fixed viewpoint: player 0 at the bottom
    for p in got["plates"]:
        assert p["stats"] == stats_of("spades", g, p["player"]), p
    assert p["turn"] != "your turn"
