"""One click from the home page starts a game against computers, and "Play again" starts the
next with the same seats (issue 20 item 3), on a desktop and on a phone.

The game is driven to its end through the server's test hook (``set_game_state`` with a
finished Gin Rummy game from real play, checked by the engine), as the Gin tests do; everything
else is clicks on the page."""

from __future__ import annotations

import random
from typing import Any

import pytest

from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot, wait_js

pytestmark = BROWSER_TESTS

DESKTOP = (1440, 900)
PHONE = (390, 844)


def finished_game() -> Any:
    """A Gin Rummy game the computer played to its end on both sides."""
    rng = random.Random(5)
    state = ENGINE.new_game(2, {}, 5)
    while ENGINE.outcome(state) is None:
        player = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, player, choose_action(ENGINE, state, player, rng))
    return state


async def one_click_gin(page: Any, *, named: bool) -> str:
    """From the home page: level Easy, then "Play Gin Rummy"; a page with no saved name is
    asked for one. Returns the room code once the game has started."""
    await page.locator("[data-testid=quickplay-gin_rummy]").wait_for()
    assert await page.locator("[data-testid=level-normal]").is_checked()  # the default
    await page.locator("label[for=level-easy]").click()
    await page.click("[data-testid=quickplay-gin_rummy]")
    if not named:
        await page.locator("[data-testid=prompt-input]").wait_for()
        await page.fill("[data-testid=prompt-input]", "Ana")
        await page.click("[data-testid=prompt-ok]")
    code = await enter_room(page)
    await wait_js(page, "s.game && !s.game.waiting && s.game.me === 0")
    # Deal 1 waited for her page's value (docs/fairness.md): it went into deal 1, not deal 2.
    said = "Ana's page added its randomness to deal 1;"
    await wait_js(page, "s.log.some(l => l.startsWith(arg))", said)
    return code


async def check_playing(page: Any) -> dict[str, Any]:
    """Ana in seat 0 holds her cards, an easy computer sits in seat 1, the status line names
    whose turn it is."""
    await wait_js(page, "(s.objects.find(o => o.id === 'hand0') || {cards: []}).cards.length >= 10")
    s = await dump(page)
    seated = {p["seat"]: p for p in s["players"] if p["seat"] is not None}
    assert seated[0]["name"] == "Ana" and not seated[0]["bot"] and seated[0]["host"]
    assert seated[1]["bot"] and seated[1]["level"] == "easy"
    await page.locator("[data-testid=card][data-where=hand]").first.wait_for()
    status = await page.locator("[data-testid=game-status]").text_content()
    assert status and ("Ana" in status or "Computer 2" in status or "You" in status), status
    return s


@pytest.mark.parametrize("device", ["desktop", "phone"])
async def test_one_click_plays_gin_against_a_computer_and_play_again_keeps_the_seats(
    server, pages, device
):
    phone = device == "phone"
    page = await pages.open(
        "/" if phone else "/?name=Ana",
        viewport=PHONE if phone else DESKTOP,
        **({"has_touch": True, "is_mobile": True} if phone else {}),
    )
    await settled(page)
    await shot(page, f"quickplay-home-{device}")
    width = page.viewport_size["width"]
    box = await page.locator("[data-testid=quickplay]").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    code = await one_click_gin(page, named=not phone)
    assert await page.evaluate("localStorage.getItem('cardtable:level')") == "easy"
    first = await check_playing(page)
    if not phone:  # the players panel is open beside the table on a desktop
        level = page.locator("[data-testid=bot-level]")
        await level.wait_for()
        assert (await level.text_content()).strip() == "(easy)"
    await settled(page)
    await shot(page, f"quickplay-playing-{device}")

    # The game ends: the summary shows the winner, the final scores and "Play again".
    over = await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(finished_game()))
    await wait_js(page, "s.v >= arg && s.game.outcome", over.version)
    sheet = page.locator("[data-testid=game-sheet]")
    await sheet.locator("h2", has_text="Game over").wait_for()
    await page.locator("[data-testid=game-winner]").wait_for()
    outcome = (await dump(page))["game"]["outcome"]
    for player in (0, 1):
        score = page.locator(f"[data-testid=final-score-{player}]")
        assert await score.text_content() == str(outcome["scores"][player])
    again = page.locator("[data-testid=play-again]")
    await again.wait_for()
    await page.locator("[data-testid=back-home]").wait_for()
    assert await page.locator("[data-testid=waiting-for-host]").count() == 0
    await again.scroll_into_view_if_needed()
    again_box = await again.bounding_box()
    assert again_box is not None and again_box["x"] + again_box["width"] <= width
    await settled(page)
    await shot(page, f"quickplay-summary-{device}")

    # Play again: a new game at once, the same seats, the computer still easy.
    await again.click()
    await wait_js(page, "s.v > arg && s.game && !s.game.waiting && !s.game.outcome", over.version)
    await sheet.wait_for(state="hidden")
    second = await check_playing(page)
    assert second["code"] == first["code"] == code
    ids = lambda s: sorted((p["id"], p["seat"]) for p in s["players"])  # noqa: E731
    assert ids(second) == ids(first)
    assert any(line.startswith("Ana started a new game of Gin Rummy") for line in second["log"])
    await settled(page)
    await shot(page, f"quickplay-again-{device}")


async def test_a_spectator_of_a_finished_game_waits_for_the_host(server, pages):
    a = await pages.open("/?name=Ana", viewport=DESKTOP)
    code = await one_click_gin(a, named=True)
    b = await pages.open(f"/r/{code}?name=Eve", viewport=DESKTOP)
    await wait_js(b, "s.v >= 0 && s.conn === 'online' && s.game")
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(finished_game()))
    await b.locator("[data-testid=waiting-for-host]").wait_for()
    assert await b.locator("[data-testid=play-again]").count() == 0
    await b.locator("[data-testid=back-home]").wait_for()
    await a.click("[data-testid=play-again]")
    await wait_js(b, "s.game && !s.game.waiting && !s.game.outcome")
    await b.locator("[data-testid=game-sheet]").wait_for(state="hidden")
