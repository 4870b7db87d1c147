"""Manners in the room (issue 22 items 3 and 4), two people in two browser contexts: Ana mutes
Ben from the players panel (a toast says so, with Undo; his next line never shows), undoes it;
favourite and block are exclusive; the blocked-player warning's default is "Don't join". Chat
apart from the moves: each in its own list, in the order said after a reload, two tabs on a
phone; a new line from someone else is announced politely; a link stays plain text."""

from __future__ import annotations

from tests.browser.conftest import (
    BROWSER_TESTS,
    create_and_join,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

PEOPLE = "[data-testid=seats] li, [data-testid=spectators] li"


async def say(page, text: str) -> None:
    await page.fill("[data-testid=chat-input]", text)
    await page.press("[data-testid=chat-input]", "Enter")
    await page.locator("[data-testid=chat-line]", has_text=text).wait_for(state="attached")


async def test_mute_undo_favourite_block_from_the_players_panel(pages):
    a, b, code = await create_and_join(pages)
    ben = a.locator(PEOPLE, has_text="Ben")
    mute = ben.locator("[data-testid=mute-player]")
    await mute.wait_for()
    # Nobody gets toggles for themselves.
    assert await a.locator(PEOPLE, has_text="Ana").locator("[data-testid=mute-player]").count() == 0

    await say(b, "one from Ben")
    first = a.locator("[data-testid=chat-line]", has_text="one from Ben")
    await first.wait_for()
    # Announced to Ana's screen reader (politely), not to Ben's: he said it.
    await a.locator("[data-testid=live-chat] p", has_text="Ben says: one from Ben").wait_for(
        state="attached"
    )
    assert await a.get_attribute("[data-testid=live-chat]", "aria-live") == "polite"
    assert "one from Ben" not in (await b.locator("[data-testid=live-chat]").text_content())

    # Ana mutes Ben from the panel: a toast says what it did; his line goes, his next never comes.
    await mute.click()
    toast = a.locator("[data-testid=toast]", has_text="Ben is muted: you won't see their chat.")
    await toast.wait_for()
    await ben.locator("[data-testid=mute-player][aria-pressed=true]").wait_for()
    await first.wait_for(state="hidden")
    await settled(a)
    await shot(a, "manners-muted")
    await say(b, "two from Ben")
    await say(a, "marker from Ana")
    assert await a.locator("[data-testid=chat-line]", has_text="two from Ben").count() == 0

    # Undo: unmuted, his old line shows again and so does his next.
    await toast.locator("[data-testid=undo-mute]").click()
    await ben.locator("[data-testid=mute-player][aria-pressed=false]").wait_for()
    await first.wait_for()
    await say(b, "three from Ben")
    await a.locator("[data-testid=chat-line]", has_text="three from Ben").wait_for()

    # Favourite, then block: one clears the other (the server's lists, shown in the panel).
    await ben.locator("[data-testid=favourite-player]").click()
    await ben.locator("[data-testid=favourite-player][aria-pressed=true]").wait_for()
    await ben.locator("[data-testid=fav-heart]").wait_for()
    await ben.locator("[data-testid=block-player]").click()
    await ben.locator("[data-testid=block-player][aria-pressed=true]").wait_for()
    await ben.locator("[data-testid=favourite-player][aria-pressed=false]").wait_for()
    assert await ben.locator("[data-testid=fav-heart]").count() == 0
    await settled(a)
    await shot(a, "manners-blocked")
    await ben.locator("[data-testid=favourite-player]").click()
    await ben.locator("[data-testid=block-player][aria-pressed=false]").wait_for()
    await ben.locator("[data-testid=favourite-player][aria-pressed=true]").wait_for()

    # Blocked again, Ana going to another table of Ben's is warned; the default is not to join.
    await ben.locator("[data-testid=block-player]").click()
    await ben.locator("[data-testid=block-player][aria-pressed=true]").wait_for()
    await b.goto(f"{pages.server.url}/?name=Ben")
    await b.click("[data-testid=create-room]")
    other = await enter_room(b)
    await a.goto(f"{pages.server.url}/r/{other}?name=Ana")
    warn = a.locator("[data-testid=confirm]")
    await warn.wait_for()
    focused = a.locator("[data-testid=confirm] :focus")
    assert await focused.get_attribute("data-testid") == "confirm-cancel"
    assert (await focused.text_content()) == "Don't join"
    await settled(a)
    await shot(a, "manners-blocked-warning")
    await a.keyboard.press("Enter")
    await a.wait_for_url(f"{pages.server.url}/")


async def lines(page, testid: str) -> list[str]:
    return await page.locator(f"[data-testid={testid}] > li").evaluate_all(
        "els => els.filter(e => !e.hidden).map(e => e.textContent)"
    )


async def test_chat_and_moves_keep_their_order_after_a_reload(pages):
    a, b, code = await create_and_join(pages)
    flip = "() => window.__cardtable.room.send({op: 'flip', id: 'deck'})"
    await a.evaluate(flip)
    await wait_js(a, "s.pending.length === 0 && s.log.filter(l => l.includes('flip')).length === 1")
    await say(b, "chat one")
    await a.locator("[data-testid=chat-line]", has_text="chat one").wait_for(state="attached")
    await a.evaluate(flip)
    await wait_js(a, "s.pending.length === 0 && s.log.filter(l => l.includes('flip')).length === 2")
    await say(a, "chat two")
    before_moves = await lines(a, "log")
    assert sum("flip" in m for m in before_moves) == 2

    await a.reload()
    assert await enter_room(a) == code
    await a.locator("[data-testid=chat-line]", has_text="chat two").wait_for()
    await wait_js(a, "s.log.filter(l => l.includes('flip')).length === 2")
    await settled(a)
    chat = await a.locator("[data-testid=chat-log] > li").evaluate_all(
        "els => els.map(e => e.querySelector('[data-testid=chat-name]').textContent + ': '"
        " + e.querySelector('[data-testid=chat-text]').textContent)"
    )
    assert chat == ["Ben: chat one", "Ana: chat two"], chat
    moves = await lines(a, "log")
    assert not any("chat" in m for m in moves), moves
    assert [m for m in moves if "flip" in m] == [m for m in before_moves if "flip" in m]
    await shot(a, "manners-chat-after-reload")

    # On a phone the panel is a drawer with two tabs, the chat's first; a line said while the
    # moves show is counted on the Chat tab.
    phone = await pages.open(f"/r/{code}?name=Cy", viewport=(390, 844))
    await enter_room(phone)
    await phone.click("[data-testid=panel-toggle]")
    await phone.locator("[data-testid=tab-chat][aria-selected=true]").wait_for()
    await phone.locator("[data-testid=chat-line]", has_text="chat one").wait_for()
    assert await phone.locator("[data-testid=log]").is_hidden()
    await settled(phone)
    await shot(phone, "manners-phone-chat")
    await phone.click("[data-testid=tab-moves]")
    await phone.locator("[data-testid=log]").wait_for()
    assert await phone.locator("[data-testid=chat-log]").is_hidden()
    await say(b, "chat three")
    await phone.locator("[data-testid=chat-unread]", has_text="(1)").wait_for()
    await settled(phone)
    await shot(phone, "manners-phone-moves")
    await phone.click("[data-testid=tab-chat]")
    await phone.locator("[data-testid=chat-line]", has_text="chat three").wait_for()
    assert await phone.locator("[data-testid=chat-unread]").is_hidden()

    # A link is plain text: nothing to click, no markup.
    link = "see https://example.com/?q=<i>x</i> now"
    await say(b, link)
    said = phone.locator("[data-testid=chat-line]", has_text="see https://example.com")
    await said.wait_for()
    assert await said.locator("[data-testid=chat-text]").text_content() == link
    assert await phone.locator("[data-testid=chat-log] a, [data-testid=chat-log] i").count() == 0
