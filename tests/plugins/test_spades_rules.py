"""Spades engine: every numbered rule (1-14) and both worked examples of the checklist, the
rejections with their codes, load() refusing impossible states, and the view/log/status text.

Deals with exact outcomes are built with :func:`scripted`: it returns hands and the 13 tricks
card by card so that trick ``k`` is won by ``winners[k]``, and the tests play them through
``apply``. Later deals get their hands through ``dump``/``load`` (a legal redeal).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import msgpack
import msgspec
import pytest

from plugins.base import InvalidState, Rejection
from plugins.cards import STANDARD
from plugins.spades import ENGINE, SpadesState, choose_action, score_side
from plugins.spades.rules import (
    BIDDING,
    DEAL_OVER,
    EXCHANGE,
    GAME_OVER,
    PLAYING,
    TRICK_DONE,
    game_winner,
    sort_hand,
    stack_deck,
    trick_winner,
)

NAMES = ("Ana", "Ben", "Cy", "Dee")
_DECK = frozenset(STANDARD)
SUIT_CARDS = {s: [f"{s}{r}" for r in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1)] for s in "CDHS"}

# --------------------------------------------------------------------------- helpers


def ok(state: SpadesState, player: int | None, action: dict[str, Any]) -> SpadesState:
    out = ENGINE.apply(state, player, action)
    assert not isinstance(out, Rejection), f"{player} {action}: {out}"
    return out


def rejected(state: SpadesState, player: int | None, action: dict[str, Any], code: str) -> str:
    out = ENGINE.apply(state, player, action)
    assert isinstance(out, Rejection), f"{action} should be rejected with {code}"
    assert out.code == code, out
    assert out.message and out.message[0].isupper()
    return out.message


def winners_for(counts: dict[int, int], spade_player: int = 3) -> list[int]:
    """Thirteen trick winners with the given counts; ``spade_player`` takes tricks 9 and 13."""
    assert sum(counts.values()) == 13 and counts.get(spade_player, 0) >= 2
    rest = dict(counts)
    rest[spade_player] -= 2
    order = [p for p in range(4) for _ in range(rest.get(p, 0))]
    return order[:8] + [spade_player] + order[8:] + [spade_player]


def scripted(
    winners: Sequence[int], dealer: int, spade_player: int = 3
) -> tuple[list[list[str]], list[list[tuple[int, str]]]]:
    """Hands and the 13 tricks (``(player, card)`` in play order) won by ``winners``.

    Tricks 1-9 are three each of clubs, diamonds and hearts (everyone follows), 10-12 spades
    (``spade_player`` leads the first with nothing but spades), 13 the four leftover cards:
    ``spade_player``'s 2 of spades wins it.
    """
    assert winners[8] == spade_player and winners[12] == spade_player
    others = [p for p in range(4) if p != spade_player]
    extra = {"C": others[0], "D": others[1], "H": others[2], "S": spade_player}
    hands: list[list[str]] = [[], [], [], []]
    plays: list[dict[int, str]] = []
    pools = {s: list(SUIT_CARDS[s][1:]) for s in "CDHS"}
    for k, suit in enumerate("CCCDDDHHHSSS"):
        block, pools[suit] = pools[suit][:4], pools[suit][4:]
        w = winners[k]
        cards = {w: block[3]}
        for p, c in zip([p for p in range(4) if p != w], block[:3], strict=True):
            cards[p] = c
        plays.append(cards)
    plays.append({extra[s]: SUIT_CARDS[s][0] for s in "CDHS"})
    for cards in plays:
        for p, c in cards.items():
            hands[p].append(c)
    tricks = []
    leader = (dealer + 1) % 4
    for k, cards in enumerate(plays):
        tricks.append([((leader + i) % 4, cards[(leader + i) % 4]) for i in range(4)])
        leader = winners[k]
    return hands, tricks


def dealer_of(seed: int) -> int:
    return ENGINE.new_game(4, {}, seed).dealer


def game_with(hands: Sequence[Sequence[str]], seed: int = 7, **options: Any) -> SpadesState:
    dealer = dealer_of(seed)
    return ENGINE.new_game(4, options, seed, deck=stack_deck(hands, dealer))


def redeal(state: SpadesState, hands: Sequence[Sequence[str]]) -> SpadesState:
    """The same state with other hands (a legal deal of the same cards), through load()."""
    data = ENGINE.dump(state)
    data["hands"] = [list(h) for h in hands]
    return ENGINE.load(data)


def bid_all(state: SpadesState, bids: dict[int, int]) -> SpadesState:
    for _ in range(4):
        assert state.turn is not None
        state = ok(state, state.turn, {"type": "bid", "bid": bids[state.turn]})
    return state


def play_tricks(state: SpadesState, tricks: Sequence[Sequence[tuple[int, str]]]) -> SpadesState:
    for trick in tricks:
        for p, card in trick:
            assert state.turn == p
            state = ok(state, p, {"type": "play", "card": card})
        assert state.phase == TRICK_DONE
        planned = ENGINE.scheduled(state)
        assert planned is not None and planned.player is None
        state = ok(state, None, planned.action)
    return state


def play_deal(
    state: SpadesState, bids: dict[int, int], counts: dict[int, int], *, fresh: bool = True
) -> SpadesState:
    """Deal hands giving ``counts`` tricks, bid ``bids``, play all 13 tricks."""
    hands, tricks = scripted(winners_for(counts), state.dealer)
    if fresh:
        state = redeal(state, hands)
    state = bid_all(state, bids)
    return play_tricks(state, tricks)


def first_state(counts: dict[int, int], seed: int = 7, **options: Any) -> SpadesState:
    hands, _ = scripted(winners_for(counts), dealer_of(seed))
    return game_with(hands, seed, **options)


def view_cards(view: dict[str, Any]) -> set[str]:
    """Every card code anywhere in a view."""
    return _DECK.intersection(msgspec.json.encode(view).decode().split('"'))


# ----------------------------------------------------------------------- the script itself


def test_scripted_deal_gives_exact_trick_counts() -> None:
    counts = {0: 3, 1: 4, 2: 1, 3: 5}
    state = play_deal(first_state(counts), {0: 3, 1: 4, 2: 1, 3: 5}, counts, fresh=False)
    assert state.phase == DEAL_OVER
    assert state.history[-1].tricks == (3, 4, 1, 5)


# ------------------------------------------------------------------------- deal and bidding


def test_rule_01_four_players_partners_opposite_clockwise() -> None:
    state = ENGINE.new_game(4, {}, 1)
    assert ENGINE.teams(state) == [[0, 2], [1, 3]]
    for n in (2, 3, 5):
        with pytest.raises(ValueError, match="exactly 4 players"):
            ENGINE.new_game(n, {}, 1)
    order = []
    for _ in range(4):
        assert state.turn is not None
        order.append(state.turn)
        state = ok(state, state.turn, {"type": "bid", "bid": 3})
    first = (state.dealer + 1) % 4
    assert order == [first, (first + 1) % 4, (first + 2) % 4, (first + 3) % 4]
    assert state.turn == first and state.phase == PLAYING


def test_rule_02_ace_high_and_spades_are_trumps() -> None:
    assert trick_winner(0, ["H13", "H1", "H12", "H2"]) == 1  # ace above king
    assert trick_winner(0, ["H10", "H11", "H9", "C1"]) == 1  # off-suit ace never wins
    assert trick_winner(2, ["D1", "S2", "D13", "C1"]) == 3  # lowest spade beats an ace
    assert trick_winner(1, ["D5", "S2", "S1", "S13"]) == 3  # highest spade
    assert trick_winner(3, ["S10", "S2", "H1", "S11"]) == 2  # spade led: highest spade
    assert sort_hand(["S2", "H1", "D13", "C1", "D1", "H2"]) == ("D13", "D1", "C1", "H2", "H1", "S2")


def test_rule_03_deal_one_at_a_time_from_the_dealers_left() -> None:
    dealer = dealer_of(5)
    deck = list(STANDARD)
    state = ENGINE.new_game(4, {}, 5, deck=deck)
    for i, card in enumerate(deck):
        assert card in state.hands[(dealer + 1 + i) % 4]
    assert [len(h) for h in state.hands] == [13] * 4
    assert {dealer_of(s) for s in range(40)} == {0, 1, 2, 3}  # first dealer is random
    assert ENGINE.new_game(4, {}, 5) == ENGINE.new_game(4, {}, 5)  # but from the seed
    assert ENGINE.new_game(4, {}, 5).hands != ENGINE.new_game(4, {}, 6).hands
    with pytest.raises(ValueError, match="52 cards"):
        ENGINE.new_game(4, {}, 5, deck=deck[:-1] + ["S2"])
    counts = {0: 4, 1: 3, 2: 3, 3: 3}
    over = play_deal(first_state(counts, 5), {0: 4, 1: 3, 2: 3, 3: 3}, counts, fresh=False)
    nxt = ok(over, 2, {"type": "next_deal"})
    assert nxt.dealer == (dealer + 1) % 4 and nxt.deal_no == 2
    assert nxt.turn == (dealer + 2) % 4
    assert [len(h) for h in nxt.hands] == [13] * 4


def test_rule_04_bidding_goes_round_once() -> None:
    state = ENGINE.new_game(4, {}, 3)
    first = (state.dealer + 1) % 4
    msg = rejected(state, (first + 1) % 4, {"type": "bid", "bid": 3}, "not_your_turn")
    assert "bid" in msg
    for bad in (14, -1, "3", None, 2.5, True):
        rejected(state, first, {"type": "bid", "bid": bad}, "bad_bid")
    state = ok(state, first, {"type": "bid", "bid": 4})
    assert ENGINE.view(state, None)["bids"][first] == 4  # public once made
    rejected(state, first, {"type": "bid", "bid": 5}, "not_your_turn")  # no changes
    state = ok(state, (first + 1) % 4, {"type": "bid", "bid": 13})  # no need to outbid
    state = ok(state, (first + 2) % 4, {"type": "bid", "bid": 1})
    state = ok(state, (first + 3) % 4, {"type": "bid", "bid": 0})
    assert state.phase == PLAYING
    rejected(state, first, {"type": "bid", "bid": 2}, "wrong_phase")
    contracts = ENGINE.view(state, None)["contracts"]
    assert contracts[first % 2] == 4 + 1
    assert contracts[(first + 1) % 2] == 13 + 0
    assert ENGINE.legal_actions(ENGINE.new_game(4, {}, 3), first)[-1] == {"type": "bid", "bid": 13}


def test_rule_05_zero_is_nil() -> None:
    state = ENGINE.new_game(4, {}, 3)
    first = (state.dealer + 1) % 4
    assert ENGINE.describe(state, first, {"type": "bid", "bid": 0}, NAMES) == (
        f"{NAMES[first]} bid nil"
    )
    assert score_side(0, 0, (0, 4), (0, 4)).points == 100 + 40
    counts = {0: 0, 1: 4, 2: 5, 3: 4}
    state = play_deal(first_state(counts), {0: 0, 1: 4, 2: 5, 3: 4}, counts, fresh=False)
    assert state.history[0].sides[0].nil_points == 100
    assert state.scores == (150, 80)


def test_rule_06_blind_nil() -> None:
    # Deal 1: side 0 (players 0 and 2) fails 10 -> -100; side 1 bids 8, takes 10 -> 82.
    counts = {0: 2, 1: 5, 2: 1, 3: 5}
    state = play_deal(
        first_state(counts, blind_nil=True), {0: 5, 1: 4, 2: 5, 3: 4}, counts, fresh=False
    )
    assert state.scores == (-100, 82)
    # Deal 2: side 0 trails by 182, so players 0 and 2 get their cards face down.
    state = ok(state, 1, {"type": "next_deal"})
    assert state.dealer == 0  # seed 7: players 1, 2 (looks first), 3 bid before player 0
    assert state.unseen == (True, False, True, False)
    v0 = ENGINE.view(state, 0)
    assert v0["hand"] is None and v0["hand_hidden"] is True
    assert not view_cards(v0)  # not even its own cards
    assert ENGINE.view(state, 1)["hand"] == list(state.hands[1])
    assert ENGINE.to_act(state)[0] == state.turn and 0 in ENGINE.to_act(state)

    counts2 = {0: 0, 1: 4, 2: 5, 3: 4}
    final, tricks = scripted(winners_for(counts2), state.dealer)
    given, returned = final[0][:2], final[2][:2]  # 2 -> 0, then 0 -> 2
    before = [list(h) for h in final]
    before[0] = [c for c in final[0] if c not in given] + returned
    before[2] = [c for c in final[2] if c not in returned] + given
    state = redeal(state, before)

    bids = {1: 4, 2: 4, 3: 4}
    while state.turn != 0:
        p = state.turn
        assert p is not None
        if p == 2:  # side 0's other player looks first, then bids normally
            state = ok(state, 2, {"type": "look"})
            rejected(state, 2, {"type": "look"}, "already_looked")
            assert ENGINE.view(state, 2)["hand"] == list(state.hands[2])
        if p in (1, 3):
            msg = rejected(
                state, p, {"type": "bid", "bid": 0, "blind": True}, "blind_nil_not_allowed"
            )
            assert "trails by 100" in msg
        state = ok(state, p, {"type": "bid", "bid": bids[p]})
    assert {"type": "bid", "bid": 0, "blind": True} in ENGINE.legal_actions(state, 0)
    rejected(state, 0, {"type": "bid", "bid": 2, "blind": True}, "blind_nil_not_allowed")
    assert ENGINE.describe(state, 0, {"type": "bid", "bid": 0, "blind": True}, NAMES) == (
        "Ana bid blind nil"
    )
    state = ok(state, 0, {"type": "bid", "bid": 0, "blind": True})
    if state.phase == BIDDING:
        state = bid_all_rest(state, bids)
    assert state.phase == EXCHANGE and state.turn == 2
    assert ENGINE.status(state, NAMES) == "Cy to pass 2 cards to Ana"
    rejected(state, 0, {"type": "pass_cards", "cards": returned}, "not_your_turn")
    rejected(state, 2, {"type": "pass_cards", "cards": [given[0]]}, "bad_pass")
    rejected(state, 2, {"type": "pass_cards", "cards": [given[0], given[0]]}, "bad_pass")
    rejected(state, 2, {"type": "pass_cards", "cards": [given[0], returned[0]]}, "not_in_hand")
    assert ENGINE.describe(state, 2, {"type": "pass_cards", "cards": given}, NAMES) == (
        "Cy passed 2 cards to Ana"
    )
    state = ok(state, 2, {"type": "pass_cards", "cards": given})
    assert [len(h) for h in state.hands] == [15, 13, 11, 13]
    assert ENGINE.view(state, 0)["exchange"]["received"] == given
    assert ENGINE.view(state, 1)["exchange"]["received"] is None
    assert not set(given) & view_cards(ENGINE.view(state, 1))
    assert ENGINE.load(ENGINE.dump(state)) == state
    state = ok(state, 0, {"type": "pass_cards", "cards": returned})
    assert state.phase == PLAYING
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in final]
    state = play_tricks(state, tricks)
    side0 = state.history[-1].sides[0]
    assert side0.nil_points == 200 and side0.points == 200 + 40 + 1
    assert state.scores[0] == -100 + 241 and state.bags[0] == 1


def bid_all_rest(state: SpadesState, bids: dict[int, int]) -> SpadesState:
    while state.phase == BIDDING:
        assert state.turn is not None
        state = ok(state, state.turn, {"type": "bid", "bid": bids[state.turn]})
    return state


def test_rule_06_blind_nil_needs_the_option_and_a_deficit() -> None:
    state = ENGINE.new_game(4, {}, 3)
    first = (state.dealer + 1) % 4
    assert state.unseen == (False,) * 4
    msg = rejected(state, first, {"type": "bid", "bid": 0, "blind": True}, "blind_nil_not_allowed")
    assert "not allowed" in msg
    state = ENGINE.new_game(4, {"blind_nil": True}, 3)
    assert state.unseen == (False,) * 4  # level scores: nobody may bid blind
    rejected(state, first, {"type": "bid", "bid": 0, "blind": True}, "blind_nil_not_allowed")
    rejected(state, first, {"type": "look"}, "already_looked")


def exchange_for(
    state: SpadesState, final: Sequence[Sequence[str]], blind: int
) -> tuple[SpadesState, list[str], list[str]]:
    """``state`` redealt so that after the blind nil exchange (partner gives ``given``, the
    bidder returns ``returned``) the hands are ``final``."""
    partner = (blind + 2) % 4
    given, returned = list(final[blind][:2]), list(final[partner][:2])
    before = [list(h) for h in final]
    before[blind] = [c for c in final[blind] if c not in given] + returned
    before[partner] = [c for c in final[partner] if c not in returned] + given
    return redeal(state, before), given, returned


@pytest.mark.parametrize(
    ("bids", "counts", "scores", "face_down"),
    [
        # Side 0 fails 14 (-140), side 1 bids 4 and takes 4 (-40): trails by exactly 100.
        ({0: 7, 1: 1, 2: 7, 3: 3}, {0: 1, 1: 1, 2: 9, 3: 2}, (-140, -40), True),
        # Side 0 bids 7, takes 2 (-70); side 1 bids 2, takes 11 (29): trails by 99.
        ({0: 1, 1: 1, 2: 6, 3: 1}, {0: 1, 1: 1, 2: 1, 3: 10}, (-70, 29), False),
    ],
)
def test_rule_06_trailing_by_100_is_the_limit(
    bids: dict[int, int], counts: dict[int, int], scores: tuple[int, int], face_down: bool
) -> None:
    state = play_deal(first_state(counts, blind_nil=True), bids, counts, fresh=False)
    assert state.scores == scores
    state = ok(state, 1, {"type": "next_deal"})
    assert state.unseen == (face_down, False, face_down, False)  # the side ahead: never
    # Player 1 is the first to bid (dealer 0) and is ahead; player 2 is side 0.
    rejected(state, 1, {"type": "bid", "bid": 0, "blind": True}, "blind_nil_not_allowed")
    state = ok(state, 1, {"type": "bid", "bid": 3})
    blind = {"type": "bid", "bid": 0, "blind": True}
    assert (blind in ENGINE.legal_actions(state, 2)) is face_down
    if face_down:
        after = ok(state, 2, blind)
        assert after.blind == (False, False, True, False)
    else:
        msg = rejected(state, 2, blind, "blind_nil_not_allowed")
        assert "trails by 100" in msg
        assert ENGINE.view(state, 2)["hand"] == list(state.hands[2])


def test_rule_06_failed_blind_nil_costs_200() -> None:
    # Deal 1 leaves side 0 at -100 against 82, as in test_rule_06_blind_nil.
    counts = {0: 2, 1: 5, 2: 1, 3: 5}
    state = play_deal(
        first_state(counts, blind_nil=True), {0: 5, 1: 4, 2: 5, 3: 4}, counts, fresh=False
    )
    state = ok(state, 1, {"type": "next_deal"})
    assert state.unseen == (True, False, True, False)
    # Deal 2: Ana (player 0) bids blind nil but takes 2 tricks; Cy bids 3 and takes 3.
    counts2 = {0: 2, 1: 4, 2: 3, 3: 4}
    final, tricks = scripted(winners_for(counts2), state.dealer)
    state, given, returned = exchange_for(state, final, 0)
    for p, bid in ((1, 4), (2, 3), (3, 4)):
        state = ok(state, p, {"type": "bid", "bid": bid})
    assert state.phase == BIDDING and state.turn == 0
    state = ok(state, 0, {"type": "bid", "bid": 0, "blind": True})
    state = ok(
        ok(state, 2, {"type": "pass_cards", "cards": given}),
        0,
        {"type": "pass_cards", "cards": returned},
    )
    state = play_tricks(state, tricks)
    deal = state.history[-1]
    assert deal.blind == (True, False, False, False) and deal.tricks == (2, 4, 3, 4)
    side0 = deal.sides[0]
    # -200 for the blind nil, +30 for Cy's 3 (Ana's tricks don't count towards it), +2 bags.
    assert (side0.nil_points, side0.contract_points, side0.bags_gained) == (-200, 30, 2)
    assert side0.points == -168 and side0.counted == 3
    assert state.scores == (-100 - 168, 82 + 80) and state.bags == (2, 2)  # side 1: 2 from deal 1
    # The same through the scoring function alone: blind nil failed vs plain nil failed.
    assert score_side(0, 0, (0, 3), (2, 3), (True, False)).points == -200 + 30 + 2
    assert score_side(0, 0, (0, 3), (2, 3), (False, False)).points == -100 + 30 + 2
    assert "blind nil" in ENGINE.reveal(state)[0].note  # type: ignore[index]


# ------------------------------------------------------------------------------------- play


def test_rule_07_first_lead_left_of_dealer_and_not_a_spade() -> None:
    counts = {0: 3, 1: 4, 2: 2, 3: 4}
    state = bid_all(first_state(counts), {0: 3, 1: 3, 2: 3, 3: 3})
    leader = (state.dealer + 1) % 4
    assert state.turn == leader and state.leader == leader
    spade = next(c for c in state.hands[leader] if c[0] == "S")
    msg = rejected(state, leader, {"type": "play", "card": spade}, "spades_not_broken")
    assert "first trick" in msg and "spades" in msg
    assert {a["card"][0] for a in ENGINE.legal_actions(state, leader)} == {"C", "D", "H"}
    # A leader holding only spades may lead one.
    hands: list[list[str]] = [[], [], [], []]
    dealer = dealer_of(7)
    hands[(dealer + 1) % 4] = SUIT_CARDS["S"]
    for i, s in enumerate("CDH"):
        hands[(dealer + 2 + i) % 4] = SUIT_CARDS[s]
    state = bid_all(game_with(hands, 7), {0: 3, 1: 3, 2: 3, 3: 3})
    state = ok(state, (dealer + 1) % 4, {"type": "play", "card": "S5"})
    assert state.spades_broken


def test_rule_08_follow_suit_if_you_can() -> None:
    counts = {0: 3, 1: 4, 2: 2, 3: 4}
    state = bid_all(first_state(counts), {0: 3, 1: 3, 2: 3, 3: 3})
    leader = state.turn
    assert leader is not None
    state = ok(
        state, leader, {"type": "play", "card": next(c for c in state.hands[leader] if c[0] == "C")}
    )
    nxt = (leader + 1) % 4
    diamond = next(c for c in state.hands[nxt] if c[0] == "D")
    msg = rejected(state, nxt, {"type": "play", "card": diamond}, "must_follow_suit")
    assert "clubs were led" in msg and "of clubs" in msg
    assert {a["card"][0] for a in ENGINE.legal_actions(state, nxt)} == {"C"}
    # Void in the suit led: any card.
    hands: list[list[str]] = [[], [], [], []]
    dealer = dealer_of(7)
    for i, s in enumerate("CDHS"):
        hands[(dealer + 1 + i) % 4] = SUIT_CARDS[s]
    state = bid_all(game_with(hands, 7), {0: 3, 1: 3, 2: 3, 3: 3})
    state = ok(state, (dealer + 1) % 4, {"type": "play", "card": "C9"})
    assert len(ENGINE.legal_actions(state, (dealer + 2) % 4)) == 13
    state = ok(state, (dealer + 2) % 4, {"type": "play", "card": "D1"})


def test_rule_09_highest_spade_or_card_of_suit_led_wins_and_leads() -> None:
    hands: list[list[str]] = [[], [], [], []]
    dealer = dealer_of(7)
    for i, s in enumerate("CDHS"):
        hands[(dealer + 1 + i) % 4] = SUIT_CARDS[s]
    state = bid_all(game_with(hands, 7), {0: 3, 1: 3, 2: 3, 3: 3})
    lead = (dealer + 1) % 4
    trick = [(lead, "C1"), ((lead + 1) % 4, "D1"), ((lead + 2) % 4, "H1"), ((lead + 3) % 4, "S2")]
    for p, c in trick[:3]:
        state = ok(state, p, {"type": "play", "card": c})
    state = ok(state, trick[3][0], {"type": "play", "card": "S2"})
    assert state.phase == TRICK_DONE and ENGINE.to_act(state) == []
    view = ENGINE.view(state, None)
    assert [t["card"] for t in view["trick"]] == ["C1", "D1", "H1", "S2"]  # still visible
    assert view["trick_winner"] == (lead + 3) % 4
    assert ENGINE.status(state, NAMES) == f"{NAMES[(lead + 3) % 4]} won the trick"
    assert ENGINE.describe(state, None, {"type": "gather"}, NAMES) == (
        f"{NAMES[(lead + 3) % 4]} won the trick with the 2 of spades"
    )
    planned = ENGINE.scheduled(state)
    assert planned is not None and planned.delay == 1.0 and planned.action == {"type": "gather"}
    rejected(state, 0, {"type": "gather"}, "automatic_action")
    state = ok(state, None, {"type": "gather"})
    assert state.turn == (lead + 3) % 4 and state.phase == PLAYING
    assert ENGINE.view(state, None)["tricks_taken"][(lead + 3) % 4] == 1
    assert ENGINE.view(state, None)["last_trick"]["cards"] == ["C1", "D1", "H1", "S2"]
    rejected(state, None, {"type": "gather"}, "wrong_phase")


def test_rule_10_spades_not_led_until_broken() -> None:
    counts = {0: 3, 1: 4, 2: 2, 3: 4}
    winners = winners_for(counts)
    state = first_state(counts)
    _, tricks = scripted(winners, state.dealer)
    state = bid_all(state, {0: 3, 1: 3, 2: 3, 3: 3})
    state = play_tricks(state, tricks[:3])
    leader = state.turn
    assert leader is not None and not state.spades_broken
    spade = next(c for c in state.hands[leader] if c[0] == "S")
    msg = rejected(state, leader, {"type": "play", "card": spade}, "spades_not_broken")
    assert "haven't been broken" in msg
    # Trick 10: player 3 holds nothing but spades and may lead one, which breaks spades.
    state = play_tricks(state, tricks[3:9])
    assert state.turn == 3 and all(c[0] == "S" for c in state.hands[3])
    state = play_tricks(state, tricks[9:10])
    assert state.spades_broken
    # A spade played on another suit's lead breaks spades too; then spades may be led.
    hands: list[list[str]] = [[], [], [], []]
    dealer = dealer_of(7)
    a, b, c, d = ((dealer + 1 + i) % 4 for i in range(4))
    hands[a] = SUIT_CARDS["C"]
    hands[b] = [x for x in SUIT_CARDS["S"] if x != "S13"] + ["D2"]
    hands[c] = SUIT_CARDS["D"][1:] + ["S13"]
    hands[d] = SUIT_CARDS["H"]
    state = bid_all(game_with(hands, 7), {0: 3, 1: 3, 2: 3, 3: 3})
    for p, card in ((a, "C2"), (b, "S2"), (c, "D3"), (d, "H2")):
        state = ok(state, p, {"type": "play", "card": card})
    state = ok(state, None, {"type": "gather"})
    assert state.turn == b and state.spades_broken
    assert {"type": "play", "card": "S3"} in ENGINE.legal_actions(state, b)
    ok(state, b, {"type": "play", "card": "S3"})


# ---------------------------------------------------------------------------------- scoring


def test_rule_11_contract_made_or_failed() -> None:
    made = score_side(0, 0, (3, 2), (3, 2))
    assert (made.contract_points, made.bags_gained, made.points) == (50, 0, 50)
    over = score_side(0, 0, (3, 2), (5, 3))
    assert (over.points, over.bags) == (53, 3)
    failed = score_side(100, 4, (4, 3), (3, 3))
    assert (failed.points, failed.score, failed.bags) == (-70, 30, 4)  # no bags when set
    counts = {0: 6, 1: 2, 2: 2, 3: 3}
    state = play_deal(first_state(counts), {0: 4, 1: 3, 2: 3, 3: 3}, counts, fresh=False)
    assert state.scores == (71, -60) and state.bags == (1, 0)


def test_rule_12_bags_cost_100_at_ten() -> None:
    assert score_side(0, 9, (2, 2), (3, 2)).score == 0 + 40 + 1 - 100
    assert score_side(0, 9, (2, 2), (3, 2)).bags == 0
    # Twenty bags at once (a failed double nil): two penalties.
    double = score_side(0, 9, (0, 0), (6, 7))
    assert (double.penalty, double.bags, double.points) == (-200, 2, -200 + 13 - 200)


def test_rule_13_nil_scored_apart_from_partner() -> None:
    made = score_side(0, 0, (0, 3), (0, 4))
    assert (made.nil_points, made.contract_points, made.points, made.bags) == (100, 30, 131, 1)
    failed = score_side(0, 0, (0, 3), (1, 3))
    assert (failed.nil_points, failed.contract_points, failed.bags_gained) == (-100, 30, 1)
    # The nil bidder's tricks don't help the partner make the bid.
    short = score_side(0, 0, (0, 4), (2, 3))
    assert (short.contract_points, short.nil_points, short.points, short.bags) == (
        -40,
        -100,
        -138,
        2,
    )
    assert score_side(0, 0, (0, 0), (0, 0)).points == 200


def test_rule_14_first_side_to_target_wins() -> None:
    assert game_winner((500, 480), 500) == 0
    assert game_winner((490, 510), 500) == 1
    assert game_winner((520, 510), 500) == 0
    assert game_winner((510, 510), 500) is None
    assert game_winner((499, -20), 500) is None
    # Through play, target 200: 80 / 150 after deal 1, then both reach 230 -> another deal.
    counts1 = {0: 4, 1: 0, 2: 4, 3: 5}
    state = first_state(counts1, target=200)
    state = play_deal(state, {0: 4, 1: 0, 2: 4, 3: 5}, counts1, fresh=False)
    assert state.scores == (80, 150) and state.phase == DEAL_OVER
    state = ok(state, 0, {"type": "next_deal"})
    counts2 = {0: 0, 1: 4, 2: 5, 3: 4}
    state = play_deal(state, {0: 0, 1: 4, 2: 5, 3: 4}, counts2)
    assert state.scores == (230, 230)
    assert state.phase == DEAL_OVER and ENGINE.outcome(state) is None  # tie: play on
    state = ok(state, 3, {"type": "next_deal"})
    counts3 = {0: 3, 1: 3, 2: 3, 3: 4}
    state = play_deal(state, {0: 3, 1: 3, 2: 3, 3: 4}, counts3)
    assert state.scores == (290, 300) and state.phase == GAME_OVER
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (1, 3) and outcome.scores == (290, 300, 290, 300)
    assert ENGINE.status(state, NAMES) == "Ben & Dee won the game 300 to 290"
    assert ENGINE.to_act(state) == [] and ENGINE.legal_actions(state, 0) == []
    rejected(state, 0, {"type": "next_deal"}, "game_over")
    assert choose_action(ENGINE, state, 0, random.Random(1)) is None


# ------------------------------------------------------------------------- worked examples


@pytest.mark.parametrize(("taken", "score", "bags"), [(7, 389, 9), (8, 290, 0), (9, 291, 1)])
def test_worked_example_337_with_7_bags_bids_5(taken: int, score: int, bags: int) -> None:
    pure = score_side(337, 7, (3, 2), (taken - 2, 2))
    assert (pure.score, pure.bags) == (score, bags)
    # The same numbers through play: 164 and 4 bags, 173 and 3 bags, then the 5 bid.
    counts = {0: 0, 1: 1, 2: 10, 3: 2}
    state = play_deal(first_state(counts), {0: 0, 1: 1, 2: 6, 3: 2}, counts, fresh=False)
    assert (state.scores[0], state.bags[0]) == (164, 4)
    state = ok(state, 0, {"type": "next_deal"})
    state = play_deal(state, {0: 0, 1: 1, 2: 7, 3: 2}, counts)
    assert (state.scores[0], state.bags[0]) == (337, 7)
    state = ok(state, 0, {"type": "next_deal"})
    last = {0: taken - 2, 1: 13 - taken - 2, 2: 2, 3: 2}
    state = play_deal(state, {0: 3, 1: 2, 2: 2, 3: 2}, last)
    assert (state.scores[0], state.bags[0]) == (score, bags)
    side = state.history[-1].sides[0]
    assert side.bid == 5 and side.tricks == taken
    board = ENGINE.scoreboard(state, NAMES)
    last_bags = {7: "9 (+2)", 8: "0 (+3, 10 removed)", 9: "1 (+4, 10 removed)"}[taken]
    assert [row[1][2] for row in board.rows] == ["4 (+4)", "7 (+3)", last_bags]
    assert board.totals[0] == score and board.totals[2] == bags


def test_worked_example_failed_nil_minus_58() -> None:
    pure = score_side(0, 0, (0, 4), (2, 4))
    assert (pure.points, pure.bags_gained, pure.bags) == (-58, 2, 2)
    assert (pure.nil_points, pure.contract_points) == (-100, 40)
    counts = {0: 2, 1: 3, 2: 4, 3: 4}  # North = player 0, South = player 2
    state = play_deal(first_state(counts), {0: 0, 1: 3, 2: 4, 3: 4}, counts, fresh=False)
    assert state.scores[0] == -58 and state.bags[0] == 2
    board = ENGINE.scoreboard(state, NAMES)
    assert board.rows[0][1][0] == "bid 4 + nil, took 6: -58"


# ------------------------------------------------------------------------------ rejections


def test_rejections_have_codes_and_readable_messages() -> None:
    state = bid_all(first_state({0: 3, 1: 4, 2: 2, 3: 4}), {0: 3, 1: 3, 2: 3, 3: 3})
    p = state.turn
    assert p is not None
    rejected(state, 7, {"type": "play", "card": "H2"}, "bad_player")
    rejected(state, True, {"type": "play", "card": "H2"}, "bad_player")  # type: ignore[arg-type]
    rejected(state, None, {"type": "play", "card": "H2"}, "bad_player")
    rejected(state, p, "play", "bad_action")  # type: ignore[arg-type]
    rejected(state, p, {"card": "H2"}, "bad_action")
    assert "no move called 'fold'" in rejected(state, p, {"type": "fold"}, "unknown_action")
    assert "H14" in rejected(state, p, {"type": "play", "card": "H14"}, "bad_card")
    rejected(state, p, {"type": "play"}, "bad_card")
    missing = next(c for c in STANDARD if c not in state.hands[p])
    msg = rejected(state, p, {"type": "play", "card": missing}, "not_in_hand")
    assert "of" in msg and missing not in msg  # named in words
    rejected(
        state, (p + 1) % 4, {"type": "play", "card": state.hands[(p + 1) % 4][0]}, "not_your_turn"
    )
    rejected(state, p, {"type": "next_deal"}, "wrong_phase")
    rejected(state, p, {"type": "pass_cards", "cards": ["C2", "C3"]}, "wrong_phase")
    rejected(state, p, {"type": "look"}, "wrong_phase")
    fresh = ENGINE.new_game(4, {}, 3)
    rejected(fresh, fresh.turn, {"type": "play", "card": "C2"}, "wrong_phase")
    with pytest.raises(ValueError, match="target"):
        ENGINE.new_game(4, {"target": 400}, 1)
    with pytest.raises(ValueError, match="no option"):
        ENGINE.new_game(4, {"jokers": True}, 1)


# ------------------------------------------------------------------------------------ load


def is_plain(value: Any) -> bool:
    """Only str/int/bool/None, lists and dicts with string keys (no tuples, no structs)."""
    if isinstance(value, list):
        return all(is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_plain(v) for k, v in value.items())
    return value is None or isinstance(value, str | int | bool)


def test_dump_load_round_trip_in_every_phase() -> None:
    counts = {0: 3, 1: 4, 2: 2, 3: 4}
    state = first_state(counts, target=200)
    _, tricks = scripted(winners_for(counts), state.dealer)
    seen = {state.phase}
    assert ENGINE.load(ENGINE.dump(state)) == state
    state = bid_all(state, {0: 3, 1: 3, 2: 3, 3: 3})
    for trick in tricks:
        for p, card in trick:
            state = ok(state, p, {"type": "play", "card": card})
            data = msgpack.unpackb(msgpack.packb(ENGINE.dump(state)))
            assert ENGINE.load(data) == state
            seen.add(state.phase)
        state = ok(state, None, {"type": "gather"})
    assert ENGINE.load(ENGINE.dump(state)) == state
    seen.add(state.phase)
    assert seen == {BIDDING, PLAYING, TRICK_DONE, DEAL_OVER}
    assert is_plain(ENGINE.dump(state))
    assert all(is_plain(ENGINE.view(state, v)) for v in (None, 0, 1, 2, 3))


def broken(state: SpadesState, **changes: Any) -> dict[str, Any]:
    data = ENGINE.dump(state)
    data.update(changes)
    return data


def test_load_rejects_impossible_states() -> None:
    state = bid_all(first_state({0: 3, 1: 4, 2: 2, 3: 4}), {0: 3, 1: 3, 2: 3, 3: 3})
    hands = [list(h) for h in state.hands]
    dup = [list(h) for h in hands]
    dup[0][0] = dup[1][0]
    short = [h[:-1] for h in hands]
    moved = [list(h) for h in hands]
    moved[1].append(moved[0].pop())
    cases: list[tuple[dict[str, Any], str]] = [
        (broken(state, hands=dup), "twice"),
        (broken(state, hands=short), "missing"),
        (broken(state, hands=moved), "should hold"),
        (broken(state, phase="dealing"), "phase"),
        (broken(state, turn=4), "player 0-3"),
        (broken(state, turn=(state.turn or 0) + 1), "turn"),
        (broken(state, dealer=-1), "dealer"),
        (broken(state, scores=[50, 0]), "history"),
        (broken(state, bids=[3, None, 3, 3]), "Every player has bid"),
        (broken(state, bids=[3, 3, 14, 3]), "bid must be"),
        (broken(state, spades_broken=True), "spades_broken"),
        (broken(state, winner=1), "winner"),
        (broken(state, hands=[[*hands[0][:-1], "X9"], *hands[1:]]), "not a card"),
        (broken(state, options={"target": 400, "blind_nil": False}), "target"),
        (broken(state, unseen=[True, False, False, False]), "seen the cards"),
        (broken(state, blind=[True, False, False, False]), "nil bid can be blind"),
        ({"phase": "playing"}, "Not a Spades state"),
        ({**ENGINE.dump(state), "hands": "none"}, "Not a Spades state"),
    ]
    for data, words in cases:
        with pytest.raises(InvalidState, match=words):
            ENGINE.load(data)
    over = play_deal(
        first_state({0: 3, 1: 4, 2: 2, 3: 4}),
        {0: 3, 1: 4, 2: 2, 3: 4},
        {0: 3, 1: 4, 2: 2, 3: 4},
        fresh=False,
    )
    data = ENGINE.dump(over)
    data["history"][0]["sides"][0]["points"] += 1
    with pytest.raises(InvalidState, match="add up"):
        ENGINE.load(data)
    data = ENGINE.dump(over)
    data["tricks"][0]["winner"] = (data["tricks"][0]["winner"] + 1) % 4
    with pytest.raises(InvalidState, match="winner"):
        ENGINE.load(data)


# ------------------------------------------------------------------- view, words, scoreboard


def test_view_is_private_and_complete() -> None:
    state = bid_all(first_state({0: 3, 1: 4, 2: 2, 3: 4}), {0: 3, 1: 4, 2: 2, 3: 4})
    p = state.turn
    assert p is not None
    state = ok(state, p, {"type": "play", "card": next(c for c in state.hands[p] if c[0] == "C")})
    for viewer in (0, 1, 2, 3):
        view = ENGINE.view(state, viewer)
        assert view["hand"] == list(state.hands[viewer])
        assert view_cards(view) == set(state.hands[viewer]) | set(state.trick)
        assert view["player"] == viewer and view["to_act"] == [(p + 1) % 4]
    spectator = ENGINE.view(state, None)
    assert spectator["hand"] is None and view_cards(spectator) == set(state.trick)
    assert spectator["hand_counts"] == [13 - (q == p) for q in range(4)]
    assert spectator["stock_count"] == 0
    assert spectator["bids"] == [3, 4, 2, 4] and spectator["contracts"] == [5, 8]
    assert spectator["trick"] == [{"player": p, "card": state.trick[0]}]
    for key in (
        "dealer",
        "leader",
        "turn",
        "scores",
        "bags",
        "history",
        "spades_broken",
        "tricks_taken",
        "last_trick",
        "phase",
        "teams",
    ):
        assert key in spectator


def test_words_status_scoreboard_and_reveal() -> None:
    counts = {0: 2, 1: 3, 2: 4, 3: 4}
    state = first_state(counts)
    first = (state.dealer + 1) % 4
    assert ENGINE.status(state, NAMES) == f"{NAMES[first]} to bid"
    assert ENGINE.describe(state, first, {"type": "bid", "bid": 4}, NAMES) == (
        f"{NAMES[first]} bid 4"
    )
    state = bid_all(state, {0: 0, 1: 3, 2: 4, 3: 4})
    assert ENGINE.status(state, NAMES) == f"{NAMES[first]} to play"
    card = next(c for c in state.hands[first] if c[0] == "C")
    line = ENGINE.describe(state, first, {"type": "play", "card": card}, NAMES)
    assert line.startswith(f"{NAMES[first]} led the ") and line.endswith(" of clubs")
    assert ENGINE.reveal(state) is None
    _, tricks = scripted(winners_for(counts), state.dealer)
    state = play_tricks(state, tricks)
    assert ENGINE.status(state, NAMES) == "Deal 1 is over: Ana & Cy -58, Ben & Dee 70"
    assert ENGINE.to_act(state) == [0, 1, 2, 3]
    assert ENGINE.describe(state, 1, {"type": "next_deal"}, NAMES) == (
        f"Ben started deal 2; {NAMES[(state.dealer + 1) % 4]} deals"
    )
    board = ENGINE.scoreboard(state, NAMES)
    assert board.columns == ("Ana & Cy", "Ben & Dee", "Ana & Cy bags", "Ben & Dee bags")
    assert board.rows == (
        ("Deal 1", ("bid 4 + nil, took 6: -58", "bid 7, took 7: +70", "2 (+2)", "0")),
    )
    assert board.totals == (-58, 70, 2, 0) and board.note == "First to 500; 10 bags cost 100"
    assert board.as_data()["scored"] == 2  # the summary line shows scores, not bag counts
    reveal = ENGINE.reveal(state)
    assert reveal is not None and len(reveal) == 4
    assert sorted(c for line in reveal for c in line.cards) == sorted(STANDARD)
    assert reveal[0].note == "bid nil, took 2 tricks" and reveal[0].points == -58
    assert reveal[1].points == 70
    history = ENGINE.view(state, 0)["history"]
    assert history[0]["sides"][0]["points"] == -58 and history[0]["tricks"] == [2, 3, 4, 4]
    options = {o.name: o for o in ENGINE.info.options}
    assert options["target"].choices == (200, 300, 500) and options["target"].label
    assert options["blind_nil"].default is False and options["blind_nil"].description
