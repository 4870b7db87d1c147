"""The Spades computer player on constructed deals: it bids from its own hand (and its
partner's bid), and it protects a partner's nil in play.

Every state is reached through ``apply`` from a stacked deck (``new_game(..., deck=...)``), so
the bot sees exactly what its seat would see at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from plugins.base import Rejection
from plugins.cards import STANDARD
from plugins.spades import ENGINE, SpadesState, choose_action
from plugins.spades.rules import BIDDING, PLAYING, stack_deck

SEED = 7  # deal 1 of seed 7: player 3 deals, player 0 bids and leads first
LOW_CLUBS = ["C2", "C3", "C4", "C5", "C6"]
LOW_DIAMONDS = ["D2", "D3", "D4", "D5", "D6"]

STRONG = ["S1", "S13", "S12", "S11", "S10", "S9", "H1", "D1", "C1", "H2", "D2", "C2", "C3"]
MEDIUM = ["S2", "S3", "H1", "H3", "H4", "H5", "D1", "D3", "D4", "D5", "C2", "C3", "C4"]
WEAK = ["S2", "S3", "H2", "H3", "H4", "H5", "D2", "D3", "D4", "D5", "C2", "C3", "C4"]


def ok(state: SpadesState, player: int, action: dict[str, Any]) -> SpadesState:
    out = ENGINE.apply(state, player, action)
    assert not isinstance(out, Rejection), f"{player} {action}: {out}"
    return out


def deal(fixed: dict[int, Sequence[str]]) -> SpadesState:
    """A first deal where player ``p`` holds ``fixed[p]`` (the rest filled from the deck)."""
    used = {c for cards in fixed.values() for c in cards}
    rest = [c for c in STANDARD if c not in used]
    hands = []
    for p in range(4):
        mine = list(fixed.get(p, ()))
        take = 13 - len(mine)
        hands.append(mine + rest[:take])
        rest = rest[take:]
    state = ENGINE.new_game(4, {}, SEED, deck=stack_deck(hands, 3))
    assert state.dealer == 3 and state.turn == 0
    return state


def bot(state: SpadesState, player: int) -> dict[str, Any] | None:
    action = choose_action(ENGINE, state, player, random.Random(1))
    assert action is None or action in ENGINE.legal_actions(state, player)
    return action


def first_bid(hand: Sequence[str]) -> int:
    action = bot(deal({0: hand}), 0)
    assert action is not None and action["type"] == "bid"
    return int(action["bid"])


# ------------------------------------------------------------------------------ bidding


def test_bid_follows_the_strength_of_the_hand() -> None:
    strong, medium, weak = first_bid(STRONG), first_bid(MEDIUM), first_bid(WEAK)
    assert strong >= 7  # six top spades and three side aces
    assert 1 <= medium <= 3  # two side aces and nothing else
    assert weak == 0  # no ace, spades to the 3: nil
    assert strong > medium > weak


def test_bid_reads_the_partners_bid() -> None:
    # Player 2 bids third, after its partner (player 0) and player 1.
    def third_bid(partner_bid: int, hand: Sequence[str]) -> int:
        state = ok(deal({2: hand}), 0, {"type": "bid", "bid": partner_bid})
        state = ok(state, 1, {"type": "bid", "bid": 3})
        assert state.turn == 2
        action = bot(state, 2)
        assert action is not None and action["type"] == "bid"
        return int(action["bid"])

    assert third_bid(3, WEAK) == 0  # a weak hand bids nil ...
    assert third_bid(0, WEAK) >= 1  # ... but not beside a partner who already bid nil
    assert third_bid(3, STRONG) >= 7
    assert third_bid(10, STRONG) <= 3  # the side never bids more than 13 tricks


# --------------------------------------------------------------------------------- play


def after_plays(
    fixed: dict[int, Sequence[str]], bids: Sequence[int], plays: Sequence[str]
) -> SpadesState:
    state = deal(fixed)
    for p, b in enumerate(bids):
        state = ok(state, p, {"type": "bid", "bid": b})
    assert state.phase == PLAYING and state.turn == 0
    for card in plays:
        assert state.turn is not None
        state = ok(state, state.turn, {"type": "play", "card": card})
    return state


@pytest.mark.parametrize(("partner_bid", "card"), [(0, "H12"), (3, "H9")])
def test_second_hand_plays_high_to_cover_a_partners_nil(partner_bid: int, card: str) -> None:
    # Ana (0) leads the 5 of hearts; Ben (1) holds 2, 9 and queen; his partner Dee (3) plays
    # last. Beside a nil bidder Ben plays his highest heart so Dee can duck under it;
    # otherwise he wins as cheaply as he can.
    fixed = {0: ["H5"], 1: ["H2", "H9", "H12", *LOW_CLUBS, *LOW_DIAMONDS], 2: ["H1", "H13"]}
    state = after_plays(fixed, [3, 3, 3, partner_bid], ["H5"])
    assert state.turn == 1
    assert bot(state, 1) == {"type": "play", "card": card}


@pytest.mark.parametrize(("partner_bid", "card"), [(0, "H10"), (3, "H2")])
def test_last_hand_overtakes_a_nil_partner_who_is_winning(partner_bid: int, card: str) -> None:
    # Ana leads the 3 of hearts, Ben (1) plays the 9 and is winning, Cy plays the 5. Dee (3),
    # last, takes the trick off a nil-bidding partner; a partner who bid tricks keeps it.
    fixed = {
        0: ["H3", "H1"],
        1: ["H9"],
        2: ["H5"],
        3: ["H2", "H10", "H13", *LOW_CLUBS, *LOW_DIAMONDS],
    }
    state = after_plays(fixed, [3, partner_bid, 3, 3], ["H3", "H9", "H5"])
    assert state.turn == 3
    assert bot(state, 3) == {"type": "play", "card": card}


def test_nil_bidder_ducks_with_its_highest_losing_card() -> None:
    fixed = {0: ["H11"], 1: ["H2", "H9", "H12", *LOW_CLUBS, *LOW_DIAMONDS]}
    state = after_plays(fixed, [3, 0, 3, 3], ["H11"])
    assert bot(state, 1) == {"type": "play", "card": "H9"}  # not the queen, not the 2


def test_the_bot_waits_when_it_is_not_its_turn_to_bid() -> None:
    state = deal({})
    assert state.phase == BIDDING
    assert bot(state, 1) is None
