"""The host's controls in the players panel: lock and unlock the room, play a game from the
server's list (with its options) and turn the rules off again, remove a player, seat a computer
player; badges everyone sees."""

from __future__ import annotations

from tests.browser.conftest import (
    BROWSER_TESTS,
    create_and_join,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS


async def test_host_controls(pages):
    a, b, code = await create_and_join(pages)
    # Only the host (Ana, who created the room) has the controls.
    await a.locator("[data-testid=host-controls]").wait_for()
    assert await b.locator("[data-testid=host-controls]").is_hidden()
    assert await b.locator("[data-testid=remove-player]").count() == 0

    # Lock: everyone sees it, and a newcomer is turned away with the reason.
    await a.click("[data-testid=host-lock]")
    await b.locator("[data-testid=room-locked]").wait_for()
    await a.locator("[data-testid=room-state]", has_text="Room locked").wait_for()
    cy = await pages.open(f"/r/{code}?name=Cy")
    screen = cy.locator("[data-testid=screen-locked]")
    await screen.wait_for()
    assert "locked this room" in await screen.text_content()
    await a.click("[data-testid=host-unlock]")
    await b.locator("[data-testid=room-locked]").wait_for(state="hidden")
    await wait_js(b, "s.locked === false")

    # A game chosen from the server's list, with options: the table is dealt afresh for seats 1
    # and 2.
    await a.click("[data-testid=host-rules-on]")
    choice = a.locator("[data-testid=confirm] [data-testid=game-choice]")
    await choice.wait_for()
    assert await choice.locator("option").count() == len(
        await (await a.request.get(f"{pages.server.url}/api/games")).json()
    )
    await choice.select_option("gin_rummy")
    await a.select_option("[data-testid=confirm] [data-testid=opt-target]", "500")
    await a.click("[data-testid=confirm-ok]")
    for p in (a, b):
        await p.locator("[data-testid=game-bar]").wait_for()
        await wait_js(
            p, "s.game && s.game.name === 'gin_rummy' && s.objects.some(o => o.id === 'stock')"
        )
    assert (await dump(b))["game"]["options"]["target"] == 500
    assert await a.locator("[data-testid=add-menu]").is_hidden()
    assert await a.locator("[data-testid=undo]").is_hidden()
    assert await a.locator("[data-testid=rules-state]").text_content() == "Rules: Gin Rummy"
    # Seats 3 and 4 don't play Gin: no computer player there.
    assert await a.locator("[data-testid=bot-2]").count() == 0

    # Remove Ben: his page says so; his seat is free for a computer player.
    await a.click("[data-testid=seat-1] [data-testid=remove-player]")
    await a.click("[data-testid=confirm-ok]")
    removed = b.locator("[data-testid=screen-removed]")
    await removed.wait_for()
    assert "host removed you" in (await removed.text_content()).lower()
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=seat-1] [data-testid=bot-badge]").wait_for()
    await wait_js(a, "s.players.some(p => p.bot && p.seat === 1)")
    await settled(a)
    await shot(a, "host-controls")

    # Rules off: free play again, the game bar goes away.
    await a.click("[data-testid=host-rules-off]")
    await a.click("[data-testid=confirm-ok]")
    await wait_js(a, "s.game === null && s.log.some(l => l.endsWith('free play'))")
    await a.locator("[data-testid=game-bar]").wait_for(state="hidden")
    # A card table is ready to play (issue 21): the Edit button brings the Add menu back.
    await a.click("[data-testid=edit-toggle]")
    await a.locator("[data-testid=add-menu]").wait_for()
    assert await a.locator("[data-testid=undo]").is_visible()
    await a.locator("[data-testid=host-rules-on]").wait_for()


async def test_computer_level_from_the_panel(pages):
    """The host's "Computer" button seats a computer at the level beside it: by default the one
    last chosen on the home page's quick play (localStorage), here changed to Hard."""
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=level-easy]").check()  # quick play's choice, remembered
    await a.locator("[data-testid=game-select] option[value=rummy]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "rummy")
    await a.click("[data-testid=create-room]")
    await enter_room(a)
    pick = a.locator("[data-testid=bot-level-1]")
    await pick.wait_for()
    assert await pick.input_value() == "easy", "the level last chosen on the home page"
    await pick.select_option("hard")
    await settled(a)
    await shot(a, "host-computer-level")
    await a.click("[data-testid=bot-1]")
    level = a.locator("[data-testid=seat-1] [data-testid=bot-level]")
    await level.wait_for()
    assert (await level.text_content()).strip() == "(hard)"
    await wait_js(a, "s.players.some(p => p.bot && p.seat === 1 && p.level === 'hard')")
    # The choice is remembered for the next seat (and quick play).
    assert await a.locator("[data-testid=bot-level-2]").input_value() == "hard"
    assert await a.evaluate("localStorage.getItem('cardtable:level')") == "hard"
