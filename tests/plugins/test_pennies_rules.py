"""Pennies engine: every numbered rule (1-11) and *ours* decision of shared/rules/pennies.md,
the round chart and its validator, rejections, views, text, load() and the bot."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from plugins import melds as shared_melds
from plugins.base import InvalidState, Outcome, Rejection, Scheduled
from plugins.cards import sort_key
from plugins.pennies import ENGINE, choose_action
from plugins.pennies.chart import (
    DEFAULT_CHART,
    check_chart,
    default_chart,
    requirement_text,
    wild_ranks,
)
from plugins.pennies.rules import (
    BUY,
    GAME_OVER,
    OFFER,
    PLAY,
    ROUND_OVER,
    Meld,
    PenniesState,
    RoundResult,
    card_points,
    find_opening,
    full_deck,
    lay_off_problem,
    meets,
    set_rank,
)
from plugins.simulate import simulate

NAMES = ["Ana", "Ben", "Cy", "Di"]
# Seeds whose first dealer is the last player, so player 0 moves first in round 1.
SEED = {2: 2, 3: 0, 4: 6}
JOKERS_WILD = frozenset({0})
ROUND3_WILD = frozenset({0, 2})  # jokers and 2s
ROUND5_WILD = frozenset({0, 1, 2})  # jokers, 2s and aces

# --------------------------------------------------------------------------------- helpers


def deal(
    players: int,
    hands: Sequence[Sequence[str]],
    upcard: str,
    stock: Sequence[str] = (),
    options: dict[str, Any] | None = None,
) -> PenniesState:
    """Round 1 with player ``p`` holding ``hands[p]`` (padded to 11 with clubs, which never
    form a set of their own: a set needs different suits or wild cards), ``upcard`` on the
    discard pile and ``stock`` on top of the stock. Player 0 moves first."""
    named = Counter([c for h in hands for c in h] + [upcard, *stock])
    rest = Counter(full_deck(players)) - named
    assert not named - Counter(full_deck(players)), "more copies named than the decks hold"
    spare = sorted((c for c in rest.elements() if c[0] == "C"), key=sort_key)
    full = []
    for h in [*hands, *[[]] * (players - len(hands))]:
        extra = [spare.pop() for _ in range(11 - len(h))]
        full.append([*h, *extra])
    used = Counter(c for h in full for c in h) + Counter([upcard, *stock])
    under = sorted((Counter(full_deck(players)) - used).elements(), key=sort_key)
    order = [full[i % players][i // players] for i in range(11 * players)]
    order += [upcard, *stock, *under]
    state = ENGINE.new_game(players, options or {}, SEED[players], deck=order)
    assert state.dealer == players - 1 and state.turn == 0
    return state


def ok(state: PenniesState, player: int | None, action: dict[str, Any]) -> PenniesState:
    after = ENGINE.apply(state, player, action)
    assert not isinstance(after, Rejection), after
    return after


def refused(state: PenniesState, player: int, action: dict[str, Any], code: str) -> Rejection:
    after = ENGINE.apply(state, player, action)
    assert isinstance(after, Rejection), f"{action} should be refused"
    assert after.code == code, after
    assert after.message[0].isupper() and after.message.endswith("."), after.message
    return after


def meld(*sets: Sequence[str], rank: int | None = None) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for cards in sets:
        spec: dict[str, Any] = {"cards": list(cards)}
        if rank is not None:
            spec["rank"] = rank
        out.append(spec)
    return {"type": "meld", "melds": out}


def lay_off(cards: Sequence[str], player: int, index: int) -> dict[str, Any]:
    return {"type": "lay_off", "cards": list(cards), "meld": {"player": player, "index": index}}


def everything(state: PenniesState) -> Counter[str]:
    melded = [c for area in state.melds for m in area for c in m.cards]
    return Counter([*[c for h in state.hands for c in h], *melded, *state.stock, *state.discard])


def hand_counter(state: PenniesState, player: int) -> Counter[str]:
    return Counter(state.hands[player])


# Player 0 can open round 1 (two sets of 3) and more: 11 cards in three sets.
OPENER = ["C5", "D5", "H5", "S5", "C6", "D6", "H6", "S6", "C7", "D7", "H7"]


def opened(
    players: int = 2, draw: str = "S9", others: Sequence[Sequence[str]] = ()
) -> PenniesState:
    """Ana (holding ``OPENER``) has declined, drawn ``draw`` and laid down fives and sixes;
    the others (holding ``others``) passed the offer of the upcard, the king of hearts."""
    state = deal(players, [OPENER, *others], "H13", [draw])
    state = ok(state, 0, {"type": "decline"})
    for p in range(1, players):
        state = ok(state, p, {"type": "pass"})
    return ok(state, 0, meld(OPENER[:4], OPENER[4:8]))


# ------------------------------------------------------------------------- rules 1 to 4


def test_rule_01_two_to_four_players_and_seven_rounds() -> None:
    assert (ENGINE.info.min_players, ENGINE.info.max_players) == (2, 4)
    for wrong in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            ENGINE.new_game(wrong, {}, 1)
    assert len(DEFAULT_CHART) == 7
    state = ENGINE.new_game(3, {}, 1)
    assert ENGINE.view(state, 0)["rounds"] == 7 and state.round_no == 1
    assert ENGINE.teams(state) == [[0], [1], [2]]


@pytest.mark.parametrize(("players", "size", "jokers"), [(2, 108, 4), (3, 216, 8), (4, 216, 8)])
def test_rule_02_decks_by_player_count(players: int, size: int, jokers: int) -> None:
    state = ENGINE.new_game(players, {}, 7)
    cards = everything(state)
    assert sum(cards.values()) == size and cards["J1"] + cards["J2"] == jokers
    assert cards["H12"] == size // 54  # every standard card once per deck
    with pytest.raises(ValueError, match="must hold exactly"):
        ENGINE.new_game(players, {}, 7, deck=full_deck(players)[:-1])


def test_rule_03_ten_pennies_each_and_an_empty_spent_pile() -> None:
    state = ENGINE.new_game(4, {}, 3)
    assert state.pennies == (10, 10, 10, 10) and state.spent == 0
    view = ENGINE.view(state, 2)
    assert view["pennies"] == [10, 10, 10, 10] and view["spent"] == 0


def test_rule_04_eleven_each_from_the_left_of_the_dealer_upcard_then_stock() -> None:
    order = full_deck(3)
    random.Random(5).shuffle(order)
    state = ENGINE.new_game(3, {}, 4, deck=order)
    first = (state.dealer + 1) % 3
    assert state.turn == first and ENGINE.to_act(state) == [first]
    for p in range(3):
        dealt = [order[i] for i in range(33) if (first + i) % 3 == p]
        assert Counter(state.hands[p]) == Counter(dealt) and len(state.hands[p]) == 11
    assert state.discard == (order[33],)
    assert state.stock == tuple(order[34:])  # stock[0] is drawn next
    after = ok(state, first, {"type": "decline"})
    assert hand_counter(after, first) - hand_counter(state, first) == Counter([order[34]])


def test_rule_04_the_deal_comes_from_the_seed() -> None:
    a, b = ENGINE.new_game(4, {}, 11), ENGINE.new_game(4, {}, 11)
    assert a == b
    assert ENGINE.new_game(4, {}, 12).hands != a.hands


ALL_THREES = [{"first_meld": [3], "wild": ["joker"]}] * 7


def end_round(state: PenniesState) -> PenniesState:
    """Test shortcut: the mover swaps their hand with three fives (or sixes...) from the stock,
    every card staying in play, and lays them down: the round ends (chart ``ALL_THREES``)."""
    mover = state.turn
    stock = [*state.stock, *state.hands[mover]]
    want: list[str] = []
    for r in range(5, 14):
        want = [f"{s}{r}" for s in "CDH"]
        if all(c in stock for c in want):
            break
    for c in want:
        stock.remove(c)
    hands = (*state.hands[:mover], tuple(want), *state.hands[mover + 1 :])
    state = replace(state, hands=hands, stock=tuple(stock), phase=PLAY, offer=None)
    return ok(state, mover, meld(want))


def test_rule_04_deal_passes_left_each_round_for_seven_rounds() -> None:
    state = deal(3, [], "H13", options={"chart": ALL_THREES})
    dealers = [state.dealer]
    for number in range(2, 8):
        state = end_round(state)
        assert state.phase == ROUND_OVER and ENGINE.to_act(state) == [0, 1, 2]
        assert ENGINE.legal_actions(state, 2) == [{"type": "next_round"}]
        line = ENGINE.describe(state, 1, {"type": "next_round"}, NAMES)
        assert line == f"Ben started round {number}"
        state = ok(state, 1, {"type": "next_round"})
        dealers.append(state.dealer)
        assert state.round_no == number and state.turn == (state.dealer + 1) % 3
        assert [len(h) for h in state.hands] == [11, 11, 11] and len(state.discard) == 1
        assert state.melds == ((), (), ()) and state.opened == (False, False, False)
        assert sum(everything(state).values()) == 216
    assert dealers == [2, 0, 1, 2, 0, 1, 2]
    final = end_round(state)
    assert final.phase == GAME_OVER and len(final.history) == 7


# ---------------------------------------------------------------------------- rule 5: buying


def test_rule_05_mover_buys_the_discard_with_two_stock_cards() -> None:
    state = deal(2, [["H8"]], "S8", ["D3", "D4", "D9"])
    after = ok(state, 0, {"type": "buy"})
    assert hand_counter(after, 0) - hand_counter(state, 0) == Counter(["S8", "D3", "D4"])
    assert after.pennies == (9, 10) and after.spent == 1 and after.bought == (("S8",), ())
    assert after.discard == () and after.stock[0] == "D9"
    assert after.phase == PLAY and ENGINE.to_act(after) == [0]
    assert ENGINE.scheduled(after) is None
    line = ENGINE.describe(state, 0, {"type": "buy"}, NAMES)
    assert line == "Ana bought the 8 of spades for a penny, with 2 cards from the stock"


def test_rule_05_decline_draws_one_then_offers_the_discard_in_turn_order() -> None:
    state = deal(4, [], "S8", ["D3"])
    after = ok(state, 0, {"type": "decline"})
    assert hand_counter(after, 0) - hand_counter(state, 0) == Counter(["D3"])
    assert after.phase == OFFER and ENGINE.to_act(after) == [1]
    assert ENGINE.scheduled(after) == Scheduled(10.0, {"type": "pass"}, player=1)
    window = ENGINE.view(after, 3)["buy_window"]
    assert window == {"card": "S8", "mover": 0, "player": 1, "queue": [2, 3], "seconds": 10}
    assert ENGINE.legal_actions(after, 1) == [{"type": "buy"}, {"type": "pass"}]
    assert ENGINE.legal_actions(after, 0) == [] and ENGINE.legal_actions(after, 2) == []
    line = ENGINE.describe(state, 0, {"type": "decline"}, NAMES)
    assert line == "Ana declined the 8 of spades and drew from the stock"
    assert "3 of diamonds" not in line  # a stock card is never named
    assert ENGINE.status(after, NAMES) == "Ben may buy the 8 of spades"


def test_rule_05_first_of_several_buyers_gets_it_and_the_window_closes() -> None:
    state = deal(4, [], "S8", ["D3", "D4", "D5"])
    state = ok(state, 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    assert ENGINE.to_act(state) == [2]
    refused(state, 3, {"type": "buy"}, "not_your_turn")  # Di waits for her turn to be asked
    refused(state, 0, {"type": "buy"}, "not_your_turn")
    before = state
    state = ok(state, 2, {"type": "buy"})
    assert hand_counter(state, 2) - hand_counter(before, 2) == Counter(["S8", "D4", "D5"])
    assert state.pennies == (10, 10, 9, 10) and state.spent == 1
    assert state.phase == PLAY and ENGINE.to_act(state) == [0] and state.offer is None
    line = ENGINE.describe(before, 2, {"type": "buy"}, NAMES)
    assert line == "Cy bought the 8 of spades out of turn for a penny, with 2 cards from the stock"


def test_rule_05_players_without_pennies_are_not_offered_the_discard() -> None:
    state = deal(4, [], "S8", ["D3"])
    state = replace(state, pennies=(10, 10, 0, 10), spent=10)
    state = ok(state, 0, {"type": "decline"})
    assert ENGINE.view(state, None)["buy_window"]["queue"] == [3]
    state = ok(state, 1, {"type": "pass"})
    assert ENGINE.to_act(state) == [3]  # Cy (no pennies) is skipped
    state = ok(state, 3, {"type": "pass"})
    assert state.phase == PLAY and ENGINE.to_act(state) == [0]


def test_rule_05_mover_with_no_pennies_can_only_decline_and_others_may_buy() -> None:
    state = replace(deal(3, [], "S8", ["D3", "D4", "D5"]), pennies=(0, 10, 10), spent=10)
    assert ENGINE.legal_actions(state, 0) == [{"type": "decline"}]
    rejection = refused(state, 0, {"type": "buy"}, "no_pennies")
    assert "no pennies" in rejection.message
    assert ENGINE.status(state, NAMES) == "Ana to draw"
    state = ok(state, 0, {"type": "decline"})
    assert state.phase == OFFER and ENGINE.to_act(state) == [1]
    state = ok(state, 1, {"type": "buy"})
    assert state.pennies == (0, 9, 10) and "S8" in state.hands[1]


def test_rule_05_ours_the_discarder_is_never_offered_its_discard_back() -> None:
    # Two players: Ana discards, Ben declines it; nobody else may buy, so Ben plays on.
    state = ok(
        ok(deal(2, [["H8"]], "S8", ["D3", "D4"]), 0, {"type": "decline"}), 1, {"type": "pass"}
    )
    state = ok(state, 0, {"type": "discard", "card": "H8"})
    after = ok(state, 1, {"type": "decline"})
    assert after.phase == PLAY and after.offer is None and ENGINE.to_act(after) == [1]
    # Three players: Ben declines Ana's discard; Cy is asked, Ana never (not even last).
    state = ok(
        ok(deal(3, [["H8"]], "S8", ["D3", "D4"]), 0, {"type": "decline"}), 1, {"type": "pass"}
    )
    state = ok(ok(state, 2, {"type": "pass"}), 0, {"type": "discard", "card": "H8"})
    after = ok(state, 1, {"type": "decline"})
    assert after.offer is not None and (after.offer.player, after.offer.queue) == (2, ())
    assert after.offer.discarder == 0 and ENGINE.view(after, 0)["buy_window"]["queue"] == []
    assert ok(after, 2, {"type": "pass"}).phase == PLAY  # everyone else passed: no more asks
    assert ENGINE.load(ENGINE.dump(after)) == after
    with pytest.raises(InvalidState, match="never offered it back"):
        ENGINE.load(
            {
                **ENGINE.dump(after),
                "offer": {"card": "H8", "player": 2, "queue": [0], "discarder": 0},
            }
        )


def test_rule_05_an_unanswered_offer_lapses_through_the_scheduled_pass() -> None:
    state = deal(3, [], "S8", ["D3"], options={"buy_seconds": 5})
    state = ok(state, 0, {"type": "decline"})
    planned = ENGINE.scheduled(state)
    assert planned == Scheduled(5.0, {"type": "pass"}, player=1)
    state = ok(state, planned.player, planned.action)
    planned = ENGINE.scheduled(state)
    assert planned == Scheduled(5.0, {"type": "pass"}, player=2)
    state = ok(state, None, planned.action)  # also accepted as the game's own move
    assert state.phase == PLAY and ENGINE.scheduled(state) is None
    assert state.hands[1] == deal(3, [], "S8", ["D3"]).hands[1]


def test_rule_05_buy_seconds_option_choices() -> None:
    spec = {o.name: o for o in ENGINE.info.options}["buy_seconds"]
    assert spec.default == 10 and spec.choices == (5, 10, 15, 20)
    assert ENGINE.info.resolve_options({"buy_seconds": 7}) == Rejection(
        "bad_option", "Option buy_seconds must be one of 5, 10, 15, 20."
    )


def test_rule_05_ours_a_buyer_short_of_stock_reshuffles_first() -> None:
    base = deal(2, [], "S8", ["D3"])
    # Only D3 is left in the stock; the rest lies under the upcard.
    state = replace(base, stock=("D3",), discard=(*base.stock[1:], "S8"))
    assert sum(everything(state).values()) == 108
    after = ok(state, 0, {"type": "buy"})
    rest = list(base.stock[1:-1])
    random.Random(f"pennies:{SEED[2]}:1:reshuffle:0").shuffle(rest)
    # S8 bought; then the pile under it (but its new top) became the stock below D3.
    assert hand_counter(after, 0) - hand_counter(state, 0) == Counter(["S8", "D3", rest[0]])
    assert after.discard == (base.stock[-1],) and after.reshuffles == 1
    assert after.stock == tuple(rest[1:])
    assert "shuffled into a new stock" in ENGINE.describe(state, 0, {"type": "buy"}, NAMES)


def test_rule_05_ours_a_buyer_still_short_takes_what_there_is() -> None:
    base = deal(2, [], "S8", ["D3"])
    # The stock holds one card and nothing lies under the upcard (the rest is in Ben's hand).
    state = replace(base, stock=("D3",), hands=(base.hands[0], base.hands[1] + base.stock[1:]))
    after = ok(state, 0, {"type": "buy"})
    assert hand_counter(after, 0) - hand_counter(state, 0) == Counter(["S8", "D3"])
    assert after.stock == () and after.discard == () and after.pennies[0] == 9
    line = ENGINE.describe(state, 0, {"type": "buy"}, NAMES)
    assert line == "Ana bought the 8 of spades for a penny, with 1 card from the stock"


# --------------------------------------------------------------------------- rule 6: melding


def test_rule_06_first_meld_may_be_laid_in_one_action() -> None:
    state = ok(deal(2, [OPENER], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    after = ok(state, 0, meld(OPENER[:4], OPENER[4:8], OPENER[8:]))  # more sets are allowed
    assert [m.rank for m in after.melds[0]] == [5, 6, 7] and after.opened == (True, False)
    assert after.hands[0] == ("S9",)


def test_rule_06_first_meld_may_be_laid_one_set_at_a_time_in_the_turn() -> None:
    state = ok(deal(2, [OPENER], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    one = ok(state, 0, meld(OPENER[:4]))  # a set of 4 fives: half of two sets of 3
    assert one.melds[0] == (Meld(5, ("C5", "D5", "H5", "S5")),) and one.opened == (False, False)
    assert one.phase == PLAY and ENGINE.to_act(one) == [0]
    assert ENGINE.load(ENGINE.dump(one)) == one
    refused(one, 0, lay_off(["C6"], 1, 0), "not_opened")
    two = ok(one, 0, meld(OPENER[4:7]))  # the second set: the first meld is made
    assert two.opened == (True, False) and [m.rank for m in two.melds[0]] == [5, 6]
    three = ok(two, 0, lay_off(["S6"], 0, 1))  # now anything goes
    assert three.melds[0][1].cards == ("C6", "D6", "H6", "S6")


def test_rule_06_sets_short_of_the_first_meld_go_back_at_the_discard_with_the_reason() -> None:
    state = ok(deal(2, [OPENER], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    one = ok(state, 0, meld(OPENER[:3]))
    grown = ok(one, 0, lay_off(["S5"], 0, 0))  # onto a set laid this turn: allowed
    assert grown.melds[0][0].cards == ("C5", "D5", "H5", "S5") and not grown.opened[0]
    line = ENGINE.describe(grown, 0, {"type": "discard", "card": "S9"}, NAMES)
    after = ok(grown, 0, {"type": "discard", "card": "S9"})
    assert after.melds[0] == () and after.opened == (False, False)
    assert Counter(after.hands[0]) == Counter(OPENER) and after.discard[-1] == "S9"
    assert after.last_move is not None and after.last_move.returned == ("C5", "D5", "H5", "S5")
    assert after.phase == BUY and after.turn == 1
    assert line == (
        "Ana took back the 5 of clubs, 5 of diamonds, 5 of hearts and 5 of spades: the first "
        "meld this round must be two sets of 3, laid down in one turn (wild: jokers); a meld of "
        "4 5s does not meet that. Ana discarded the 9 of spades"
    )
    assert ENGINE.view(after, 1)["last_move"]["returned"] == ["C5", "D5", "H5", "S5"]


def test_rule_06_sets_short_of_the_first_meld_may_not_empty_the_hand() -> None:
    chart = [{"first_meld": [3, 3], "wild": ["joker"]}, *default_chart()[1:]]
    state = deal(2, [OPENER], "H13", ["S9"], options={"chart": chart})
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    hand = ("C5", "D5", "H5")  # Ana holds only three fives (the rest back in the stock)
    state = replace(
        state, hands=(hand, state.hands[1]), stock=(*state.stock, *_minus(state.hands[0], hand))
    )
    rejection = refused(state, 0, meld(hand), "requirement_not_met")
    assert rejection.message == (
        "Your first meld this round must be two sets of 3, laid down in one turn (wild: "
        "jokers); a meld of 3 5s does not meet that. You would have no card left to discard."
    )


def _minus(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


def test_rule_06_a_set_of_k_is_met_by_more_cards_and_two_sets_may_share_a_rank() -> None:
    twins = ["C5", "D5", "H5", "C5", "D5", "S5"]  # two decks: two sets of fives
    state = ok(deal(2, [twins], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    after = ok(state, 0, meld(twins[:3], twins[3:]))
    assert [m.cards for m in after.melds[0]] == [("C5", "D5", "H5"), ("C5", "D5", "S5")]
    chart = [{"first_meld": [4], "wild": ["joker"]}, *default_chart()[1:]]
    hand = [*OPENER[:8], "J1"]
    state = deal(2, [hand], "H13", ["S9"], options={"chart": chart})
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    assert not ok(state, 0, meld(OPENER[:3])).opened[0]  # 3 cards: not a set of 4
    assert ok(state, 0, meld(OPENER[:4])).opened[0]  # exactly 4
    after = ok(state, 0, meld([*OPENER[:4], "J1"]))  # 5 cards meet a set of 4
    assert after.melds[0][0].cards == ("C5", "D5", "H5", "S5", "J1")


def test_rule_06_invalid_melds_are_refused_with_the_reason() -> None:
    state = ok(
        deal(2, [["H5", "S5", "D9", "H13", "H13", "J1", "J2", "C2"]], "C13", ["S9"]),
        0,
        {"type": "decline"},
    )
    state = ok(state, 1, {"type": "pass"})
    good = ["D9", "J1", "J2"]
    mixed = refused(state, 0, meld(["H5", "S5", "D9"], good), "mixed_ranks")
    assert "9 of diamonds" in mixed.message and "only jokers are wild" in mixed.message
    wild = refused(state, 0, meld(["J1", "J2", "J1"], good), "all_wild")
    assert "at least one natural card" in wild.message
    twice = refused(state, 0, meld(["H13", "H13", "J1"], ["H5", "S5", "J2"]), "duplicate_card")
    assert "king of hearts is there twice" in twice.message
    short = refused(state, 0, meld(["H5", "S5"], good), "too_few_cards")
    assert "5 of hearts and 5 of spades are only 2" in short.message
    two = refused(state, 0, meld(["H5", "S5", "C2"], good), "mixed_ranks")  # 2s are not wild
    assert "2 of clubs" in two.message
    missing = refused(state, 0, meld(["H5", "S5", "C5"], good), "not_in_hand")
    assert missing.message == "You don't hold the 5 of clubs."
    reused = refused(state, 0, meld(["H5", "S5", "J1"], ["D9", "J1", "J2"]), "not_in_hand")
    assert reused.message == "You hold the red joker only once."
    refused(state, 0, meld(["H5", "S5", "X9"]), "bad_card")
    refused(state, 0, {"type": "meld", "melds": "H5 S5 J1"}, "bad_action")


def test_rule_06_identical_wild_cards_may_share_a_meld() -> None:
    assert set_rank(["H9", "J1", "J1"], JOKERS_WILD) == 9
    assert set_rank(["H9", "H2", "H2", "J2"], ROUND3_WILD) == 9


def test_rule_06_wild_cards_follow_the_chart() -> None:
    assert isinstance(set_rank(["H9", "S9", "C2"], JOKERS_WILD), Rejection)  # round 1
    assert set_rank(["H9", "S9", "C2"], ROUND3_WILD) == 9  # round 3: 2s are wild
    assert isinstance(set_rank(["H9", "S9", "C1"], ROUND3_WILD), Rejection)
    assert set_rank(["H9", "S9", "C1"], ROUND5_WILD) == 9  # round 5: aces too


def test_rule_06_a_wild_rank_is_natural_in_a_set_of_its_own_rank() -> None:
    assert set_rank(["C1", "D1", "H1"], ROUND5_WILD) == 1  # three aces are a set of aces
    aces = Meld(1, ("C1", "D1", "H1"))
    assert lay_off_problem(aces, ["S1"], ROUND5_WILD) is None  # a fourth ace may be laid off
    twin = lay_off_problem(aces, ["H1"], ROUND5_WILD)
    assert twin is not None and twin.code == "duplicate_card"  # natural there: no duplicate
    assert lay_off_problem(aces, ["J1", "C2"], ROUND5_WILD) is None
    dup = set_rank(["H2", "H2", "S1"], ROUND5_WILD)
    assert dup == 1  # as 2s the two 2 of hearts would be twins; as aces they are wild


def test_rule_06_ours_the_player_names_the_rank_when_two_could_fit() -> None:
    both = set_rank(["H2", "S1", "J1"], ROUND5_WILD)
    assert isinstance(both, Rejection) and both.code == "rank_needed"
    assert both.message == (
        "The 2 of hearts, ace of spades and red joker could be a set of aces or of 2s: say "
        "which rank."
    )
    assert set_rank(["H2", "S1", "J1"], ROUND5_WILD, 2) == 2
    assert set_rank(["H2", "S1", "J1"], ROUND5_WILD, 1) == 1
    none = set_rank(["H2", "S1", "J1"], ROUND5_WILD, 7)
    assert isinstance(none, Rejection) and none.code == "all_wild"
    bad = set_rank(["H2", "S1", "J1"], ROUND5_WILD, 14)
    assert isinstance(bad, Rejection) and bad.code == "bad_rank"
    assert set_rank(["H9", "S9", "J1"], ROUND5_WILD, 9) == 9  # naming it is always allowed


def test_rule_06_ours_lay_off_only_after_the_first_meld_onto_any_meld() -> None:
    ana = [*OPENER[:7], "J1", "S7", "C9", "H3"]
    ben = ["H9", "S9", "D9", "H10", "S10", "D10", "C7"]
    state = ok(deal(2, [ana, ben], "H13", ["D7", "H2"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    rejection = refused(state, 0, lay_off(["S7"], 0, 0), "not_opened")
    assert rejection.message == (
        "You can lay off only after your first meld of the round (two sets of 3), or onto a "
        "set you laid this turn."
    )
    state = ok(state, 0, meld(OPENER[:4], OPENER[4:7]))
    state = ok(state, 0, meld(["S7", "D7", "J1"]))  # after the first meld: any set
    state = ok(state, 0, {"type": "discard", "card": "C9"})
    state = ok(state, 1, {"type": "decline"})  # Ana is not offered her own discard
    refused(state, 1, lay_off(["C7"], 0, 2), "not_opened")
    state = ok(state, 1, meld(ben[:3], ben[3:6]))
    state = ok(state, 1, lay_off(["C7"], 0, 2))  # onto Ana's sevens
    assert state.melds[0][2].cards == ("C7", "D7", "S7", "J1")
    assert "C7" not in state.hands[1]
    refused(state, 0, lay_off(["H7"], 0, 2), "not_your_turn")


def test_rule_06_ours_melding_is_never_compulsory() -> None:
    state = ok(deal(2, [OPENER], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    assert any(a["type"] == "meld" for a in ENGINE.legal_actions(state, 0))
    after = ok(state, 0, {"type": "discard", "card": "S9"})
    assert after.phase == BUY and after.turn == 1 and after.opened == (False, False)


# --------------------------------------------------------------------- rules 7 to 9: the turn


def test_rule_07_discard_one_card_and_the_turn_passes_left() -> None:
    state = ok(deal(3, [["H8"]], "S8", ["D3"]), 0, {"type": "decline"})
    state = ok(ok(state, 1, {"type": "pass"}), 2, {"type": "pass"})
    refused(state, 0, {"type": "discard", "card": "S12"}, "not_in_hand")
    refused(state, 1, {"type": "discard", "card": "H8"}, "not_your_turn")
    refused(state, 0, {"type": "discard", "card": "Q7"}, "bad_card")
    after = ok(state, 0, {"type": "discard", "card": "H8"})
    assert after.discard[-1] == "H8" and len(after.hands[0]) == 11
    assert after.phase == BUY and ENGINE.to_act(after) == [1]
    assert ENGINE.describe(state, 0, {"type": "discard", "card": "H8"}, NAMES) == (
        "Ana discarded the 8 of hearts"
    )
    refused(after, 1, {"type": "discard", "card": after.hands[1][0]}, "wrong_phase")


def test_rule_08_round_ends_when_the_last_card_is_discarded() -> None:
    state = opened(draw="S9")
    state = ok(state, 0, meld(OPENER[8:]))
    assert state.hands[0] == ("S9",) and state.phase == PLAY
    line = ENGINE.describe(state, 0, {"type": "discard", "card": "S9"}, NAMES)
    after = ok(state, 0, {"type": "discard", "card": "S9"})
    assert after.phase == ROUND_OVER and after.history[-1].went_out == 0
    assert line == "Ana discarded the 9 of spades, and went out, ending round 1"
    assert ENGINE.status(after, NAMES) == "Round 1 over: Ana went out"
    refused(after, 1, {"type": "discard", "card": after.hands[1][0]}, "wrong_phase")


def test_rule_08_ours_round_ends_when_melding_empties_the_hand() -> None:
    state = opened(draw="S7")
    after = ok(state, 0, meld(["C7", "D7", "H7", "S7"]))
    assert after.phase == ROUND_OVER and after.hands[0] == () and after.history[-1].went_out == 0


def test_rule_08_ours_round_ends_when_laying_off_empties_the_hand() -> None:
    state = opened(draw="S9")
    state = ok(state, 0, meld(OPENER[8:]))
    state = replace(state, hands=(("J1",), state.hands[1]))  # swap the 9 for a joker
    stock = list(state.stock)
    stock[stock.index("J1")] = "S9"
    state = replace(state, stock=tuple(stock))
    after = ok(state, 0, lay_off(["J1"], 0, 2))
    assert after.phase == ROUND_OVER and after.melds[0][2].cards == ("C7", "D7", "H7", "J1")


def test_rule_09_ours_empty_stock_reshuffles_the_discard_pile_but_its_top() -> None:
    base = deal(2, [], "S8", ["D3"])
    state = replace(base, stock=(), discard=(*base.stock, "S8"))
    after = ok(state, 0, {"type": "decline"})
    new_stock = list(base.stock)
    random.Random(f"pennies:{SEED[2]}:1:reshuffle:0").shuffle(new_stock)
    assert hand_counter(after, 0) - hand_counter(state, 0) == Counter([new_stock[0]])
    assert after.stock == tuple(new_stock[1:]) and after.discard == ("S8",)
    assert after.reshuffles == 1 and after.phase == OFFER and after.offer.card == "S8"
    assert ENGINE.view(after, 1)["reshuffles"] == 1
    assert ENGINE.describe(state, 0, {"type": "decline"}, NAMES) == (
        "Ana declined the 8 of spades and drew from the stock; the discard pile was shuffled "
        "into a new stock"
    )


def test_rule_09_ours_the_stock_is_rebuilt_every_time_it_runs_out() -> None:
    base = deal(2, [["H8"]], "S8", ["D3"])
    for done in (0, 3, 9):  # no limit (the engine once stopped after the third rebuild)
        state = replace(base, stock=(), discard=(*base.stock, "S8"), reshuffles=done)
        after = ok(state, 0, {"type": "decline"})
        assert after.reshuffles == done + 1 and len(after.hands[0]) == 12
        assert after.discard == ("S8",) and len(after.stock) == len(base.stock) - 1
        assert ENGINE.load(ENGINE.dump(after)) == after


def test_rule_09_ours_nobody_out_only_when_nothing_is_left_to_rebuild_from() -> None:
    base = deal(2, [["H8"]], "S8", ["D3"])
    # Ben holds everything but Ana's hand, the upcard and D3: one stock card, nothing under S8.
    state = replace(base, stock=("D3",), hands=(base.hands[0], base.hands[1] + base.stock[1:]))
    state = ok(state, 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    assert state.stock == () and state.discard == ("S8",)
    # Discarding on top of S8: the pile under the new top could rebuild the stock.
    going = ok(state, 0, {"type": "discard", "card": "H8"})
    assert going.phase == BUY and going.turn == 1 and going.reshuffles == 0
    drew = ok(going, 1, {"type": "decline"})
    assert drew.reshuffles == 1 and drew.stock == () and drew.discard == ("H8",)
    # As if Ana had bought the S8: the discard pile is empty, nothing can rebuild the stock.
    bought = replace(state, discard=(), hands=((*state.hands[0], "S8"), state.hands[1]))
    line = ENGINE.describe(bought, 0, {"type": "discard", "card": "H8"}, NAMES)
    after = ok(bought, 0, {"type": "discard", "card": "H8"})
    result = after.history[-1]
    assert after.phase == ROUND_OVER and result.went_out is None
    assert result.cards_left == (12, len(state.hands[1]))
    assert result.paid == (10, 10) and result.shortfall == (2, len(state.hands[1]) - 10)
    assert ENGINE.status(after, NAMES) == "Round 1 over: the stock ran out (a stalemate)"
    assert line.endswith("the stock is used up, so round 1 ends in a stalemate")
    assert ENGINE.load(ENGINE.dump(after)) == after
    data = ENGINE.dump(after)  # a card under the top could still have rebuilt the stock
    ben = data["hands"][1]
    with pytest.raises(InvalidState, match="no more than its top card"):
        ENGINE.load({**data, "hands": [data["hands"][0], ben[1:]], "discard": [ben[0], "H8"]})


# ----------------------------------------------------------------------- rules 10 and 11


LEFT = ["J1", "C1", "C2", "C10", "C11", "C12", "C13", "D3", "D4", "D9", "S9"]  # 150 points


def test_rule_10_card_points() -> None:
    assert [card_points(c) for c in ("J1", "J2", "H1", "S2", "D10", "C11", "H12", "S13")] == [
        50,
        50,
        20,
        20,
        10,
        10,
        10,
        10,
    ]
    assert {card_points(f"H{r}") for r in range(3, 10)} == {5}


def test_rule_10_example_150_points_and_a_shortfall_of_one_penny() -> None:
    state = opened(draw="S9", others=[LEFT])
    state = ok(state, 0, meld(OPENER[8:]))
    after = ok(state, 0, {"type": "discard", "card": "S9"})
    result = after.history[-1]
    assert result.points == (0, 150) and result.cards_left == (0, 11)
    assert result.paid == (0, 10) and result.shortfall == (0, 1)  # 11 cards, 10 pennies
    assert after.pennies == (10, 0) and after.spent == 10
    view = ENGINE.view(after, None)
    assert view["scores"] == {"rounds": [[0, 150]], "paid": [[0, 10]], "totals": [0, 150]}
    assert view["shortfalls"] == [0, 1]
    board = ENGINE.scoreboard(after, NAMES)
    assert board.columns == ("Ana", "Ben")
    assert board.rows == (("Round 1", ("0 (out)", "150 (paid 10, 1 short)")),)
    assert board.totals == (0, 150)
    assert board.note == "Round 1 of 7; lowest total wins; spent pile: 10"
    reveal = ENGINE.reveal(after)
    assert reveal is not None and reveal[1].cards == tuple(sorted(LEFT, key=sort_key))
    assert reveal[1].points == 150 and reveal[1].note == "paid 10 pennies, 1 short"
    assert reveal[0].note == "went out" and len(reveal[0].melds) == 3
    assert ENGINE.reveal(state) is None and ENGINE.outcome(after) is None


def test_rule_10_a_player_pays_what_they_have() -> None:
    state = opened(players=3, draw="S9", others=[["H3", "H4"], LEFT])
    state = replace(state, pennies=(10, 2, 10), spent=8)
    state = ok(state, 0, meld(OPENER[8:]))
    after = ok(state, 0, {"type": "discard", "card": "S9"})
    result = after.history[-1]
    assert result.paid == (0, 2, 10) and result.shortfall == (0, 9, 1)
    assert after.pennies == (10, 0, 0) and after.spent == 20


def round_seven(chart_row: dict[str, Any] | None = None) -> PenniesState:
    """Round 7 of a 3-player game: Ana can go out at once; Ben holds 65 points in 11 cards;
    six earlier rounds left Ana on 65, Ben on 0 and Cy on 30 (pennies paid accordingly)."""
    ana = ["C5", "D5", "H5", "S5", "J1", "C2", "D1", "C6", "D6", "H6", "J2"]
    ben = ["H3", "H4", "S3", "S4", "D3", "D4", "H7", "S7", "D8", "H10", "S10"]  # 65 points
    state = deal(3, [ana, ben, ["H9"]], "H13", ["C9"])
    # (Ana, Ben, Cy): points and cards left per round; Ben went out every time.
    ana_rounds = [(20, 1), (20, 1), (5, 1), (5, 1), (5, 1), (10, 2)]
    history = tuple(
        RoundResult(
            round_no=i + 1,
            dealer=i % 3,
            went_out=1,
            points=(pts, 0, 5),
            cards_left=(cards, 0, 1),
            paid=(cards, 0, 1),
            shortfall=(0, 0, 0),
            bought=(0, 0, 0),
        )
        for i, (pts, cards) in enumerate(ana_rounds)
    )
    return replace(state, round_no=7, history=history, pennies=(3, 10, 4), spent=13)


def test_rule_11_after_round_7_tied_lowest_totals_split_the_spent_pile() -> None:
    state = round_seven()
    assert ENGINE.load(ENGINE.dump(state)) == state  # a consistent game in its last round
    assert ENGINE.view(state, 0)["requirement"]["text"] == (
        "Round 7: one set of 7; wild: jokers, 2s and aces"
    )
    state = ok(state, 0, {"type": "decline"})
    state = ok(ok(state, 1, {"type": "pass"}), 2, {"type": "pass"})
    state = ok(state, 0, meld(["C5", "D5", "H5", "S5", "J1", "C2", "D1"], ["C6", "D6", "H6", "J2"]))
    assert state.hands[0] == ("C9",)
    final = ok(state, 0, {"type": "discard", "card": "C9"})
    assert final.phase == GAME_OVER and ENGINE.to_act(final) == []
    result = final.result
    assert result is not None
    assert result.totals[:2] == (65, 65) and result.totals[2] > 65
    assert result.winners == (0, 1) and result.pot == 27
    assert (result.share, result.remainder) == (13, 1)
    assert final.pennies == (16, 13, 0) and final.spent == 1  # the odd penny stays
    assert ENGINE.outcome(final) == Outcome(winners=(0, 1), scores=result.totals)
    note = "Ana and Ben tie at 65 and split 27 pennies: 13 each, 1 stays in the spent pile"
    assert ENGINE.status(final, NAMES) == note == ENGINE.scoreboard(final, NAMES).note
    assert len(ENGINE.scoreboard(final, NAMES).rows) == 7
    refused(final, 1, {"type": "next_round"}, "game_over")
    assert ENGINE.legal_actions(final, 0) == []
    assert ENGINE.load(ENGINE.dump(final)) == final


def test_rule_11_a_single_lowest_total_collects_the_whole_pile() -> None:
    state = round_seven()
    history = tuple(replace(h, points=(h.points[0] + 5, 0, 5)) for h in state.history)
    state = replace(state, history=history)  # Ana now starts round 7 on 95
    state = ok(state, 0, {"type": "decline"})
    state = ok(ok(state, 1, {"type": "pass"}), 2, {"type": "pass"})
    state = ok(state, 0, meld(["C5", "D5", "H5", "S5", "J1", "C2", "D1"], ["C6", "D6", "H6", "J2"]))
    final = ok(state, 0, {"type": "discard", "card": "C9"})
    assert final.result is not None and final.result.winners == (1,)
    assert final.pennies == (3, 27, 0) and final.spent == 0
    assert ENGINE.status(final, NAMES) == (
        "Ben wins with 65 and collects the spent pile of 27 pennies"
    )


# ------------------------------------------------------------------------------- the chart


def test_chart_default_is_the_reconstruction() -> None:
    assert default_chart() == [
        {"first_meld": [3, 3], "wild": ["joker"]},
        {"first_meld": [4], "wild": ["joker"]},
        {"first_meld": [4, 4], "wild": ["joker", "2"]},
        {"first_meld": [5], "wild": ["joker", "2"]},
        {"first_meld": [5, 5], "wild": ["joker", "2", "ace"]},
        {"first_meld": [6], "wild": ["joker", "2", "ace"]},
        {"first_meld": [7], "wild": ["joker", "2", "ace"]},
    ]
    assert (
        requirement_text(3, [4, 4], ["joker", "2"]) == "Round 3: two sets of 4; wild: jokers and 2s"
    )
    assert requirement_text(1, [3, 4], []) == "Round 1: one set of 3 and one set of 4; wild: none"
    spec = {o.name: o for o in ENGINE.info.options}["chart"]
    assert spec.default == default_chart() and spec.check is not None
    assert check_chart(default_chart()) is None


@pytest.mark.parametrize(
    ("chart", "reason"),
    [
        ("3,3", "the chart must be a list of 7 rounds."),
        (default_chart()[:6], "the chart must have exactly 7 rounds, not 6."),
        ([*default_chart()[:6], ["joker"]], "round 7: each round must be written like"),
        (
            [{"first_meld": [2, 3], "wild": []}, *default_chart()[1:]],
            "round 1: every required set needs at least 3 cards (got 2).",
        ),
        ([{"first_meld": [], "wild": []}, *default_chart()[1:]], "round 1: first_meld must list"),
        (
            [{"first_meld": [6, 6], "wild": []}, *default_chart()[1:]],
            "round 1: the first meld may ask for at most 11 cards in all",
        ),
        (
            [
                *default_chart()[:2],
                {"first_meld": [4], "wild": ["queen of hearts"]},
                *default_chart()[3:],
            ],
            "round 3: 'queen of hearts' is not a card that can be wild",
        ),
        (
            [{"first_meld": [3], "wild": ["2", "2"]}, *default_chart()[1:]],
            "round 1: a wild card is named twice.",
        ),
        (
            [{"first_meld": [3], "wild": [], "bonus": 1}, *default_chart()[1:]],
            "round 1: unknown key 'bonus'",
        ),
        ([{"first_meld": [3], "wild": "joker"}, *default_chart()[1:]], "round 1: wild must be"),
    ],
)
def test_chart_validator_refuses_malformed_charts(chart: Any, reason: str) -> None:
    problem = check_chart(chart)
    assert problem is not None and problem.startswith(reason), problem
    resolved = ENGINE.info.resolve_options({"chart": chart})
    assert isinstance(resolved, Rejection) and resolved.code == "bad_option"
    assert resolved.message == f"Option chart: {problem}"
    with pytest.raises(ValueError, match="Option chart"):
        ENGINE.new_game(2, {"chart": chart}, 1)


def test_chart_a_room_may_replace_it() -> None:
    chart = [{"first_meld": [3], "wild": ["joker", "king"]}, *default_chart()[1:]]
    state = deal(2, [["H4", "S4", "H13"]], "C9", ["D9"], options={"chart": chart})
    view = ENGINE.view(state, 0)
    assert view["requirement"] == {
        "text": "Round 1: one set of 3; wild: jokers and kings",
        "first_meld": [3],
        "wild": ["joker", "king"],
        "wild_ranks": [0, 13],
    }
    state = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    after = ok(state, 0, meld(["H4", "S4", "H13"]))  # a king is wild in this chart
    assert after.melds[0][0].rank == 4
    assert ENGINE.load(ENGINE.dump(after)) == after
    assert ENGINE.dump(after)["options"]["chart"] == chart


# ------------------------------------------------------------------ views, text, rejections


def test_view_shows_own_hand_counts_public_piles_and_no_other_hand() -> None:
    state = opened(players=3, draw="S9", others=[["H3"], ["H4"]])
    view = ENGINE.view(state, 1)
    assert view["player"] == 1 and view["hand"] == list(state.hands[1])
    assert view["hand_counts"] == [4, 11, 11] and view["stock_count"] == len(state.stock)
    assert view["melds"][0] == [
        {"rank": 5, "cards": ["C5", "D5", "H5", "S5"]},
        {"rank": 6, "cards": ["C6", "D6", "H6", "S6"]},
    ]
    assert view["opened"] == [True, False, False] and view["discard_pile"] == ["H13"]
    assert view["phase"] == PLAY and view["to_act"] == [0] and view["buy_window"] is None
    text = msgspec.json.encode(view).decode()
    assert "H4" not in text and '"C7"' not in text  # Cy's and Ana's hidden cards
    spectator = ENGINE.view(state, None)
    assert spectator["hand"] is None and spectator["player"] is None
    assert "H3" not in msgspec.json.encode(spectator).decode()


def test_rejections_for_turns_phases_and_shapes() -> None:
    state = deal(2, [], "S8", ["D3"])
    refused(state, 1, {"type": "decline"}, "not_your_turn")
    refused(state, 0, {"type": "discard", "card": state.hands[0][0]}, "wrong_phase")
    refused(state, 0, {"type": "pass"}, "wrong_phase")
    refused(state, 0, {"type": "next_round"}, "wrong_phase")
    refused(state, 0, {"type": "draw"}, "unknown_action")
    refused(state, 0, {"kind": "buy"}, "bad_action")
    refused(state, 5, {"type": "buy"}, "bad_player")
    played = ok(ok(state, 0, {"type": "decline"}), 1, {"type": "pass"})
    refused(played, 0, lay_off(["S8"], 1, 0), "not_opened")
    ready = opened()
    refused(ready, 0, lay_off(["C7"], 1, 0), "no_such_meld")
    refused(ready, 0, {"type": "lay_off", "cards": ["C7"], "meld": 0}, "bad_action")
    cannot = refused(ready, 0, lay_off(["C7"], 0, 0), "cannot_lay_off")
    assert cannot.message == (
        "The 7 of clubs doesn't fit the set of 5s: only 5s and wild cards do (only jokers are "
        "wild this round)."
    )


def test_meld_and_lay_off_log_lines() -> None:
    state = ok(deal(2, [[*OPENER[:8], "J1"]], "H13", ["S9"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    action = meld(OPENER[:4], OPENER[4:7])
    assert ENGINE.describe(state, 0, action, NAMES) == (
        "Ana laid down a set of 5s (the 5 of clubs, 5 of diamonds, 5 of hearts and 5 of "
        "spades); a set of 6s (the 6 of clubs, 6 of diamonds and 6 of hearts)"
    )
    state = ok(state, 0, action)
    assert ENGINE.describe(state, 0, lay_off(["S6", "J1"], 0, 1), NAMES) == (
        "Ana laid off the 6 of spades and red joker on their own set of 6s"
    )
    assert ENGINE.describe(state, 1, {"type": "buy"}, NAMES).startswith("Ben tried a move")
    assert ENGINE.status(state, NAMES) == "Ana to meld or discard"


# ------------------------------------------------------------------------------------ load


def test_load_round_trips_and_rejects_impossible_states() -> None:
    state = opened(players=3)
    assert ENGINE.load(ENGINE.dump(state)) == state
    data = ENGINE.dump(state)

    def bad(change: dict[str, Any], words: str) -> None:
        with pytest.raises(InvalidState, match=words):
            ENGINE.load({**data, **change})

    hand = list(data["hands"][1])
    bad({"hands": [data["hands"][0], [*hand, "H5"], data["hands"][2]]}, "5 of hearts appears")
    bad({"hands": [data["hands"][0], hand[1:], data["hands"][2]]}, "appears")
    bad({"phase": "bidding"}, "Unknown phase")
    bad({"turn": 3}, "must be players")
    bad({"players": 5}, "2 to 4 players")
    bad({"pennies": [10, 10, 9]}, "pennies don't add up")
    bad({"pennies": [9, 10, 10], "spent": 1}, "should hold 10 pennies")
    bad({"round_no": 8}, "round must be 1 to 7")
    bad({"opened": [False, False, False]}, "sets meet the first meld, so it has been made")
    bad({"opened": [False, False, False], "phase": "buy", "turn": 1}, "has not made a first meld")
    bad(
        {"melds": [[{"rank": 6, "cards": ["C5", "D5", "H5", "S5"]}, data["melds"][0][1]], [], []]},
        "not a set",
    )
    bad({"offer": {"card": "H13", "player": 0, "queue": []}}, "Only a buying window")
    bad({"history": [msgspec.to_builtins(round_seven().history[0])]}, "rounds should have been")
    bad({"options": {**data["options"], "buy_seconds": 7}}, "buy_seconds")
    bad({"options": {**data["options"], "chart": data["options"]["chart"][:3]}}, "chart")
    bad({"hands": "nope"}, "Not a Pennies state")
    bad({"hands": [[], data["hands"][1], [*data["hands"][2], *data["hands"][0]]]}, "no cards")


def test_load_checks_the_buying_window() -> None:
    state = ok(deal(3, [], "S8", ["D3"]), 0, {"type": "decline"})
    data = ENGINE.dump(state)
    assert ENGINE.load(data) == state
    with pytest.raises(InvalidState, match="own discard"):
        ENGINE.load({**data, "offer": {"card": "S8", "player": 0, "queue": [2]}})
    with pytest.raises(InvalidState, match="top of the discard pile"):
        ENGINE.load({**data, "offer": {"card": "S9", "player": 1, "queue": [2]}})
    with pytest.raises(InvalidState, match="needs an offer"):
        ENGINE.load({**data, "offer": None})


# -------------------------------------------------------------------------------- legal moves


def test_legal_actions_all_apply() -> None:
    state = opened(players=3, draw="S9", others=[["H5"], ["J1", "S7"]])
    for p in range(3):
        for action in ENGINE.legal_actions(state, p):
            assert not isinstance(ENGINE.apply(state, p, action), Rejection), action
    kinds = Counter(a["type"] for a in ENGINE.legal_actions(state, 0))
    assert kinds["discard"] == len(set(state.hands[0])) and kinds["meld"] == 1


def test_find_opening_meets_each_chart_row() -> None:
    hand = ["C9", "D9", "H9", "S9", "C1", "H2", "J1", "D4", "S4", "C4", "H4"]
    for row in default_chart():
        wild = wild_ranks(row["wild"])
        found = find_opening(hand, row["first_meld"], wild)
        assert found is not None, row
        assert meets([len(m.cards) for m in found], row["first_meld"])
        assert not Counter(c for m in found for c in m.cards) - Counter(hand)
        assert all(set_rank(m.cards, wild, m.rank) == m.rank for m in found)
    # Round 7 with only two wild cards: 4 nines + 2 wild cards make 6, not 7.
    assert find_opening([*hand[:4], "H2", "J1", *hand[7:]], [7], ROUND5_WILD) is None
    assert find_opening(hand[:5], [3, 3], JOKERS_WILD) is None


def near_set(rng: random.Random) -> list[str]:
    """Cards that are often a set: some naturals of one rank (suits may repeat), some jokers,
    2s and aces, sometimes a stray card."""
    r = rng.choice([1, 2, 5, 12])
    cards = [f"{rng.choice('CDHS')}{r}" for _ in range(rng.randint(1, 4))]
    cards += [rng.choice(["J1", "J2", "H2", "S2", "C1", "D1"]) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.2:
        cards.append(rng.choice(["H7", "S9", "D13"]))
    return cards


def test_sets_agree_with_the_shared_meld_module() -> None:
    """plugins/melds.py (shared with Rummy) and Pennies read the set rules the same way."""
    rng = random.Random(3)
    verdicts: Counter[bool] = Counter()
    for wild in (JOKERS_WILD, ROUND3_WILD, ROUND5_WILD):

        def is_wild(card: str, w: frozenset[int] = wild) -> bool:
            return (0 if card[0] == "J" else int(card[1:])) in w

        for _ in range(300):
            cards = near_set(rng)
            for r in (1, 2, 5, 12, 7):
                mine = not isinstance(set_rank(cards, wild, r), Rejection)
                problem = shared_melds.check_set(cards, wild=is_wild, rank=r, max_len=None)
                assert mine == (problem is None), (cards, sorted(wild), r, problem)
                verdicts[mine] += 1
    assert verdicts[True] > 200 and verdicts[False] > 2000  # both answers well exercised


# -------------------------------------------------------------------------------------- bot


def test_bot_buys_a_helpful_discard_and_declines_a_useless_one() -> None:
    state = deal(2, [["H8", "C8"]], "S8", ["D3"])
    assert choose_action(ENGINE, state, 0, random.Random(1)) == {"type": "buy"}
    joker = deal(2, [], "J1", ["D3"])
    assert choose_action(ENGINE, joker, 0, random.Random(1)) == {"type": "buy"}
    useless = deal(2, [["H3", "S4", "C6"]], "D7", ["D3"])
    assert choose_action(ENGINE, useless, 0, random.Random(1)) == {"type": "decline"}
    broke = replace(state, pennies=(0, 10), spent=10)
    assert choose_action(ENGINE, broke, 0, random.Random(1)) == {"type": "decline"}
    assert choose_action(ENGINE, state, 1, random.Random(1)) is None


def test_bot_melds_as_soon_as_it_can_then_lays_off_and_goes_out() -> None:
    state = ok(deal(2, [[*OPENER[:8], "J1", "H3", "S7"]], "H13", ["C7"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    rng = random.Random(2)
    action = choose_action(ENGINE, state, 0, rng)
    assert action is not None and action["type"] == "meld"
    state = ok(state, 0, action)
    assert state.opened[0]
    moves = []
    while state.phase == PLAY:
        action = choose_action(ENGINE, state, 0, rng)
        assert action is not None
        moves.append(action["type"])
        state = ok(state, 0, action)
    assert state.phase == ROUND_OVER and state.history[-1].went_out == 0
    assert moves == ["lay_off", "lay_off", "meld", "discard"]  # the 5, the 6, sevens, out
    assert state.last_move is not None and state.last_move.card == "H3"


def test_bot_discards_high_points_and_not_what_the_next_player_collects() -> None:
    state = ok(deal(2, [["H3", "C12", "D10"]], "H13", ["S4"]), 0, {"type": "decline"})
    state = ok(state, 1, {"type": "pass"})
    action = choose_action(ENGINE, state, 0, random.Random(4))
    assert action is not None and action["type"] == "discard"
    assert action["card"] in ("C12", "C13", "C11")  # a lone 10-pointer, never the 3
    fed = replace(state, bought=((), ("S12",)))
    for seed in range(5):
        chosen = choose_action(ENGINE, fed, 0, random.Random(seed))
        assert chosen is not None and chosen["card"] != "C12"


def test_bot_reads_only_its_view_and_is_deterministic() -> None:
    state = ok(deal(3, [["H8", "C8"]], "S8", ["D3"]), 0, {"type": "decline"})
    # Cy's hand and the stock order differ; everything Ana may see is the same.
    other = replace(state, hands=(state.hands[0], state.hands[2], state.hands[1]))
    other = replace(other, stock=tuple(reversed(state.stock)))
    assert ENGINE.view(state, 0) == ENGINE.view(other, 0)
    for seed in range(3):
        a = choose_action(ENGINE, state, 1, random.Random(seed))
        b = choose_action(ENGINE, state, 1, random.Random(seed))
        assert a == b and a in ENGINE.legal_actions(state, 1)
    play = ok(state, 1, {"type": "pass"})
    play = ok(play, 2, {"type": "pass"})
    mirror = replace(play, hands=(play.hands[0], play.hands[2], play.hands[1]))
    assert choose_action(ENGINE, play, 0, random.Random(9)) == choose_action(
        ENGINE, mirror, 0, random.Random(9)
    )


def test_bot_win_rate_with_the_shared_simulator() -> None:
    for players in (2, 3, 4):
        report = simulate(ENGINE, choose_action, 20, seed=players, players=players)
        assert report.failures == [] and report.finished == 20
        print(f"simulate: {players} players, bot vs random-legal: {report.win_rate:.0%}")
        assert report.win_rate >= 0.9
