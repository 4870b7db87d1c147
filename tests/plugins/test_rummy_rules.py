"""Rummy engine: every numbered rule (1-8) of the checklist, worked scoring examples with their
numbers, rejections with codes and readable messages, load() refusing impossible states, and
the view, log line, status, scoreboard and reveal.

Hands are set up two ways: ``dealt`` builds the exact first-deal order for ``new_game(deck=...)``
and ``make`` puts the given cards straight into a state (every other card goes to the stock).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import msgpack
import msgspec
import pytest
from msgspec.structs import replace

from plugins.base import InvalidState, Rejection
from plugins.cards import STANDARD, card_name, sort_cards
from plugins.rummy import ENGINE, Rummy, RummyState, choose_action
from plugins.rummy.rules import DRAW, GAME_OVER, HAND_OVER, PLAY

NAMES = ("Ana", "Ben", "Cy", "Dee")

# --------------------------------------------------------------------------- helpers


def ok(state: RummyState, player: int | None, action: dict[str, Any]) -> RummyState:
    out = ENGINE.apply(state, player, action)
    assert not isinstance(out, Rejection), f"{player} {action}: {out}"
    return out


def rejected(state: RummyState, player: int | None, action: Any, code: str) -> str:
    out = ENGINE.apply(state, player, action)
    assert isinstance(out, Rejection), f"{action} should be rejected with {code}"
    assert out.code == code, out
    assert out.message[0].isupper() and out.message.endswith("."), out.message
    return out.message


def dealt(
    hands: Sequence[Sequence[str]], dealer: int, upcard: str, stock_top: Sequence[str] = ()
) -> list[str]:
    """A deck order for ``new_game(deck=...)`` that deals ``hands`` (one card at a time from the
    dealer's left), turns up ``upcard`` and leaves ``stock_top[0]`` on top of the stock."""
    n = len(hands)
    k = len(hands[0])
    order = [hands[(dealer + 1 + i) % n][i // n] for i in range(n * k)]
    order += [upcard, *stock_top]
    order += [c for c in STANDARD if c not in set(order)]
    assert len(set(order)) == 52
    return order


def make(
    hands: Sequence[Sequence[str]],
    *,
    turn: int = 0,
    phase: str = DRAW,
    stock_top: Sequence[str] = (),
    pile: Sequence[str] = ("C13",),
    melds: Sequence[Sequence[str]] = (),
    stock_size: int | None = None,
    **fields: Any,
) -> RummyState:
    """A state with the given hands, discard pile and melds; every other card is in the stock,
    ``stock_top[0]`` on top (``stock_size`` cuts the stock, the rest go under the pile)."""
    n = len(hands)
    named = [c for h in hands for c in h] + list(stock_top) + list(pile)
    named += [c for m in melds for c in m]
    assert len(named) == len(set(named)), "a card is named twice"
    rest = [c for c in STANDARD if c not in set(named)]
    stock = rest + list(reversed(stock_top))
    pile = list(pile)
    if stock_size is not None:
        cut = len(stock) - stock_size
        pile, stock = stock[:cut] + pile, stock[cut:]
    base = ENGINE.new_game(n, fields.pop("options", {}), 1)
    return replace(
        base,
        hands=tuple(tuple(sort_cards(h)) for h in hands),
        stock=tuple(stock),
        discard=tuple(pile),
        melds=tuple(tuple(m) for m in melds),
        phase=phase,
        turn=turn,
        dealer=(turn - 1) % n,
        **fields,
    )


def drew(state: RummyState, card: str, source: str = "stock") -> RummyState:
    """``state`` (play phase) as if the player to move had just drawn ``card``."""
    return replace(state, phase=PLAY, drawn=card, drawn_from=source)


def strings(obj: Any) -> set[str]:
    """Every string inside a view (keys and values)."""
    return set(msgspec.json.encode(obj).decode().split('"'))


# --------------------------------------------------------------------------- info


def test_info_and_the_target_option() -> None:
    info = Rummy.info
    assert (info.name, info.title, info.min_players, info.max_players) == ("rummy", "Rummy", 2, 4)
    assert {o.name: (o.default, o.choices) for o in info.options} == {
        "target": (100, (100, 150, 200, 250, 500))
    }
    assert ENGINE.new_game(3, {"target": 250}, 4).options.target == 250
    with pytest.raises(ValueError, match="target"):
        ENGINE.new_game(2, {"target": 120}, 1)
    with pytest.raises(ValueError, match="no option"):
        ENGINE.new_game(2, {"knock": 1}, 1)
    assert ENGINE.teams(ENGINE.new_game(3, {}, 1)) == [[0], [1], [2]]


# --------------------------------------------------------------------------- rule 1


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7)])
def test_rule_1_hand_size_by_player_count(players: int, size: int) -> None:
    s = ENGINE.new_game(players, {}, 9)
    assert [len(h) for h in s.hands] == [size] * players
    everything = [c for h in s.hands for c in h] + list(s.stock) + list(s.discard)
    assert sorted(everything) == sorted(STANDARD)  # one 52-card deck


def test_rule_1_two_to_four_players_only() -> None:
    for n in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            ENGINE.new_game(n, {}, 1)


# --------------------------------------------------------------------------- rule 2


def test_rule_2_stock_face_down_one_card_up_left_of_dealer_starts() -> None:
    s = ENGINE.new_game(3, {}, 5)
    assert len(s.discard) == 1 and len(s.stock) == 52 - 21 - 1
    assert s.turn == (s.dealer + 1) % 3 and s.phase == DRAW
    assert ENGINE.to_act(s) == [s.turn]
    v = ENGINE.view(s, s.turn)
    assert v["stock_count"] == 30 and v["discard_pile"] == list(s.discard)
    assert not strings(v) & set(s.stock)  # the stock is face down


def test_rule_2_deck_order_is_dealt_from_the_dealers_left() -> None:
    dealer = ENGINE.new_game(3, {}, 12).dealer
    hands = [
        ["C1", "C2", "C3", "C4", "C5", "C6", "C7"],
        ["D1", "D2", "D3", "D4", "D5", "D6", "D7"],
        ["H1", "H2", "H3", "H4", "H5", "H6", "H7"],
    ]
    order = dealt(hands, dealer, "S13", ["S1", "S2"])
    assert order[0] in hands[(dealer + 1) % 3]
    s = ENGINE.new_game(3, {}, 12, deck=order)
    assert [list(h) for h in s.hands] == hands
    assert s.discard == ("S13",) and s.stock[-2:] == ("S2", "S1")
    s = ok(s, s.turn, {"type": "draw", "source": "stock"})
    assert "S1" in s.hands[(dealer + 1) % 3]
    with pytest.raises(ValueError, match="52 cards"):
        ENGINE.new_game(3, {}, 12, deck=order[:-1])


def test_rule_2_deal_passes_clockwise_each_hand() -> None:
    s = ENGINE.new_game(4, {}, 3)
    dealers = [s.dealer]
    for _ in range(5):
        s = replace(s, phase=HAND_OVER, turn=None)
        s = ok(s, 2, {"type": "next_hand"})  # any player may start the next hand
        dealers.append(s.dealer)
        assert s.turn == (s.dealer + 1) % 4 and s.phase == DRAW
    assert dealers == [(dealers[0] + i) % 4 for i in range(6)]


def test_rule_2_shuffles_come_from_the_seed() -> None:
    a, b = ENGINE.new_game(2, {}, 77), ENGINE.new_game(2, {}, 77)
    assert a == b
    assert ENGINE.new_game(2, {}, 78).hands != a.hands
    nxt = ok(replace(a, phase=HAND_OVER, turn=None), 0, {"type": "next_hand"})
    assert nxt.hands != a.hands and nxt.hand_no == 2


# --------------------------------------------------------------------------- rule 3


def test_rule_3_sets_of_three_or_four_and_runs_ace_low() -> None:
    hand = ["H1", "H2", "H3", "C7", "D7", "S7", "H7", "D11", "D12", "D13", "S5"]
    s = drew(make([hand, ["C2", "C3", "C4"]]), "S5")
    for meld in (
        ["H1", "H2", "H3"],
        ["C7", "D7", "S7"],
        ["C7", "D7", "H7", "S7"],
        ["D11", "D12", "D13"],
    ):
        assert {"type": "meld", "cards": meld} in ENGINE.legal_actions(s, 0)
        after = ok(s, 0, {"type": "meld", "cards": meld})
        assert after.melds == (tuple(sort_cards(meld)),)
        assert not set(meld) & set(after.hands[0])


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        (["S12", "S13", "S1"], "Q-K-A is not a run: the ace is low only"),
        (["H4", "H5", "C6"], "4-5-6 is not a run: a run is one suit"),
        (["H4", "H5"], "a meld needs at least 3 cards"),
        (["H4", "C4", "S5"], "a set is cards of one rank: the 5 of spades is not a 4"),
        (["S13", "S1", "S2"], "K-A-2 is not a run: the ace is low only and runs don't wrap"),
    ],
)
def test_rule_3_invalid_melds_are_refused_with_the_reason(cards: list[str], reason: str) -> None:
    hand = ["S12", "S13", "S1", "S2", "H4", "H5", "C6", "C4", "S5", "D9", "D10"]
    s = drew(make([hand, ["C2", "C3", "C5"]]), "D10")
    msg = rejected(s, 0, {"type": "meld", "cards": cards}, "not_a_meld")
    assert msg == f"That's not a meld: {reason}."


def test_rule_3_a_melded_card_cannot_be_used_again() -> None:
    hand = ["H4", "H5", "H6", "C6", "D6", "S9"]
    s = drew(make([hand, ["C2", "C3", "C5"]]), "S9")
    s = ok(s, 0, {"type": "meld", "cards": ["H4", "H5", "H6"]})
    msg = rejected(s, 0, {"type": "meld", "cards": ["H6", "C6", "D6"]}, "not_in_hand")
    assert msg == (
        "The 6 of hearts is already in meld 1 on the table; a card can be in only one meld."
    )
    rejected(s, 0, {"type": "meld", "cards": ["C6", "C6", "D6"]}, "duplicate_card")
    rejected(s, 0, {"type": "meld", "cards": ["C6", "D6", "S6"]}, "not_in_hand")


# --------------------------------------------------------------------------- rule 4


def test_rule_4_draw_from_the_stock_or_the_top_discard() -> None:
    s = make([["C2", "C5", "C9"], ["D2", "D5", "D9"]], stock_top=["H8"], pile=["S3", "S4"])
    assert ENGINE.legal_actions(s, 0) == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]
    a = ok(s, 0, {"type": "draw", "source": "stock"})
    assert "H8" in a.hands[0] and a.phase == PLAY and len(a.stock) == len(s.stock) - 1
    b = ok(s, 0, {"type": "draw", "source": "discard"})
    assert "S4" in b.hands[0] and b.discard == ("S3",)
    rejected(s, 0, {"type": "draw", "source": "table"}, "bad_action")
    rejected(s, 0, {"type": "discard", "card": "C2"}, "wrong_phase")
    rejected(s, 0, {"type": "meld", "cards": ["C2", "C5", "C9"]}, "wrong_phase")
    rejected(s, 1, {"type": "draw", "source": "stock"}, "not_your_turn")
    rejected(a, 0, {"type": "draw", "source": "stock"}, "wrong_phase")


def test_rule_4_several_melds_then_lay_offs_on_anyones_melds_then_discard() -> None:
    # Ben's run of hearts is on the table; Ana has never melded and lays off first.
    hand = ["H7", "C9", "D9", "S9", "C1", "C2", "C3", "D13", "S12"]
    s = drew(make([hand, ["S2", "S3", "D4"]], melds=[["H4", "H5", "H6"]]), "D13")
    s = ok(s, 0, {"type": "lay_off", "card": "H7", "meld": 0})
    assert s.melds[0] == ("H4", "H5", "H6", "H7")
    s = ok(s, 0, {"type": "meld", "cards": ["C9", "D9", "S9"]})
    s = ok(s, 0, {"type": "meld", "cards": ["C3", "C1", "C2"]})
    assert s.melds[2] == ("C1", "C2", "C3")
    s = ok(s, 0, {"type": "discard", "card": "D13"})
    assert s.turn == 1 and s.phase == DRAW and s.discard[-1] == "D13" and s.hands[0] == ("S12",)


def test_rule_4_lay_off_runs_at_either_end_and_sets_to_four() -> None:
    hand = ["H3", "H8", "C5", "D5", "S5", "S1", "S2"]
    melds = [["H4", "H5", "H6", "H7"], ["C11", "D11", "H11"]]
    s = drew(make([hand, ["C2", "C3", "C4"]], melds=melds), "S2")
    s = ok(s, 0, {"type": "lay_off", "card": "H3", "meld": 0})
    s = ok(s, 0, {"type": "lay_off", "card": "H8", "meld": 0})
    assert s.melds[0] == ("H3", "H4", "H5", "H6", "H7", "H8")
    msg = rejected(s, 0, {"type": "lay_off", "card": "C5", "meld": 1}, "cannot_lay_off")
    assert msg == (
        "You can't lay that off: the 5 of clubs is not a jack, so it doesn't fit the set of jacks."
    )
    msg = rejected(s, 0, {"type": "lay_off", "card": "S1", "meld": 0}, "cannot_lay_off")
    assert "doesn't extend 3-4-5-6-7-8 of hearts" in msg
    rejected(s, 0, {"type": "lay_off", "card": "C5", "meld": 2}, "no_such_meld")
    rejected(s, 0, {"type": "lay_off", "card": "C5", "meld": "0"}, "no_such_meld")
    full = make([["S11", "C2", "C3"], ["D2", "D3", "D4"]], melds=[["C11", "D11", "H11"]])
    full = ok(drew(full, "C3"), 0, {"type": "lay_off", "card": "S11", "meld": 0})
    assert full.melds[0] == ("C11", "D11", "H11", "S11")


# --------------------------------------------------------------------------- rule 5


def test_rule_5_card_taken_from_the_discard_pile_stays_this_turn() -> None:
    s = make([["C2", "C5", "C9"], ["D2", "D5", "D9"]], pile=["S3", "S4"])
    s = ok(s, 0, {"type": "draw", "source": "discard"})
    assert {"type": "discard", "card": "S4"} not in ENGINE.legal_actions(s, 0)
    msg = rejected(s, 0, {"type": "discard", "card": "S4"}, "discard_taken_card")
    assert msg == (
        "You can't discard the 4 of spades: you took it from the discard pile this turn."
    )
    after = ok(s, 0, {"type": "discard", "card": "C9"})
    assert after.discard[-1] == "C9"
    # A card drawn from the stock may be discarded at once.
    t = ok(
        make([["C2", "C5", "C9"], ["D2", "D5", "D9"]], stock_top=["H8"]),
        0,
        {"type": "draw", "source": "stock"},
    )
    assert ok(t, 0, {"type": "discard", "card": "H8"}).discard[-1] == "H8"


def test_rule_5_may_not_meld_down_to_only_the_taken_card() -> None:
    s = make([["C5", "D5", "S5"], ["D2", "D3", "D9"]], pile=["H13"])
    s = ok(s, 0, {"type": "draw", "source": "discard"})
    assert ENGINE.legal_actions(s, 0) == [
        {"type": "discard", "card": "C5"},
        {"type": "discard", "card": "D5"},
        {"type": "discard", "card": "S5"},
    ]
    msg = rejected(s, 0, {"type": "meld", "cards": ["C5", "D5", "S5"]}, "keep_a_card")
    assert "only the king of hearts" in msg


# --------------------------------------------------------------------------- rule 6


def test_rule_6_discarding_the_last_card_goes_out_face_down() -> None:
    s = make(
        [["H4", "H5", "H6", "C2"], ["C7", "D10", "S1"]], stock_top=["H7"], played=(True, False)
    )
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    s = ok(s, 0, {"type": "meld", "cards": ["H4", "H5", "H6", "H7"]})
    before = s
    s = ok(s, 0, {"type": "discard", "card": "C2"})
    assert s.phase == HAND_OVER and s.hands[0] == () and s.out_card == "C2"
    assert "C2" not in s.discard  # face down, not on the pile
    assert ENGINE.view(s, 1)["out_card"] is None and "C2" not in strings(ENGINE.view(s, 1))
    assert ENGINE.view(s, 0)["out_card"] == "C2"
    line = ENGINE.describe(before, 0, {"type": "discard", "card": "C2"}, NAMES)
    assert line == "Ana discarded the last card face down and went out: 18 points."
    assert card_name("C2") not in line


def test_rule_6_melding_and_laying_off_everything_needs_no_discard() -> None:
    s = make(
        [["C9", "D9", "S9", "H8"], ["C7", "D10", "S1"]],
        stock_top=["H4"],
        melds=[["H5", "H6", "H7"]],
        played=(True, False),
    )
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    s = ok(s, 0, {"type": "lay_off", "card": "H4", "meld": 0})
    s = ok(s, 0, {"type": "meld", "cards": ["C9", "D9", "S9"]})
    assert s.phase == PLAY
    before = s
    s = ok(s, 0, {"type": "lay_off", "card": "H8", "meld": 0})
    assert s.phase == HAND_OVER and s.out_card is None and s.results[-1].winner == 0
    assert s.results[-1].points == 18
    line = ENGINE.describe(before, 0, {"type": "lay_off", "card": "H8", "meld": 0}, NAMES)
    assert line == (
        "Ana laid off the 8 of hearts on meld 1 (4 of hearts, 5 of hearts, 6 of "
        "hearts, 7 of hearts and 8 of hearts) and went out: 18 points."
    )


def test_rule_6_going_out_on_the_very_first_turn() -> None:
    dealer = ENGINE.new_game(2, {}, 31).dealer
    first = (dealer + 1) % 2
    going = ["H1", "H2", "H3", "C5", "D5", "S5", "C9", "D9", "S9", "D13"]
    other = ["C2", "C3", "C4", "S6", "S7", "D6", "D7", "H12", "H10", "C12"]  # 65 points
    hands = [going, other] if first == 0 else [other, going]
    s = ENGINE.new_game(2, {}, 31, deck=dealt(hands, dealer, "C13", ["H4"]))
    s = ok(s, first, {"type": "draw", "source": "stock"})
    for meld in (["H1", "H2", "H3", "H4"], ["C5", "D5", "S5"], ["C9", "D9", "S9"]):
        s = ok(s, first, {"type": "meld", "cards": meld})
    s = ok(s, first, {"type": "discard", "card": "D13"})
    res = s.results[-1]
    assert (res.winner, res.rummy, res.values[1 - first], res.points) == (first, True, 65, 130)
    assert s.scores[first] == 130 and s.phase == GAME_OVER


# --------------------------------------------------------------------------- rule 7


def plain_turns(state: RummyState, turns: int) -> RummyState:
    """Each player in turn draws from the stock and discards the card drawn."""
    for _ in range(turns):
        p = state.turn
        assert p is not None
        state = ok(state, p, {"type": "draw", "source": "stock"})
        state = ok(state, p, {"type": "discard", "card": state.drawn})
    return state


def hands_with_no_melds(dealer: int) -> list[str]:
    hands = [
        ["C1", "C3", "C5", "C7", "C9", "C11", "C13", "D2", "D4", "D6"],
        ["D8", "D10", "D12", "H1", "H3", "H5", "H7", "H9", "H11", "H13"],
    ]
    return dealt(hands, dealer, "S13")


def test_rule_7_empty_stock_reshuffles_the_pile_under_its_top_card() -> None:
    seed = 40
    dealer = ENGINE.new_game(2, {}, seed).dealer
    s = ENGINE.new_game(2, {}, seed, deck=hands_with_no_melds(dealer))
    assert len(s.stock) == 31
    s = plain_turns(s, 30)
    s = ok(s, s.turn, {"type": "draw", "source": "stock"})  # the last stock card
    assert s.stock == () and s.reshuffles == 0
    last = s.drawn
    assert last is not None
    pile = list(s.discard)  # the upcard and 30 discards
    after = ok(s, s.turn, {"type": "discard", "card": last})
    expected = list(pile)
    random.Random(f"rummy:{seed}:1:reshuffle").shuffle(expected)
    assert after.discard == (last,) and after.stock == tuple(expected)
    assert after.reshuffles == 1 and after.phase == DRAW
    line = ENGINE.describe(s, s.turn, {"type": "discard", "card": last}, NAMES)
    assert line.endswith(
        "The stock ran out: the discard pile but its top card was shuffled into a new stock."
    )
    drawn = ok(after, after.turn, {"type": "draw", "source": "stock"})
    assert drawn.drawn == expected[-1]


def test_rule_7_second_time_the_stock_runs_out_is_a_stalemate() -> None:
    dealer = ENGINE.new_game(2, {}, 41).dealer
    s = ENGINE.new_game(2, {}, 41, deck=hands_with_no_melds(dealer))
    s = plain_turns(s, 31)
    assert s.reshuffles == 1 and len(s.stock) == 31
    s = plain_turns(s, 30)
    s = ok(s, s.turn, {"type": "draw", "source": "stock"})
    before = s
    s = ok(s, s.turn, {"type": "discard", "card": s.drawn})
    res = s.results[-1]
    assert s.phase == HAND_OVER and res.winner is None and res.points == 0
    assert s.scores == (0, 0) and res.left == s.hands
    line = ENGINE.describe(before, before.turn, {"type": "discard", "card": before.drawn}, NAMES)
    assert line.endswith("The stock ran out again: stalemate, nobody scores this hand.")
    assert ENGINE.status(s, NAMES) == "Stalemate: nobody scores this hand"
    assert ENGINE.scoreboard(s, NAMES).rows == (("Hand 1 (stalemate)", (0, 0)),)
    assert [line.note for line in ENGINE.reveal(s) or []] == ["stalemate", "stalemate"]
    nxt = ok(s, 0, {"type": "next_hand"})
    assert nxt.dealer == (s.dealer + 1) % 2 and nxt.reshuffles == 0 and nxt.hand_no == 2


def test_rule_7_stalemate_when_the_pile_holds_only_its_top_card() -> None:
    # Ana took the discard and drew the stock dry: nothing is left to make a new stock from.
    s = make(
        [["C2", "C5", "C9", "H8"], ["D2", "D5", "D9"]],
        pile=(),
        phase=PLAY,
        stock_size=0,
        drawn="H8",
        drawn_from="stock",
    )
    assert s.stock == () and len(s.discard) == 52 - 7
    s = replace(s, discard=(), hands=(s.hands[0], (*s.hands[1], *s.discard)))
    s = replace(s, hands=(s.hands[0], tuple(sort_cards(s.hands[1]))))
    s = ok(s, 0, {"type": "discard", "card": "C9"})
    assert s.phase == HAND_OVER and s.results[-1].winner is None


# --------------------------------------------------------------------------- rule 8


def won_by_ana(played: bool, *, scores: tuple[int, int] = (0, 0), target: int = 100) -> RummyState:
    """Ana draws H7, melds H4-H7 and discards C2; Ben holds 7 + 10 + ace = 18 points."""
    s = make(
        [["H4", "H5", "H6", "C2"], ["C7", "D10", "S1"]],
        stock_top=["H7"],
        played=(played, False),
        scores=scores,
        options={"target": target},
    )
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    s = ok(s, 0, {"type": "meld", "cards": ["H4", "H5", "H6", "H7"]})
    return ok(s, 0, {"type": "discard", "card": "C2"})


def test_rule_8_example_winner_scores_the_cards_left_7_10_ace_is_18() -> None:
    s = won_by_ana(played=True)
    res = s.results[-1]
    assert (res.winner, res.rummy, res.values, res.points) == (0, False, (0, 18), 18)
    assert s.scores == (18, 0) and s.phase == HAND_OVER
    assert ENGINE.status(s, NAMES) == "Ana went out and scores 18"
    assert ENGINE.scoreboard(s, NAMES).rows == (("Hand 1", (18, 0)),)
    reveal = ENGINE.reveal(s)
    assert reveal is not None
    assert [(r.player, r.cards, r.points, r.note) for r in reveal] == [
        (0, (), 0, "went out: scores 18"),
        (1, ("C7", "D10", "S1"), 18, ""),
    ]


def test_rule_8_example_going_rummy_doubles_18_to_36() -> None:
    s = won_by_ana(played=False)
    res = s.results[-1]
    assert (res.rummy, res.points) == (True, 36) and s.scores == (36, 0)
    assert ENGINE.scoreboard(s, NAMES).rows == (("Hand 1 (rummy)", (36, 0)),)
    assert ENGINE.status(s, NAMES) == "Ana went rummy and scores 36"


def test_rule_8_example_three_players_20_plus_11_is_31_doubled_62() -> None:
    hands = [["C9", "D9", "S9", "H2"], ["S13", "H12"], ["C5", "D5", "H1"]]
    for played, points in ((True, 31), (False, 62)):
        s = make(hands, stock_top=["H9"], played=(played, False, False))
        s = ok(s, 0, {"type": "draw", "source": "stock"})
        s = ok(s, 0, {"type": "meld", "cards": ["C9", "D9", "S9", "H9"]})
        s = ok(s, 0, {"type": "discard", "card": "H2"})
        assert s.results[-1].values == (0, 20, 11) and s.scores == (points, 0, 0)


def test_rule_8_rummy_means_nothing_melded_or_laid_off_in_an_earlier_turn() -> None:
    # Turn 1: Ana lays off one card; turn 2 she goes out: not rummy.
    s = make(
        [["H7", "C9", "D9", "S9", "C2", "C4"], ["C7", "D10", "S1", "S2"]],
        stock_top=["D3", "C3"],
        melds=[["H4", "H5", "H6"]],
    )
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    s = ok(s, 0, {"type": "lay_off", "card": "H7", "meld": 0})
    s = ok(s, 0, {"type": "discard", "card": "D3"})
    assert s.played == (True, False)
    s = ok(s, 1, {"type": "draw", "source": "stock"})
    s = ok(s, 1, {"type": "discard", "card": "C3"})
    s = ok(s, 0, {"type": "draw", "source": "discard"})
    s = ok(s, 0, {"type": "meld", "cards": ["C9", "D9", "S9"]})
    s = ok(s, 0, {"type": "meld", "cards": ["C2", "C3", "C4"]})
    res = s.results[-1]
    assert res.winner == 0 and not res.rummy and res.points == 7 + 10 + 1 + 2


def test_rule_8_game_ends_at_the_target_and_the_highest_total_wins() -> None:
    s = won_by_ana(played=True, scores=(90, 60))
    assert s.phase == GAME_OVER and s.scores == (108, 60)
    out = ENGINE.outcome(s)
    assert out is not None and (out.winners, out.scores) == ((0,), (108, 60))
    assert ENGINE.status(s, NAMES) == "Ana wins the game with 108"
    assert ENGINE.to_act(s) == [] and ENGINE.legal_actions(s, 0) == []
    rejected(s, 0, {"type": "next_hand"}, "game_over")
    assert ENGINE.scoreboard(s, NAMES).note == "First to 100; the highest total wins"
    higher = won_by_ana(played=True, scores=(90, 60), target=150)
    assert higher.phase == HAND_OVER and ENGINE.outcome(higher) is None
    assert ENGINE.legal_actions(higher, 1) == [{"type": "next_hand"}]
    assert ENGINE.to_act(higher) == [0, 1]


# --------------------------------------------------------------------------- views and text


def test_view_shows_own_hand_counts_of_others_and_public_piles() -> None:
    s = make(
        [["C2", "C5", "C9"], ["D2", "D5", "D9", "D11"], ["H2", "H5", "H9"]],
        stock_top=["S8"],
        pile=["S3", "S4"],
        melds=[["C11", "C12", "C13"]],
    )
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    v0, v1, spectator = ENGINE.view(s, 0), ENGINE.view(s, 1), ENGINE.view(s, None)
    assert v0["hand"] == ["C2", "C5", "C9", "S8"] and v0["drawn"] == "S8"
    assert v1["hand"] == ["D2", "D5", "D9", "D11"] and v1["drawn"] is None
    assert spectator["hand"] is None and spectator["player"] is None
    for v in (v0, v1, spectator):
        assert v["hand_counts"] == [4, 4, 3] and v["stock_count"] == len(s.stock)
        assert v["melds"] == [["C11", "C12", "C13"]] and v["discard_pile"] == ["S3", "S4"]
        assert v["phase"] == PLAY and v["to_act"] == [0] and v["scores"] == [0, 0, 0]
        assert v["history"] == [
            {
                "player": 0,
                "type": "draw",
                "source": "stock",
                "card": None,
                "cards": (),
                "meld": None,
            }
        ]
    assert not strings(v1) & {"C2", "C5", "C9", "S8", "H2", "H5", "H9"}
    assert not strings(spectator) & {c for h in s.hands for c in h}


def test_describe_names_cards_in_words_but_never_a_stock_draw() -> None:
    s = make(
        [["C2", "C5", "C9", "H4", "H5", "H6"], ["D2", "D5", "D9"]],
        stock_top=["S8"],
        pile=["S3", "S12"],
    )
    line = ENGINE.describe(s, 0, {"type": "draw", "source": "stock"}, NAMES)
    assert line == "Ana drew from the stock." and "8 of spades" not in line
    line = ENGINE.describe(s, 0, {"type": "draw", "source": "discard"}, NAMES)
    assert line == "Ana took the queen of spades from the discard pile."
    t = ok(s, 0, {"type": "draw", "source": "stock"})
    assert ENGINE.describe(t, 0, {"type": "meld", "cards": ["H6", "H4", "H5"]}, NAMES) == (
        "Ana melded the 4 of hearts, 5 of hearts and 6 of hearts."
    )
    assert ENGINE.describe(t, 0, {"type": "discard", "card": "C9"}, NAMES) == (
        "Ana discarded the 9 of clubs."
    )
    assert ENGINE.status(s, NAMES) == "Ana to draw"
    assert ENGINE.status(t, NAMES) == "Ana to meld, lay off or discard"
    bad = ENGINE.describe(t, 0, {"type": "discard", "card": "D2"}, NAMES)
    assert bad == "Ana tried a move the rules don't allow: You don't hold the 2 of diamonds."


def test_reveal_is_none_while_a_hand_is_played() -> None:
    s = ENGINE.new_game(2, {}, 3)
    assert ENGINE.reveal(s) is None and ENGINE.outcome(s) is None and ENGINE.scheduled(s) is None
    won = won_by_ana(played=True)
    nxt = ok(won, 1, {"type": "next_hand"})
    assert ENGINE.reveal(nxt) is None and ENGINE.view(nxt, 0)["last_result"] is None
    assert ENGINE.view(won, 1)["last_result"]["left"] == [[], ["C7", "D10", "S1"]]
    assert ENGINE.describe(won, 1, {"type": "next_hand"}, NAMES).startswith("Ben started hand 2")


# --------------------------------------------------------------------------- rejections


def test_misc_rejections_have_stable_codes_and_readable_messages() -> None:
    s = make([["C2", "C5", "C9"], ["D2", "D5", "D9"]], stock_top=["S8"])
    rejected(s, 7, {"type": "draw", "source": "stock"}, "bad_player")
    rejected(s, None, {"type": "draw", "source": "stock"}, "bad_player")
    rejected(s, 0, "draw", "bad_action")
    rejected(s, 0, {"source": "stock"}, "bad_action")
    rejected(s, 0, {"type": "knock"}, "unknown_action")
    rejected(s, 0, {"type": "next_hand"}, "wrong_phase")
    t = ok(s, 0, {"type": "draw", "source": "stock"})
    rejected(t, 0, {"type": "discard", "card": "Z3"}, "bad_card")
    rejected(t, 0, {"type": "discard"}, "bad_card")
    assert rejected(t, 0, {"type": "discard", "card": "D2"}, "not_in_hand") == (
        "You don't hold the 2 of diamonds."
    )
    rejected(t, 0, {"type": "meld", "cards": "C2 C5 C9"}, "bad_action")
    rejected(t, 0, {"type": "lay_off", "card": "C2", "meld": 0}, "no_such_meld")
    rejected(t, 1, {"type": "discard", "card": "D2"}, "not_your_turn")


def test_legal_actions_are_exactly_the_accepted_ones_on_random_states() -> None:
    rng = random.Random(8)
    checked = 0
    for game in range(6):
        s = ENGINE.new_game(2 + game % 3, {}, game)
        for _ in range(60):
            if s.phase in (HAND_OVER, GAME_OVER):
                break
            p = s.turn
            assert p is not None
            legal = ENGINE.legal_actions(s, p)
            for a in legal:
                assert not isinstance(ENGINE.apply(s, p, a), Rejection), a
            hand = s.hands[p]
            probes = [{"type": "discard", "card": c} for c in hand]
            probes += [
                {"type": "lay_off", "card": c, "meld": i} for c in hand for i in range(len(s.melds))
            ]
            probes += [{"type": "meld", "cards": list(m)} for m in _triples(hand)]
            probes += [{"type": "draw", "source": src} for src in ("stock", "discard")]
            for a in probes:
                accepted = not isinstance(ENGINE.apply(s, p, a), Rejection)
                assert accepted == (a in legal), a
                checked += 1
            for other in range(s.players):
                if other != p:
                    assert ENGINE.legal_actions(s, other) == []
            bot = choose_action(ENGINE, s, p, rng)
            s = ok(s, p, bot if rng.random() < 0.5 else rng.choice(legal))
    assert checked > 1000


def _triples(hand: Sequence[str]) -> list[tuple[str, ...]]:
    out = []
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            for k in range(j + 1, len(hand)):
                out.append((hand[i], hand[j], hand[k]))
    return out


# --------------------------------------------------------------------------- dump / load


def test_dump_load_round_trip_through_msgpack() -> None:
    s = won_by_ana(played=False)
    data = msgpack.unpackb(msgpack.packb(ENGINE.dump(s)))
    assert ENGINE.load(data) == s
    fresh = ENGINE.new_game(4, {"target": 500}, 11)
    assert ENGINE.load(msgpack.unpackb(msgpack.packb(ENGINE.dump(fresh)))) == fresh


def test_apply_never_mutates_its_input() -> None:
    s = make([["H4", "H5", "H6", "C2"], ["C7", "D10", "S1"]], stock_top=["H7"])
    frozen = ENGINE.dump(s)
    t = ok(s, 0, {"type": "draw", "source": "stock"})
    ok(t, 0, {"type": "meld", "cards": ["H4", "H5", "H6", "H7"]})
    assert ENGINE.dump(s) == frozen and s.phase == DRAW
    with pytest.raises(AttributeError):
        s.phase = PLAY  # type: ignore[misc]


def broken(mutate: Any, state: RummyState | None = None) -> str:
    data = ENGINE.dump(state if state is not None else ENGINE.new_game(3, {}, 21))
    mutate(data)
    with pytest.raises(InvalidState) as err:
        ENGINE.load(data)
    return str(err.value)


def test_load_refuses_cards_duplicated_missing_or_unknown() -> None:
    def dup(d: dict[str, Any]) -> None:
        d["stock"][0] = d["hands"][0][0]

    def lost(d: dict[str, Any]) -> None:
        d["stock"].pop()

    def alien(d: dict[str, Any]) -> None:
        d["stock"][0] = "Z9"

    assert "is in two places" in broken(dup)
    assert "cards are missing" in broken(lost)
    assert "'Z9' is not a card" in broken(alien)


def test_load_refuses_wrong_hand_sizes_phases_and_players() -> None:
    def too_many(d: dict[str, Any]) -> None:
        d["hands"][0] = sort_cards([*d["hands"][0], d["stock"].pop()])

    def phase(d: dict[str, Any]) -> None:
        d["phase"] = "bidding"

    def turn(d: dict[str, Any]) -> None:
        d["turn"] = 3

    def dealer(d: dict[str, Any]) -> None:
        d["dealer"] = -1

    def players(d: dict[str, Any]) -> None:
        d["players"] = 2

    def shape(d: dict[str, Any]) -> None:
        d["hands"] = "all of them"

    assert "holds 8 cards" in broken(too_many)
    assert "Unknown phase" in broken(phase)
    assert "player to move" in broken(turn)
    assert "dealer" in broken(dealer)
    assert "one entry of hands per player" in broken(players)
    assert "Not a Rummy state" in broken(shape)


def test_load_refuses_bad_melds_scores_and_endings() -> None:
    def bad_meld(d: dict[str, Any]) -> None:
        for c in ("S1", "S2", "S4"):
            d["stock"].remove(c)
        d["melds"] = [["S1", "S2", "S4"]]

    s = make([["C2", "C5", "C9"], ["D2", "D5", "D9"]], stock_top=["S8"], pile=["H9"])
    assert "Meld 1 on the table is not a meld" in broken(bad_meld, s)

    def scores(d: dict[str, Any]) -> None:
        d["scores"] = [18, 5]

    won = won_by_ana(played=True)
    assert ENGINE.load(ENGINE.dump(won)) == won
    assert "don't add up" in broken(scores, won)

    def over(d: dict[str, Any]) -> None:
        d["phase"] = GAME_OVER

    assert "target" in broken(over, won)

    def cheat(d: dict[str, Any]) -> None:
        d["results"][0]["points"] = 50
        d["scores"] = [50, 0]

    assert "the cards left say otherwise" in broken(cheat, won)

    def winner_holds(d: dict[str, Any]) -> None:
        d["hands"][0] = ["C2"]
        d["results"][0]["left"][0] = ["C2"]
        d["out_card"] = None

    assert "winner" in broken(winner_holds, won)
