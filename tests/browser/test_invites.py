"""Invite and rematch (issue 22 item 5), with two browser contexts: Ana, at her table, invites
Ben (a favourite, online) from the players panel's "Invite…"; the invitation reaches him on the
home page (desktop) or as a toast in another room on a phone, and accepting lands him at her
table. After a Gin game, Ben's "Rematch in a new room" makes a fresh room and invites Ana; she
accepts from the toast and they meet there (screenshots saved: look at them)."""

from __future__ import annotations

import random
import re
import secrets
from typing import Any

import aiohttp
import pytest

from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from server.net.http import ROOMS_KEY
from tests.browser.conftest import BROWSER_TESTS, dump, enter_room, settled, shot, wait_js
from tests.browser.test_social import go_online

pytestmark = BROWSER_TESTS

PHONE = {"viewport": (390, 844), "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


async def rule_room(url: str, game: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/rooms", json={"game": game}) as resp,
    ):
        return str((await resp.json())["code"])


def finished_gin() -> Any:
    """A Gin Rummy game the computer played to its end on both sides."""
    rng = random.Random(5)
    state = ENGINE.new_game(2, {}, 5)
    while ENGINE.outcome(state) is None:
        player = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, player, choose_action(ENGINE, state, player, rng))
    return state


@pytest.mark.parametrize("form", ["desktop", "phone"])
async def test_a_favourite_is_invited_to_the_table_and_lands_in_a_free_seat(server, pages, form):
    ana_name, ben_name = "Ana" + secrets.token_hex(3), "Ben" + secrets.token_hex(3)
    b = await pages.open(f"/?name={ben_name}", **(PHONE if form == "phone" else {}))
    await go_online(b)
    a = await pages.open(f"/?name={ana_name}")
    await go_online(a)
    await a.fill("[data-testid=lobby-search]", ben_name)
    ben = a.locator("[data-testid=lobby-player]", has_text=ben_name)
    await ben.locator("[data-testid=favourite-player]").click()
    await ben.locator("[data-testid=favourite-player][aria-pressed=true]").wait_for()

    code = await rule_room(server.url, "pennies")
    await a.goto(f"{server.url}/r/{code}?seat=0")
    await enter_room(a)
    if form == "phone":  # Ben is at another table, on his phone
        elsewhere = await rule_room(server.url, "gin_rummy")
        await b.goto(f"{server.url}/r/{elsewhere}?seat=0")
        await enter_room(b)

    await a.click("[data-testid=invite-open]")
    choice = a.locator("[data-testid=context-menu] [role=menuitem]", has_text=ben_name)
    await choice.wait_for()
    await settled(a)
    await shot(a, f"invite-menu-{form}")
    await choice.click()
    await a.locator(".toast", has_text=f"Invited {ben_name} to this table").wait_for()

    if form == "phone":
        toast = b.locator("[data-testid=challenge-toast]")
        await toast.wait_for()
        assert f"{ana_name} invites you to their table (Pennies)" in (await toast.text_content())
        await b.wait_for_function("document.title.startsWith('(1) Challenge — ')")
        await settled(b)
        await shot(b, "invite-toast-phone")
        await toast.locator("[data-testid=challenge-accept]").click()
    else:
        card = b.locator("[data-testid=challenged]")
        await card.wait_for()
        assert f"{ana_name} invites you to their table!" in (await card.text_content())
        await settled(b)
        await shot(b, "invite-home-desktop")
        await card.locator("[data-testid=challenge-accept]").click()

    await b.wait_for_url(f"**/r/{code}?seat=1")
    assert await enter_room(b) == code
    await wait_js(b, "s.me.seat === 1")
    await a.locator(".toast", has_text=f"{ben_name} accepted your invitation").wait_for()
    await wait_js(a, "s.players.some(p => p.seat === 1 && !p.bot)")
    await settled(b)
    await shot(b, f"invite-landed-{form}")


async def test_rematch_after_a_rule_game_invites_the_same_people_to_a_new_room(server, pages):
    code = await rule_room(server.url, "gin_rummy")
    a = await pages.open(f"/r/{code}?name=Ana&seat=0")
    await enter_room(a)
    b = await pages.open(f"/r/{code}?name=Ben&seat=1")
    await enter_room(b)
    await wait_js(a, "s.game && !s.game.waiting")
    over = await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(finished_gin()))
    for page in (a, b):
        await wait_js(page, "s.v >= arg && s.game.outcome", over.version)
    # The host has both, labelled apart; Ben (not the host) has Rematch beside the wait.
    assert "new room" in (await a.locator("[data-testid=rematch]").text_content())
    await a.locator("[data-testid=play-again]").wait_for()
    await b.locator("[data-testid=waiting-for-host]").wait_for()
    rematch = b.locator("[data-testid=rematch]")
    await rematch.wait_for()
    await settled(b)
    await shot(b, "rematch-summary")
    await rematch.click()

    await b.wait_for_url(re.compile(rf"/r/(?!{code})[A-Z0-9]{{8,10}}\?seat=1$"))
    new = await enter_room(b)
    assert new != code
    await b.locator(".toast", has_text="Rematch: invited Ana.").wait_for()
    await wait_js(b, "s.me.seat === 1 && s.game && s.game.name === 'gin_rummy'")
    toast = a.locator("[data-testid=challenge-toast]")
    await toast.wait_for()
    assert "Ben invites you to their table (Gin rummy)" in (await toast.text_content())
    await settled(a)
    await shot(a, "rematch-toast")
    await toast.locator("[data-testid=challenge-accept]").click()
    await a.wait_for_url(f"**/r/{new}?seat=0")
    assert await enter_room(a) == new
    await wait_js(a, "s.me.seat === 0")
    await wait_js(b, "s.players.some(p => p.seat === 0 && p.name === 'Ana')")
    s = await dump(b)
    assert s["game"]["name"] == "gin_rummy"
