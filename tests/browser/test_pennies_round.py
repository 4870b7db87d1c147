"""A Pennies round in the browser, played by a person against a computer to the score sheet:
the computer opens the round by declining the upcard, so Ana is offered it in a buying window
(a Buy / No thanks prompt with a countdown); she buys it (a penny goes from her chips to the
spent pile), buys the computer's discard on her own turn, lays down the round's first meld (two
sets) by dropping selected cards on "New meld", adds two more sets, lays off onto one and goes
out by discarding the card she bought last. The round's sheet is checked against the engine.
"""

from __future__ import annotations

import time
from typing import Any

from plugins.pennies.rules import ENGINE, PenniesState, card_points, full_deck
from server.net.http import ROOMS_KEY
from tests.browser.conftest import (
    BROWSER_TESTS,
    center,
    drag,
    dump,
    enter_room,
    settled,
    shot,
    wait_js,
)

pytestmark = BROWSER_TESTS

SEED = 0  # Ana (player 0) deals round 1, so the computer (player 1) moves first
BUY_SECONDS = 20
FIVES = ["C5", "D5", "H5", "S5"]
NINES = ["C9", "D9", "H9", "S9"]
KINGS = ["C13", "D13", "H13"]
HAND_ANA = [*FIVES, "C9", "D9", "H9", *KINGS, "D12"]
# The computer holds no two sets of 3 (no jokers, no rank three times), so it cannot meld.
HAND_BOT = ["C1", "D2", "H3", "S4", "C6", "D7", "H8", "S10", "C11", "D12", "H13"]
UPCARD = "S9"  # offered to Ana; she buys it with the next two stock cards
BOT_DRAW = "S2"
BUY_DRAWS = ["S13", "J1"]
# Her second buy, on her own turn: the computer's discard (whatever it is, she discards it
# again to go out) and these two stock cards, which make a set of queens with her D12.
TURN_DRAWS = ["J2", "H12"]
QUEENS = ["D12", "H12", "J2"]


def offered_position() -> Any:
    """Round 1 from a stacked deck, after the computer's first move: it declined the upcard
    and drew, so the 9 of spades is offered to Ana."""
    order = [c for pair in zip(HAND_BOT, HAND_ANA, strict=True) for c in pair]
    order += [UPCARD, BOT_DRAW, *BUY_DRAWS, *TURN_DRAWS]
    rest = full_deck(2)
    for c in order:
        rest.remove(c)
    state = ENGINE.new_game(2, {"buy_seconds": BUY_SECONDS}, SEED, deck=[*order, *rest])
    assert state.dealer == 0 and state.turn == 1 and state.discard == (UPCARD,)
    after = ENGINE.apply(state, 1, {"type": "decline"})
    assert isinstance(after, PenniesState) and after.phase == "offer"
    assert after.offer is not None and after.offer.player == 0 and after.offer.card == UPCARD
    assert ENGINE.legal_actions(after, 1) == []
    return after


def hand_card(face: str) -> str:
    return f"[data-testid=card][data-where=hand][data-face='{face}']"


async def chips(page: Any, oid: str) -> int:
    return int(next(o for o in (await dump(page))["objects"] if o["id"] == oid)["count"])


async def drop_on(page: Any, faces: list[str], target: str) -> None:
    """Ctrl-click ``faces`` in the hand, then drag them together onto ``target``."""
    await wait_js(page, "s.pending.length === 0")
    await page.evaluate("() => window.__cardtable.state.selected.clear()")
    for face in faces:
        await page.click(hand_card(face), modifiers=["Control"])
    await wait_js(page, "s.selected.length === arg", len(faces))
    await drag(page, await center(page, hand_card(faces[0])), await center(page, target))


async def meld_of(page: Any, rank: int) -> int:
    """Index of Ana's set of ``rank`` on the table."""
    melds = (await dump(page))["game"]["view"]["melds"][0]
    return next(i for i, m in enumerate(melds) if m["rank"] == rank)


async def test_ana_buys_in_the_window_melds_and_goes_out(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=pennies]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "pennies")
    await a.select_option("[data-testid=opt-buy_seconds]", str(BUY_SECONDS))
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=host-start]").wait_for()
    await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 2")
    assert (await dump(a))["game"]["me"] == 0

    position = offered_position()
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(position))
    await wait_js(
        a,
        "s.game.phase === 'offer' && s.game.view.buy_window && "
        "s.game.view.buy_window.player === 0 && s.game.view.buy_window.card === arg[0]"
        " && s.game.view.hand.join() === arg[1]",
        [UPCARD, ",".join(position.hands[0])],
    )
    await settled(a)  # the page draws the new state on its next frame

    # The contract label on the table, the chips at Ana's place and the empty spent pile.
    contract = a.locator("[data-id=contract]")
    assert (await contract.text_content() or "").strip() == "Round 1: two sets of 3; wild: jokers"
    assert await contract.is_visible()
    assert await chips(a, "pennies0") == 10 and await chips(a, "spent") == 0
    assert await a.locator("[data-id=pennies0] [data-testid=chips-count]").text_content() == "10"

    # The buying window: a question, Buy / No thanks, and a running countdown.
    prompt = a.locator("[data-testid=game-prompt]")
    await prompt.locator("[data-testid=game-prompt-question]", has_text="9 of spades").wait_for()
    assert (
        await prompt.locator("[data-testid=game-prompt-question]").text_content()
        == "Buy the 9 of spades for a penny?"
    )
    buttons = prompt.locator("[data-testid=game-prompt-button]")
    assert await buttons.all_text_contents() == ["Buy", "No thanks"]
    timer = (await dump(a))["game"]["timer"]
    assert timer["seconds"] == BUY_SECONDS
    assert 0 < timer["ends"] - time.time() <= BUY_SECONDS + 1
    countdown = prompt.locator("[data-testid=game-prompt-timer]")
    await countdown.wait_for()
    shown = (await countdown.locator(".timer-text").text_content() or "").strip()
    assert shown.endswith(" s") and 0 < int(shown[:-2]) <= BUY_SECONDS, shown
    assert await a.locator("[data-testid=game-timer]").is_visible()
    await settled(a)
    await shot(a, "pennies-buy")

    await buttons.filter(has_text="Buy").click()
    await wait_js(a, "s.game.view.hand.length === 14 && s.game.view.pennies[0] === 9")
    await prompt.wait_for(state="hidden")
    assert (await dump(a))["game"]["timer"] is None
    hand = (await dump(a))["game"]["view"]["hand"]
    assert all(c in hand for c in [UPCARD, *BUY_DRAWS])
    await wait_js(
        a,
        "s.objects.some(o => o.id === 'pennies0' && o.count === 9) && "
        "s.objects.some(o => o.id === 'spent' && o.count === 1)",
    )
    await settled(a)
    assert await a.locator("[data-id=spent] [data-testid=chips-count]").text_content() == "1"

    # The computer finishes its turn (it cannot meld, so it discards); on hers Ana buys that
    # discard too: a second penny goes to the spent pile.
    await wait_js(
        a,
        "s.game.phase === 'buy' && s.game.view.turn === 0 && "
        "s.game.controls.some(c => c.action.type === 'buy')",
        timeout=15_000,
    )
    bought = (await dump(a))["game"]["view"]["discard_top"]
    assert (await dump(a))["game"]["timer"] is None
    await prompt.locator("[data-testid=game-prompt-button][data-type=buy]").click()
    await wait_js(
        a,
        "s.game.phase === 'play' && s.game.view.hand.length === 17 && "
        "s.objects.some(o => o.id === 'pennies0' && o.count === 8) && "
        "s.objects.some(o => o.id === 'spent' && o.count === 2)",
    )
    hand = (await dump(a))["game"]["view"]["hand"]
    assert all(c in hand for c in [bought, *TURN_DRAWS])

    # The first meld: two sets dropped together on "New meld"; then two more sets.
    await drop_on(a, [*FIVES, *NINES], "[data-id=newmeld]")
    await wait_js(a, "s.game.view.opened[0] && s.game.view.melds[0].length === 2")
    await drop_on(a, KINGS, "[data-id=newmeld]")
    await wait_js(a, "s.game.view.melds[0].length === 3")
    await drop_on(a, QUEENS, "[data-id=newmeld]")
    await wait_js(a, "s.game.view.melds[0].length === 4")
    # A lay-off: the fourth king and a joker dropped together on the kings.
    kings = await meld_of(a, 13)
    await drop_on(a, BUY_DRAWS, f"[data-id=m0x{kings}]")
    await wait_js(a, "s.game.view.melds[0][arg].cards.length === 5", kings)
    assert (await dump(a))["game"]["view"]["hand"] == [bought]
    await drop_on(a, [bought], "[data-id=discard]")
    await wait_js(a, "s.game.phase === 'round_over' && !!s.game.reveal")

    # The engine's result for what the server now holds.
    table = await server.app[ROOMS_KEY].load_table(code)
    state = ENGINE.load(table.game.state)
    assert state.phase == "round_over"
    result = state.history[-1]
    assert result.went_out == 0 and result.points[0] == 0 and result.paid[0] == 0
    left = state.hands[1]
    assert result.points[1] == sum(card_points(c) for c in left) > 0
    assert len(left) == 11 and state.bought == ((UPCARD, bought), ())
    # Eleven cards left but only ten pennies: all ten are paid, one is owed.
    assert result.paid[1] == 10 and result.shortfall[1] == 1 and state.pennies == (8, 0)
    assert state.spent == 2 + result.paid[1] == 12
    assert [sorted(m.cards) for m in state.melds[0]] == [
        sorted(FIVES),
        sorted(NINES),
        sorted([*KINGS, *BUY_DRAWS]),
        sorted(QUEENS),
    ]

    # The sheet: the round's row (points, pennies paid), the reveal, the chips.
    sheet = a.locator("[data-testid=game-sheet]")
    await sheet.wait_for()
    assert (
        await sheet.locator("[data-testid=sheet-status]").text_content()
        == "Round 1 over: Ana went out"
    )
    cells = await sheet.locator("[data-testid=score-row]").first.locator("td").all_text_contents()
    assert cells == ["Round 1", "0 (out)", f"{result.points[1]} (paid 10, 1 short)"]
    assert await sheet.locator("[data-testid=score-row]").count() == 1
    assert await sheet.locator("[data-testid=score-total-1]").text_content() == str(
        result.points[1]
    )
    assert (
        await sheet.locator("[data-testid=scoreboard-note]").text_content()
        == f"Round 1 of 7; lowest total wins; spent pile: {state.spent}"
    )
    assert (
        await sheet.locator("[data-testid=reveal-note-1]").text_content()
        == "paid 10 pennies, 1 short"
    )
    assert await sheet.locator("[data-testid=reveal-note-0]").text_content() == "went out"
    assert await sheet.locator("[data-testid=reveal-points-1]").text_content() == str(
        result.points[1]
    )
    bot = sheet.locator("[data-testid=reveal-player-1] .dead-group [data-face]")
    assert sorted(await bot.evaluate_all("els => els.map(e => e.dataset.face)")) == sorted(left)
    assert await sheet.locator("[data-testid=reveal-player-0] .meld-group").count() == 4
    await wait_js(
        a,
        "s.objects.some(o => o.id === 'spent' && o.count === arg[0]) && "
        "s.objects.some(o => o.id === 'pennies1' && o.count === arg[1])",
        [state.spent, state.pennies[1]],
    )
    await settled(a)
    await shot(a, "pennies-score")


# The rank chooser: in a round where 2s and aces are wild, a 2, an ace and a joker dropped on
# "New meld" could be a set of 2s or of aces; the page asks, and the set is the rank chosen.
WILD_2S_ACES = {"first_meld": [3], "wild": ["joker", "2", "ace"]}
HAND_NAMING = ["H2", "S1", "J1", "C7", "D8", "H10", "S11", "C12", "D13", "H3", "S4"]
BOT_NAMING = ["C6", "D7", "H8", "S9", "C10", "D11", "H12", "S13", "C3", "D4", "H6"]


def naming_position() -> Any:
    """Round 1 with 2s and aces wild: the computer declined the upcard, Ana passed on it, the
    computer discarded, and Ana declined its discard and drew: she is to meld or discard."""
    order = [c for pair in zip(BOT_NAMING, HAND_NAMING, strict=True) for c in pair]
    order += ["D9", "C5", "D5"]  # the upcard, the computer's draw, Ana's draw
    rest = full_deck(2)
    for c in order:
        rest.remove(c)
    chart = [WILD_2S_ACES, *ENGINE.info.resolve_options({})["chart"][1:]]
    state: Any = ENGINE.new_game(2, {"chart": chart}, SEED, deck=[*order, *rest])
    for player, action in [
        (1, {"type": "decline"}),
        (0, {"type": "pass"}),
        (1, {"type": "discard", "card": "C10"}),
        (0, {"type": "decline"}),
    ]:
        state = ENGINE.apply(state, player, action)
        assert isinstance(state, PenniesState), state
    assert state.phase == "play" and state.turn == 0 and len(state.hands[0]) == 12
    return state


async def test_ana_names_the_rank_of_a_set_that_could_be_two(pages, server):
    a = await pages.open("/?name=Ana")
    await a.locator("[data-testid=game-select] option[value=pennies]").wait_for(state="attached")
    await a.select_option("[data-testid=game-select]", "pennies")
    await a.click("[data-testid=create-room]")
    code = await enter_room(a)
    await a.click("[data-testid=bot-1]")
    await a.locator("[data-testid=host-start]").wait_for()
    await a.click("[data-testid=host-start]")
    await wait_js(a, "s.game && !s.game.waiting && s.game.players.length === 2")
    position = naming_position()
    await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(position))
    await wait_js(
        a, "s.game.phase === 'play' && s.game.view.hand.join() === arg", ",".join(position.hands[0])
    )
    await settled(a)

    await drop_on(a, ["H2", "S1", "J1"], "[data-id=newmeld]")
    chooser = a.locator("[data-testid=rank-chooser]")
    await chooser.wait_for()
    assert await chooser.locator("[data-testid=rank-choice]").all_text_contents() == [
        "Set of aces",
        "Set of 2s",
    ]
    assert "could be a set of aces or of 2s" in (await chooser.text_content() or "")
    assert (await dump(a))["game"]["view"]["melds"][0] == []  # nothing sent yet
    await settled(a)
    await shot(a, "pennies-rank-chooser")
    await chooser.locator("[data-testid=rank-choice][data-rank='1']").click()
    await wait_js(a, "s.game.view.melds[0].length === 1 && s.game.view.melds[0][0].rank === 1")
    await chooser.wait_for(state="hidden")
    table = await server.app[ROOMS_KEY].load_table(code)
    state = ENGINE.load(table.game.state)
    assert state.melds[0][0].rank == 1 and sorted(state.melds[0][0].cards) == ["H2", "J1", "S1"]
