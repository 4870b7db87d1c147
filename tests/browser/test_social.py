"""Playing with people in the browser: two pages go online, Ana challenges Ben from the lobby,
Ben accepts, both land seated in the new game room; then table chat, and Ana muting Ben. A table
made public from the host panel, listed in another page's lobby and joined from there; a
challenge's game options; an unanswered challenge expiring on both pages."""

from __future__ import annotations

import secrets

from tests.browser.conftest import (
    BROWSER_TESTS,
    Pages,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)
from tests.conftest import make_config, start_server

pytestmark = BROWSER_TESTS


async def go_online(page):
    await page.wait_for_selector("[data-testid=go-online]:text('Go online')")
    assert "can't challenge you" in (await page.text_content("[data-testid=online-hint]"))
    await page.click("[data-testid=go-online]")
    await page.wait_for_selector("[data-testid=go-online]:text('Go offline')")


async def test_challenge_accept_then_chat_and_mute(pages):
    a = await pages.open("/?name=Ana")
    b = await pages.open("/?name=Ben")
    await go_online(a)
    await go_online(b)

    # Ana searches for Ben (a name prefix, any case) and challenges him to Gin Rummy.
    await a.fill("[data-testid=lobby-search]", "be")
    ben = a.locator("[data-testid=lobby-player]", has_text="Ben")
    await ben.wait_for()
    # Ben is a favourite of Ana's: a heart by his name here and, later, in the room.
    await ben.locator("[data-testid=favourite-player]").click()
    await ben.locator("[data-testid=fav-heart]:visible").wait_for()
    await a.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
    await a.select_option("[data-testid=challenge-game]", "gin_rummy")
    await settled(a)
    await shot(a, "lobby")
    await ben.locator("[data-testid=challenge-player]").click()
    status = a.locator("[data-testid=challenge-status]", has_text="waiting for their response")
    await status.wait_for()

    invite = b.locator("[data-testid=challenged]")
    await invite.wait_for()
    assert "Ana has challenged you to a game!" in (await invite.text_content())
    await settled(b)
    await shot(b, "challenged")
    await invite.locator("[data-testid=challenge-accept]").click()

    code_a = await enter_room(a)
    code_b = await enter_room(b)
    assert code_a == code_b
    sa, sb = await dump(a), await dump(b)
    assert sa["me"]["seat"] == 0 and sb["me"]["seat"] == 1
    assert sa["game"] is not None
    await a.locator("[data-testid=seat-1] [data-testid=fav-heart]").wait_for()
    assert await b.locator("[data-testid=seat-0] [data-testid=fav-heart]").count() == 0

    # Ben says something; it shows on Ana's page as text (markup stays text).
    line = "hi Ana <b>bold?</b>"
    await b.fill("[data-testid=chat-input]", line)
    await b.press("[data-testid=chat-input]", "Enter")
    on_a = a.locator("[data-testid=chat-line]", has_text="hi Ana")
    await on_a.wait_for()
    assert await on_a.locator("[data-testid=chat-text]").text_content() == line
    assert await on_a.locator("[data-testid=chat-name]").text_content() == "Ben"
    assert await a.locator("[data-testid=chat-line] b").count() == 0
    await settled(a)
    await shot(a, "chat")

    # Ana mutes Ben: his line disappears from her page, and his next one never shows.
    await on_a.locator("[data-testid=chat-mute]").click()
    await on_a.wait_for(state="hidden")
    await b.fill("[data-testid=chat-input]", "second line from Ben")
    await b.press("[data-testid=chat-input]", "Enter")
    await b.locator("[data-testid=chat-line]", has_text="second line from Ben").wait_for()
    # A line Ana sends after Ben's: once it is on her page, Ben's would have been too.
    await a.fill("[data-testid=chat-input]", "marker from Ana")
    await a.press("[data-testid=chat-input]", "Enter")
    await a.locator("[data-testid=chat-line]", has_text="marker from Ana").wait_for()
    assert await a.locator("[data-testid=chat-line]", has_text="second line from Ben").count() == 0
    # Ben still sees Ana's line: muting is one-way.
    await b.locator("[data-testid=chat-line]", has_text="marker from Ana").wait_for()


async def test_block_stops_challenges_and_warns_before_joining_their_table(pages):
    a = await pages.open("/?name=Ana")
    b = await pages.open("/?name=Ben")
    await go_online(a)
    await go_online(b)

    # Ana blocks Ben from the lobby (the block is kept for her identity, whatever his name).
    ben = a.locator("[data-testid=lobby-player]", has_text="Ben")
    await ben.wait_for()
    await ben.locator("[data-testid=block-player]").click()
    await a.wait_for_selector(
        "[data-testid=lobby-player]:has-text('Ben') [data-testid=block-player][aria-pressed=true]"
    )

    # Ben can't challenge her: he is told so (not why: a block isn't announced to the blocked),
    # and no invitation reaches Ana.
    ana = b.locator("[data-testid=lobby-player]", has_text="Ana")
    await ana.wait_for()
    await b.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
    await b.select_option("[data-testid=challenge-game]", "gin_rummy")
    await ana.locator("[data-testid=challenge-player]").click()
    refused = b.locator("[data-testid=challenge-status].err")
    await refused.wait_for()
    assert (await refused.text_content()).strip() == "You can't challenge this player."
    assert await a.locator("[data-testid=challenged]").count() == 0

    # Ben sits at a free-play table; when Ana opens it she is warned first, and may go on.
    await b.click("[data-testid=create-room]")
    code = await enter_room(b)
    await a.goto(f"{pages.server.url}/r/{code}?name=Ana")
    warn = a.locator("[data-testid=confirm]")
    await warn.wait_for()
    assert "This table has a player that you have blocked, perhaps under another name." in (
        await warn.text_content()
    )
    await settled(a)
    await shot(a, "blocked-warning")
    await a.click("[data-testid=confirm-ok]")
    assert await enter_room(a) == code
    assert {p["name"] for p in (await dump(a))["players"]} == {"Ana", "Ben"}


async def test_a_public_table_is_listed_in_the_lobby_and_joined_from_there(pages):
    host = "Ana" + secrets.token_hex(3)
    a = await pages.open(f"/?name={host}")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.locator("[data-testid=public-state]", has_text="Not listed").wait_for()
    await a.click("[data-testid=host-public]")
    await a.locator("[data-testid=public-state]", has_text="Listed in the lobby").wait_for()
    assert (await dump(a))["public"] is True
    await settled(a)
    await shot(a, "host-public")

    # Ben, on the home page, sees it among the public tables and joins it.
    b = await pages.open("/?name=Ben")
    table = b.locator("[data-testid=public-table]", has_text=f"Free table with {host}")
    await table.wait_for()
    assert "seat" in (await table.text_content())
    await settled(b)
    await shot(b, "lobby-public-table")
    await table.locator("[data-testid=join-public]").click()
    assert await enter_room(b) == code
    assert {p["name"] for p in (await dump(b))["players"]} == {host, "Ben"}

    # Unlisted, it leaves the lobby (a fresh page's first list no longer has it).
    await a.click("[data-testid=host-private]")
    await a.locator("[data-testid=public-state]", has_text="Not listed").wait_for()
    c = await pages.open("/?name=Cy")
    await c.locator("[data-testid=lobby-tables][data-loaded=true]").wait_for()
    assert await c.locator("[data-testid=public-table]", has_text=f"with {host}").count() == 0


async def test_a_challenge_carries_the_games_options(pages):
    a = await pages.open("/?name=Ana")
    b = await pages.open("/?name=Ben")
    await go_online(a)
    await go_online(b)
    await a.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
    await a.select_option("[data-testid=challenge-game]", "gin_rummy")
    await a.click("[data-testid=challenge-options-open]")
    await a.select_option("[data-testid=challenge-opt-target]", "250")
    ben = a.locator("[data-testid=lobby-player]", has_text="Ben")
    await ben.locator("[data-testid=challenge-player]").click()
    invite = b.locator("[data-testid=challenged]")
    await invite.wait_for()
    assert "Target: 250" in await invite.locator("[data-testid=challenged-game]").text_content()
    await invite.locator("[data-testid=challenge-accept]").click()
    await enter_room(a)
    await wait_js(a, "s.game !== null")
    assert (await dump(a))["game"]["options"]["target"] == 250


async def test_an_unanswered_challenge_expires_on_both_pages(browser, redis_server):
    srv = await start_server(make_config(redis_server.url, challenge_seconds=1.0))
    own = Pages(browser, srv)
    try:
        a = await own.open("/?name=Ana")
        b = await own.open("/?name=Ben")
        await go_online(a)
        await go_online(b)
        await a.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
        ben = a.locator("[data-testid=lobby-player]", has_text="Ben")
        await ben.locator("[data-testid=challenge-player]").click()
        await b.locator("[data-testid=challenged]").wait_for()
        await a.locator(
            "[data-testid=challenge-status]",
            has_text="didn't answer in time: the challenge expired",
        ).wait_for()
        await b.locator("[data-testid=challenged]").wait_for(state="detached")
        assert "The challenge from Ana expired." in (
            await b.locator("[data-testid=challenge-status]").text_content()
        )
        await settled(a)
        await shot(a, "challenge-expired")
    finally:
        await own.close()
        await srv.stop()
    assert not own.errors, own.errors


async def test_a_list_refresh_between_press_and_release_keeps_the_click(pages):
    """The lobby redraws its lists whenever the server sends them (every few seconds). A redraw
    that lands while a button is held down must not eat the click: the button that was pressed
    is still the one released on (this was a flake: Ben's Challenge now and then did nothing)."""
    a = await pages.open("/?name=Ana")
    b = await pages.open("/?name=Ben")
    await go_online(a)
    await go_online(b)
    ana = b.locator("[data-testid=lobby-player]", has_text="Ana")
    await ana.wait_for()
    await b.wait_for_selector("[data-testid=challenge-game][data-loaded=true]")
    await b.select_option("[data-testid=challenge-game]", "gin_rummy")

    button = await ana.locator("[data-testid=challenge-player]").bounding_box()
    assert button is not None
    await b.mouse.move(button["x"] + button["width"] / 2, button["y"] + button["height"] / 2)
    await b.mouse.down()
    # The server's next list arrives and is drawn while the button is down.
    await b.evaluate(
        """() => {
            delete document.querySelector('[data-testid=lobby-tables]').dataset.loaded;
            document.querySelector('[data-testid=lobby-search]')
                .dispatchEvent(new Event('input', {bubbles: true}));
        }"""
    )
    await b.wait_for_selector("[data-testid=lobby-tables][data-loaded=true]")
    await b.mouse.up()

    waiting = b.locator("[data-testid=challenge-status]", has_text="waiting for their response")
    await waiting.wait_for()
    await a.locator("[data-testid=challenged]", has_text="Ben has challenged you").wait_for()
