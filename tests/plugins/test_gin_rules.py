"""Gin Rummy engine: every numbered rule (4-16) and worked example of the checklist."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import msgpack
import pytest
from msgspec.structs import replace

from plugins.base import Rejection
from plugins.cards import deck as full_deck
from plugins.cards import sort_cards
from plugins.gin_rummy import ENGINE, GinRummy, GinState
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import DISCARD, DRAW, GAME_OVER, HAND_OVER, LAYOFF, UPCARD

# --------------------------------------------------------------------------- helpers


def make(
    hands: tuple[Sequence[str], Sequence[str]],
    *,
    turn: int = 0,
    dealer: int | None = None,
    phase: str = DRAW,
    stock_top: Sequence[str] = (),
    pile: Sequence[str] | None = None,
    stock_size: int | None = None,
    options: dict[str, Any] | None = None,
    **fields: Any,
) -> GinState:
    """A state with the given hands; ``stock_top[0]`` is the next stock card. All 52 cards are
    placed: unused ones go to the stock (or under the discard pile to shrink the stock)."""
    h0, h1 = sort_cards(hands[0]), sort_cards(hands[1])
    named = [*h0, *h1, *stock_top, *(pile or ())]
    assert len(named) == len(set(named)), "a card is named twice"
    rest = [c for c in full_deck() if c not in set(named)]
    pile = list(pile) if pile is not None else [rest.pop()]
    stock = rest + list(reversed(stock_top))
    if stock_size is not None:
        extra = len(stock) - stock_size
        pile = stock[:extra] + pile
        stock = stock[extra:]
    base = ENGINE.new_game(2, options or {}, 0)
    return replace(
        base,
        hands=(tuple(h0), tuple(h1)),
        stock=tuple(stock),
        discard=tuple(pile),
        phase=phase,
        turn=turn,
        dealer=(1 - turn) if dealer is None else dealer,
        **fields,
    )


def ok(state: GinState, seat: int, action: dict[str, Any]) -> GinState:
    out = ENGINE.apply(state, seat, action)
    assert not isinstance(out, Rejection), out
    return out


def rejected(state: GinState, seat: int, action: Any, code: str) -> Rejection:
    out = ENGINE.apply(state, seat, action)
    assert isinstance(out, Rejection), f"{action} was accepted"
    assert out.code == code, out
    assert out.message and out.message[0].isupper() and out.message.endswith(".")
    return out


def knock_state(
    knocker10: Sequence[str], extra: str, defender: Sequence[str], **kw: Any
) -> GinState:
    """Seat 0 has drawn ``extra`` from the stock and holds 11 cards; seat 1 defends."""
    return make(
        ([*knocker10, extra], defender), phase=DISCARD, drawn=extra, drawn_from="stock", **kw
    )


def strings(obj: Any) -> set[str]:
    """Every string inside a view (keys and values)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(k) | strings(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


# Knocker's melds used by the worked examples: C7 D7 H7, D10 D11 D12, S4 S5 S6 (meld indices
# 0, 1 and 2: melds are listed by their lowest card in deck order, clubs first).
KNOCKER_MELDS = ["S4", "S5", "S6", "C7", "D7", "H7", "D10", "D11", "D12"]
SEVENS, D_RUN, S_RUN = 0, 1, 2
# Defenders that share no card with KNOCKER_MELDS.
DEFENDER_21 = ["C9", "H9", "S9", "H4", "H5", "H6", "H13", "C8", "C2", "C1"]  # deadwood 21
DEFENDER_12 = ["C9", "H9", "S9", "H1", "H2", "H3", "H4", "S3", "C8", "C1"]  # S3 C8 C1 = 12
CLUBS = ["C1", "C2", "C3", "C4", "C5", "C6", "C8", "C9", "H1", "H2"]
HEARTS = ["H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H10", "H11"]

# --------------------------------------------------------------------------- info / options


def test_info_and_options() -> None:
    info = GinRummy.info
    assert (info.name, info.title, info.min_players, info.max_players) == (
        "gin_rummy",
        "Gin Rummy",
        2,
        2,
    )
    opts = {o.name: (o.default, o.choices) for o in info.options}
    assert opts == {
        "knock_limit": (10, tuple(range(11))),
        "gin_bonus": (25, (20, 25)),
        "big_gin_bonus": (31, (25, 31, 50)),
        "undercut_bonus": (25, (10, 20, 25)),
        "target": (100, (100, 250, 500)),
    }
    resolved = info.resolve_options({"target": 250})
    assert isinstance(resolved, dict) and resolved["target"] == 250 and resolved["gin_bonus"] == 25
    assert isinstance(info.resolve_options({"gin_bonus": 30}), Rejection)
    with pytest.raises(ValueError):
        ENGINE.new_game(2, {"target": 99}, 1)
    with pytest.raises(ValueError):
        ENGINE.new_game(3, {}, 1)


# --------------------------------------------------------------------------- rule 4


def test_rule_04_deal_ten_each_upcard_rest_is_stock_non_dealer_first() -> None:
    s = ENGINE.new_game(2, {}, 42)
    assert [len(h) for h in s.hands] == [10, 10]
    assert len(s.discard) == 1 and len(s.stock) == 31
    assert len(set(s.hands[0]) | set(s.hands[1]) | set(s.discard) | set(s.stock)) == 52
    assert s.phase == UPCARD and s.turn == 1 - s.dealer
    assert ENGINE.legal_actions(s, s.dealer) == []
    rejected(s, s.dealer, {"type": "pass"}, "not_your_turn")


def test_rule_04_deal_is_deterministic_from_the_seed() -> None:
    assert ENGINE.new_game(2, {}, 5) == ENGINE.new_game(2, {}, 5)
    assert ENGINE.new_game(2, {}, 5).hands != ENGINE.new_game(2, {}, 6).hands
    assert {ENGINE.new_game(2, {}, seed).dealer for seed in range(20)} == {0, 1}


def test_rule_04_dealer_alternates_each_hand() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), phase=HAND_OVER, dealer=0)
    s = replace(s, turn=None, hand_no=3)
    dealers = []
    for _ in range(4):
        s = ok(s, 1, {"type": "next_hand"})
        dealers.append(s.dealer)
        assert s.phase == UPCARD and s.turn == 1 - s.dealer and s.hand_no == 4 + len(dealers) - 1
        assert [len(h) for h in s.hands] == [10, 10] and len(s.stock) == 31
        s = replace(s, phase=HAND_OVER, turn=None)
    assert dealers == [1, 0, 1, 0]


# --------------------------------------------------------------------------- rule 5


def _first_turn() -> GinState:
    return make((full_deck()[:10], full_deck()[13:23]), phase=UPCARD, turn=1, dealer=0, pile=["S9"])


def test_rule_05_non_dealer_may_take_the_upcard() -> None:
    s = _first_turn()
    assert ENGINE.legal_actions(s, 1) == [{"type": "take_upcard"}, {"type": "pass"}]
    rejected(s, 1, {"type": "draw", "source": "stock"}, "wrong_phase")
    s = ok(s, 1, {"type": "take_upcard"})
    assert "S9" in s.hands[1] and len(s.hands[1]) == 11 and s.discard == ()
    assert s.phase == DISCARD and s.turn == 1
    s = ok(s, 1, {"type": "discard", "card": "D1"})
    assert s.phase == DRAW and s.turn == 0 and s.discard == ("D1",)


def test_rule_05_if_non_dealer_passes_dealer_may_take_it() -> None:
    s = ok(_first_turn(), 1, {"type": "pass"})
    assert s.phase == UPCARD and s.turn == 0
    rejected(s, 1, {"type": "take_upcard"}, "not_your_turn")
    s = ok(s, 0, {"type": "take_upcard"})
    assert "S9" in s.hands[0] and s.phase == DISCARD
    s = ok(s, 0, {"type": "discard", "card": "C2"})
    assert s.turn == 1 and s.phase == DRAW  # then the non-dealer plays normally
    s = ok(s, 1, {"type": "draw", "source": "discard"})
    assert "C2" in s.hands[1]


def test_rule_05_if_both_pass_non_dealer_must_draw_from_stock() -> None:
    s = ok(ok(_first_turn(), 1, {"type": "pass"}), 0, {"type": "pass"})
    assert s.phase == DRAW and s.turn == 1 and s.stock_only
    assert ENGINE.legal_actions(s, 1) == [{"type": "draw", "source": "stock"}]
    r = rejected(s, 1, {"type": "draw", "source": "discard"}, "upcard_refused")
    assert "stock" in r.message
    rejected(s, 1, {"type": "take_upcard"}, "upcard_refused")
    top = s.stock[-1]
    s = ok(s, 1, {"type": "draw", "source": "stock"})
    assert top in s.hands[1] and not s.stock_only and s.discard == ("S9",)
    s = ok(s, 1, {"type": "discard", "card": top})
    s = ok(s, 0, {"type": "draw", "source": "discard"})  # later discards can be taken again
    assert top in s.hands[0]


# --------------------------------------------------------------------------- rule 6


def test_rule_06_draw_stock_or_discard_then_discard_one() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_top=["H13"], pile=["S2", "S3"])
    assert ENGINE.legal_actions(s, 0) == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]
    rejected(s, 0, {"type": "discard", "card": "C1"}, "wrong_phase")
    rejected(s, 1, {"type": "draw", "source": "stock"}, "not_your_turn")
    rejected(s, 0, {"type": "draw", "source": "hand"}, "bad_action")
    a = ok(s, 0, {"type": "draw", "source": "stock"})
    assert "H13" in a.hands[0] and len(a.stock) == len(s.stock) - 1
    rejected(a, 0, {"type": "draw", "source": "stock"}, "wrong_phase")  # only one draw
    b = ok(s, 0, {"type": "draw", "source": "discard"})
    assert "S3" in b.hands[0] and b.discard == ("S2",)


def test_rule_06_card_taken_from_discard_may_not_be_discarded_same_turn() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_top=["H13"], pile=["S3"])
    taken = ok(s, 0, {"type": "draw", "source": "discard"})
    r = rejected(taken, 0, {"type": "discard", "card": "S3"}, "discard_taken_card")
    assert r.message == "You can't discard the 3 of spades: you just took it from the discard pile."
    rejected(taken, 0, {"type": "knock", "card": "S3"}, "discard_taken_card")
    assert {"type": "discard", "card": "S3"} not in ENGINE.legal_actions(taken, 0)
    # A card drawn from the stock may be discarded at once.
    drawn = ok(s, 0, {"type": "draw", "source": "stock"})
    after = ok(drawn, 0, {"type": "discard", "card": "H13"})
    assert after.discard[-1] == "H13" and after.turn == 1
    # And next turn the restriction is gone for the card taken earlier.
    later = ok(
        ok(taken, 0, {"type": "discard", "card": "C1"}), 1, {"type": "draw", "source": "stock"}
    )
    later = ok(later, 1, {"type": "discard", "card": later.hands[1][0]})
    later = ok(later, 0, {"type": "draw", "source": "stock"})
    assert ok(later, 0, {"type": "discard", "card": "S3"}).discard[-1] == "S3"


def test_rule_06_card_must_be_in_hand_and_a_real_card() -> None:
    s = ok(
        make((full_deck()[:10], full_deck()[13:23]), stock_top=["H13"]),
        0,
        {"type": "draw", "source": "stock"},
    )
    r = rejected(s, 0, {"type": "discard", "card": "S13"}, "not_in_hand")
    assert "king of spades" in r.message
    rejected(s, 0, {"type": "discard", "card": "Z9"}, "bad_card")
    rejected(s, 0, {"type": "discard"}, "bad_card")


# --------------------------------------------------------------------------- rule 7


def test_example_knock_with_the_9_counts_deadwood_8() -> None:
    # After drawing: melds S4-S7 and four queens; deadwood C3, D5, H9.
    melded = ["S4", "S5", "S6", "S7", "C12", "D12", "H12", "S12"]
    s = knock_state([*melded, "C3", "D5"], "H9", HEARTS)
    s0 = s
    assert {"type": "knock", "card": "H9"} in ENGINE.legal_actions(s, 0)
    assert {"type": "knock", "card": "D5"} not in ENGINE.legal_actions(s, 0)
    r = rejected(s, 0, {"type": "knock", "card": "D5"}, "deadwood_too_high")
    assert "12" in r.message and "10" in r.message
    rejected(s, 0, {"type": "knock", "card": "C3"}, "deadwood_too_high")
    s = ok(s, 0, {"type": "knock", "card": "H9"})
    assert s.phase == LAYOFF and s.turn == 1
    assert s.knock is not None and s.knock.points == 8 and s.knock.kind == "knock"
    assert sorted(s.knock.deadwood) == ["C3", "D5"] and s.knock.discard == "H9"
    assert s0.phase == DISCARD and s0.knock is None  # the input state was not changed


def test_rule_07_knock_limit_is_an_option() -> None:
    hand = ["S4", "S5", "S6", "S7", "C12", "D12", "H12", "S12", "D5", "C2"]  # deadwood 7
    s = knock_state(hand, "H13", HEARTS)
    knocked = ok(s, 0, {"type": "knock", "card": "H13"}).knock
    assert knocked is not None and knocked.points == 7
    strict = knock_state(hand, "H13", HEARTS, options={"knock_limit": 5})
    assert strict.options.knock_limit == 5
    r = rejected(strict, 0, {"type": "knock", "card": "H13"}, "deadwood_too_high")
    assert "7" in r.message and "5" in r.message
    only_gin = replace(strict, options=replace(strict.options, knock_limit=0))
    assert not [a for a in ENGINE.legal_actions(only_gin, 0) if a["type"] == "knock"]
    rejected(only_gin, 0, {"type": "knock", "card": "H13"}, "deadwood_too_high")


def test_rule_07_knock_only_after_drawing_and_discard_is_face_down() -> None:
    melded = ["S4", "S5", "S6", "S7", "C12", "D12", "H12", "S12"]
    s = make(([*melded, "C3", "D5"], HEARTS), stock_top=["H9"])
    rejected(s, 0, {"type": "knock", "card": "D5"}, "wrong_phase")
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    pile = s.discard
    s = ok(s, 0, {"type": "knock", "card": "H9"})
    assert s.discard == pile  # the knock discard is not on the discard pile
    assert ENGINE.view(s, 1)["knock"]["discard"] is None
    assert ENGINE.view(s, None)["knock"]["discard"] is None
    assert ENGINE.view(s, 0)["knock"]["discard"] == "H9"
    assert "H9" not in strings(ENGINE.view(s, 1))


# --------------------------------------------------------------------------- rule 8


def test_example_gin_vs_defender_12_scores_37() -> None:
    gin_hand = [*KNOCKER_MELDS, "D13"]  # D10-D13 run: 0 deadwood once H5 is discarded
    s = ok(knock_state(gin_hand, "H5", DEFENDER_12), 0, {"type": "knock", "card": "H5"})
    assert s.phase == HAND_OVER and s.turn is None
    res = s.history[-1]
    assert (res.kind, res.winner, res.points, res.bonus) == ("gin", 0, 37, 25)
    assert res.seats[1].points == 12 and s.scores == (37, 0) and s.hands_won == (1, 0)
    assert s.last_move is not None and s.last_move.type == "gin"


def test_rule_08_no_layoffs_against_gin() -> None:
    # The defender's S3 would extend S4 S5 S6, but against Gin it still counts (in the 12).
    s = ok(
        knock_state([*KNOCKER_MELDS, "D13"], "H5", DEFENDER_12), 0, {"type": "knock", "card": "H5"}
    )
    assert s.history[-1].layoffs == () and s.history[-1].points == 25 + 12
    rejected(s, 1, {"type": "lay_off", "card": "S3", "meld": S_RUN}, "wrong_phase")
    assert ENGINE.legal_actions(s, 1) == [{"type": "next_hand"}]


def test_example_big_gin_vs_defender_12_scores_43() -> None:
    hand11 = [*KNOCKER_MELDS, "D13", "D9"]  # run D9-D13 plus the others: all 11 melded
    s = knock_state(hand11[:10], hand11[10], DEFENDER_12)
    assert {"type": "big_gin"} in ENGINE.legal_actions(s, 0)
    s = ok(s, 0, {"type": "big_gin"})
    res = s.history[-1]
    assert (res.kind, res.winner, res.points, res.bonus) == ("big_gin", 0, 43, 31)
    assert len(s.hands[0]) == 11 and res.knock_discard is None and res.seats[0].points == 0


def test_rule_08_big_gin_needs_all_eleven_melded() -> None:
    s = knock_state([*KNOCKER_MELDS, "D13"], "H5", CLUBS)
    assert {"type": "big_gin"} not in ENGINE.legal_actions(s, 0)
    r = rejected(s, 0, {"type": "big_gin"}, "not_big_gin")
    assert "5" in r.message
    rejected(make((full_deck()[:10], full_deck()[13:23])), 0, {"type": "big_gin"}, "wrong_phase")


def test_rule_12_gin_and_big_gin_bonus_options_plus_defender_deadwood() -> None:
    hand11 = [*KNOCKER_MELDS, "D13", "D9"]
    s = knock_state(hand11[:10], hand11[10], DEFENDER_12, options={"big_gin_bonus": 50})
    assert ok(s, 0, {"type": "big_gin"}).history[-1].points == 62
    s = knock_state([*KNOCKER_MELDS, "D13"], "H5", DEFENDER_12, options={"gin_bonus": 20})
    assert ok(s, 0, {"type": "knock", "card": "H5"}).history[-1].points == 32


# --------------------------------------------------------------------------- rule 9


def _knocked(knocker_dead: str, defender: Sequence[str], **kw: Any) -> GinState:
    """Seat 0 knocked with KNOCKER_MELDS + one deadwood card; seat 1 to lay off."""
    s = knock_state([*KNOCKER_MELDS, knocker_dead], "C13", defender, **kw)
    return ok(s, 0, {"type": "knock", "card": "C13"})


def test_example_knocker_3_defender_21_scores_18() -> None:
    s = _knocked("H3", DEFENDER_21)  # H13 C8 C2 C1 = 21
    assert s.knock is not None and s.knock.points == 3
    assert ENGINE.legal_actions(s, 1) == [{"type": "finish_layoff"}]
    s = ok(s, 1, {"type": "finish_layoff"})
    res = s.history[-1]
    assert (res.kind, res.winner, res.points, res.bonus) == ("knock", 0, 18, 0)
    assert res.seats[1].points == 21 and res.seats[0].points == 3 and s.scores == (18, 0)


def test_example_knocker_8_defender_10_after_layoffs_scores_2() -> None:
    # Defender deadwood S3 D13 C2 C8 = 23; S3 and D13 lay off, leaving 10.
    defender = ["C9", "H9", "S9", "H4", "H5", "H6", "S3", "D13", "C2", "C8"]
    s = _knocked("H8", defender)
    legal = ENGINE.legal_actions(s, 1)
    assert {"type": "lay_off", "card": "S3", "meld": S_RUN} in legal
    assert {"type": "lay_off", "card": "D13", "meld": D_RUN} in legal
    no_layoff = ok(s, 1, {"type": "finish_layoff"})
    assert no_layoff.history[-1].points == 23 - 8
    s = ok(s, 1, {"type": "lay_off", "card": "S3", "meld": S_RUN})
    s = ok(s, 1, {"type": "lay_off", "card": "D13", "meld": D_RUN})
    s = ok(s, 1, {"type": "finish_layoff"})
    res = s.history[-1]
    assert (res.kind, res.winner, res.points) == ("knock", 0, 2)
    assert res.seats[1].points == 10
    assert [(lo.card, lo.meld) for lo in res.layoffs] == [("S3", S_RUN), ("D13", D_RUN)]


def test_example_defender_h4_lays_off_onto_h1_h2_h3() -> None:
    knocker = ["H1", "H2", "H3", "C7", "D7", "H7", "D10", "D11", "D12", "S2"]  # deadwood 2
    defender = ["C9", "H9", "S9", "H4", "C8", "S13", "C5", "D5", "H5", "S5"]  # deadwood 22
    s = ok(knock_state(knocker, "C13", defender), 0, {"type": "knock", "card": "C13"})
    melds = ENGINE.view(s, 1)["knock"]["melds"]
    assert melds == [["C7", "D7", "H7"], ["D10", "D11", "D12"], ["H1", "H2", "H3"]]
    s = ok(s, 1, {"type": "lay_off", "card": "H4", "meld": 2})
    assert ENGINE.view(s, 1)["knock"]["melds"][2] == ["H1", "H2", "H3", "H4"]
    assert "H4" not in s.hands[1]
    s = ok(s, 1, {"type": "finish_layoff"})
    assert s.history[-1].seats[1].points == 22 - 4 and s.history[-1].points == 18 - 2


def test_rule_09_layoffs_repeat_and_extend_either_end() -> None:
    defender = ["S3", "S2", "S7", "S8", "C8", "H13", "D9", "C1", "H11", "C12"]
    s = _knocked("H3", defender)
    rejected(s, 1, {"type": "lay_off", "card": "S2", "meld": S_RUN}, "cannot_lay_off")
    rejected(s, 1, {"type": "lay_off", "card": "S8", "meld": S_RUN}, "cannot_lay_off")
    for card in ["S3", "S2", "S7", "S8"]:  # each one makes room for the next
        s = ok(s, 1, {"type": "lay_off", "card": card, "meld": S_RUN})
    s = ok(s, 1, {"type": "lay_off", "card": "D9", "meld": D_RUN})  # the run's low end
    melds = ENGINE.view(s, 0)["knock"]["melds"]
    assert melds[S_RUN] == ["S2", "S3", "S4", "S5", "S6", "S7", "S8"]
    assert melds[D_RUN] == ["D9", "D10", "D11", "D12"]
    s = ok(s, 1, {"type": "finish_layoff"})
    assert s.history[-1].seats[1].points == 8 + 10 + 1 + 10 + 10


def test_rule_09_sets_complete_to_four_and_bad_layoffs_are_refused() -> None:
    defender = ["S7", "S2", "H13", "S13", "D13", "S9", "S10", "H10", "C1", "C2"]
    s = _knocked("H3", defender)
    r = rejected(s, 1, {"type": "lay_off", "card": "S7", "meld": D_RUN}, "cannot_lay_off")
    assert "7 of spades" in r.message
    rejected(s, 1, {"type": "lay_off", "card": "S7", "meld": 3}, "bad_meld")
    rejected(s, 1, {"type": "lay_off", "card": "S7", "meld": True}, "bad_meld")
    rejected(s, 1, {"type": "lay_off", "card": "S7"}, "bad_meld")
    rejected(s, 1, {"type": "lay_off", "card": "H3", "meld": 0}, "not_in_hand")
    rejected(s, 1, {"type": "lay_off", "card": "X", "meld": 0}, "bad_card")
    legal = ENGINE.legal_actions(s, 1)
    # S7 fits both the run S4-S6 and the set of sevens.
    assert {"type": "lay_off", "card": "S7", "meld": S_RUN} in legal
    assert {"type": "lay_off", "card": "S7", "meld": SEVENS} in legal
    s = ok(s, 1, {"type": "lay_off", "card": "S7", "meld": SEVENS})
    assert ENGINE.view(s, 1)["knock"]["melds"][SEVENS] == ["C7", "D7", "H7", "S7"]
    rejected(s, 1, {"type": "lay_off", "card": "S7", "meld": SEVENS}, "not_in_hand")


def test_rule_09_knocker_never_lays_off_and_others_wait() -> None:
    s = _knocked("H3", ["S3", "S2", "S7", "S8", "C8", "H13", "D9", "C1", "H11", "C12"])
    r = rejected(s, 0, {"type": "lay_off", "card": "H3", "meld": S_RUN}, "knocker_cannot_lay_off")
    assert "never" in r.message
    rejected(s, 0, {"type": "finish_layoff"}, "not_your_turn")
    rejected(s, 1, {"type": "discard", "card": "S3"}, "wrong_phase")
    rejected(s, 1, {"type": "next_hand"}, "wrong_phase")
    assert ENGINE.legal_actions(s, 0) == []


def test_rule_09_defender_may_break_own_meld_to_lay_off() -> None:
    # Knocker: tens, jacks, S4-S6 and H2. Defender's best arrangement keeps the run H9-H11
    # (deadwood C9 D9 H13 D13 = 38); laying off H10 and H11 turns the nines into a set (20).
    knocker = ["C10", "D10", "S10", "C11", "D11", "S11", "S4", "S5", "S6", "H2"]
    defender = ["H9", "H10", "H11", "C9", "D9", "C1", "C2", "C3", "H13", "D13"]
    s = ok(knock_state(knocker, "C13", defender), 0, {"type": "knock", "card": "C13"})
    assert ENGINE.view(s, 1)["knock"]["melds"][:2] == [["C10", "D10", "S10"], ["C11", "D11", "S11"]]
    direct = ok(s, 1, {"type": "finish_layoff"}).history[-1]
    assert direct.seats[1].points == 38 and direct.points == 36
    s = ok(s, 1, {"type": "lay_off", "card": "H10", "meld": 0})
    s = ok(s, 1, {"type": "lay_off", "card": "H11", "meld": 1})
    res = ok(s, 1, {"type": "finish_layoff"}).history[-1]
    assert res.seats[1].points == 20 and res.points == 18
    assert ["C9", "D9", "H9"] in [list(m) for m in res.seats[1].melds]


# --------------------------------------------------------------------------- rule 10


def test_rule_10_draw_when_stock_is_down_to_two() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_size=3, scores=(12, 30))
    s = replace(s, hand_no=4, dealer=1, hands_won=(1, 2))
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    assert len(s.stock) == 2 and s.phase == DISCARD
    end = ok(s, 0, {"type": "discard", "card": "C1"})
    assert end.phase == HAND_OVER and end.turn is None
    res = end.history[-1]
    assert (res.kind, res.winner, res.points) == ("draw", None, 0)
    assert end.scores == (12, 30) and end.hands_won == (1, 2) and end.draws == 1
    assert len(res.seats[0].deadwood) + sum(len(m) for m in res.seats[0].melds) == 10
    nxt = ok(end, 0, {"type": "next_hand"})
    assert nxt.dealer == 0 and nxt.hand_no == 5 and nxt.scores == (12, 30)  # dealer alternates


def test_rule_10_player_drawing_down_to_two_may_still_knock() -> None:
    s = make(([*KNOCKER_MELDS, "H3"], DEFENDER_21), stock_top=["C13"], stock_size=3)
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    s = ok(s, 0, {"type": "knock", "card": "C13"})
    assert s.phase == LAYOFF and len(s.stock) == 2


def test_rule_10_taking_the_discard_does_not_shrink_the_stock() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_size=3)
    s = ok(s, 0, {"type": "draw", "source": "discard"})
    s = ok(s, 0, {"type": "discard", "card": "C1"})
    assert s.phase == DRAW and s.turn == 1 and len(s.stock) == 3


# --------------------------------------------------------------------------- rules 11-13


def test_rule_11_knock_points_are_the_deadwood_difference() -> None:
    for dead, points in [("C3", 21 - 3), ("S1", 21 - 1), ("H10", 21 - 10)]:
        s = ok(_knocked(dead, DEFENDER_21), 1, {"type": "finish_layoff"})
        assert s.history[-1].points == points and s.history[-1].winner == 0
        assert s.scores == (points, 0)


def test_example_undercut_knocker_5_defender_5() -> None:
    defender = ["C8", "D8", "H8", "S8", "C12", "H12", "S12", "S2", "C2", "C1"]  # deadwood 5
    s = ok(_knocked("H5", defender), 1, {"type": "finish_layoff"})
    res = s.history[-1]
    assert (res.kind, res.winner, res.points, res.bonus) == ("undercut", 1, 25, 25)
    assert s.scores == (0, 25) and s.hands_won == (0, 1)


def test_rule_13_undercut_scores_bonus_plus_difference() -> None:
    defender = ["C8", "D8", "H8", "S8", "C12", "H12", "S12", "S2", "C1", "H1"]  # deadwood 4
    s = ok(_knocked("H9", defender), 1, {"type": "finish_layoff"})
    assert s.history[-1].points == 25 + 9 - 4 and s.history[-1].winner == 1
    s = ok(_knocked("H9", defender, options={"undercut_bonus": 10}), 1, {"type": "finish_layoff"})
    assert s.history[-1].points == 10 + 5


def test_rule_13_gin_is_never_undercut() -> None:
    defender = ["C8", "D8", "H8", "S8", "C13", "H13", "S13", "C1", "H1", "S1"]  # deadwood 0
    s = knock_state([*KNOCKER_MELDS, "D13"], "H5", defender)
    s = ok(s, 0, {"type": "knock", "card": "H5"})
    res = s.history[-1]
    assert (res.kind, res.winner, res.points) == ("gin", 0, 25)


# --------------------------------------------------------------------------- rules 14-16


def test_rule_14_game_ends_when_a_total_reaches_the_target() -> None:
    s = _knocked("H3", DEFENDER_21, scores=(81, 40), hands_won=(3, 2))
    below = ok(s, 1, {"type": "finish_layoff"})
    assert below.phase == HAND_OVER and below.scores == (99, 40) and below.game_result is None
    s = _knocked("H3", DEFENDER_21, scores=(82, 40), hands_won=(3, 2))
    end = ok(s, 1, {"type": "finish_layoff"})
    assert end.phase == GAME_OVER and end.scores == (100, 40) and end.game_result is not None
    assert ENGINE.legal_actions(end, 0) == [] and ENGINE.legal_actions(end, 1) == []
    rejected(end, 0, {"type": "next_hand"}, "game_over")
    s = _knocked("H3", DEFENDER_21, scores=(150, 40), options={"target": 250})
    assert ok(s, 1, {"type": "finish_layoff"}).phase == HAND_OVER


def test_rule_15_game_bonus_and_line_bonus() -> None:
    s = _knocked("H3", DEFENDER_21, scores=(90, 40), hands_won=(3, 2))
    g = ok(s, 1, {"type": "finish_layoff"}).game_result
    assert g is not None
    assert g.reached_target == 0 and not g.shutout
    assert g.hand_points == (108, 40) and g.counted_hand_points == (108, 40)
    assert g.game_bonus == (100, 0) and g.line_bonus == (4 * 25, 2 * 25)
    assert g.totals == (308, 90) and g.winner == 0


def test_rule_15_shutout_doubles_hand_points_before_line_bonus() -> None:
    s = _knocked("H3", DEFENDER_21, scores=(90, 0), hands_won=(3, 0))
    g = ok(s, 1, {"type": "finish_layoff"}).game_result
    assert g is not None and g.shutout
    assert g.counted_hand_points == (216, 0) and g.line_bonus == (100, 0)
    assert g.totals == (216 + 100 + 100, 0)
    # A drawn hand spoils the shutout.
    s = _knocked("H3", DEFENDER_21, scores=(90, 0), hands_won=(3, 0), draws=1)
    g = ok(s, 1, {"type": "finish_layoff"}).game_result
    assert g is not None and not g.shutout and g.totals == (108 + 100 + 100, 0)


def test_rule_15_no_shutout_if_the_loser_won_a_hand() -> None:
    s = _knocked("H3", DEFENDER_21, scores=(90, 5), hands_won=(3, 1))
    g = ok(s, 1, {"type": "finish_layoff"}).game_result
    assert g is not None and not g.shutout and g.totals == (108 + 100 + 100, 5 + 25)


def test_rule_16_grand_totals_decide_even_against_the_target_reacher() -> None:
    # Seat 0 reaches 100 in one big hand; seat 1 won nine small hands.
    s = _knocked("H3", DEFENDER_21, scores=(82, 99), hands_won=(0, 9))
    end = ok(s, 1, {"type": "finish_layoff"})
    g = end.game_result
    assert g is not None and g.reached_target == 0
    assert g.totals == (100 + 100 + 25, 99 + 225) and g.winner == 1
    view = ENGINE.view(end, None)["game_result"]
    assert set(view) == {
        "winner",
        "reached_target",
        "shutout",
        "hands_won",
        "hand_points",
        "counted_hand_points",
        "game_bonus",
        "line_bonus",
        "totals",
    }
    assert view["totals"] == [225, 324] and view["winner"] == 1


def test_rule_16_equal_totals_have_no_winner() -> None:
    s = _knocked("H3", DEFENDER_21, scores=(89, 82), hands_won=(0, 6))  # 107+100+25 = 82+150
    g = ok(s, 1, {"type": "finish_layoff"}).game_result
    assert g is not None and g.totals == (232, 232) and g.winner is None


# --------------------------------------------------------------------------- views


def test_view_hides_the_opponents_hand_and_the_stock() -> None:
    s = ENGINE.new_game(2, {}, 11)
    for seat in (0, 1):
        v = ENGINE.view(s, seat)
        seen = strings(v)
        assert v["hand"] == list(s.hands[seat])
        assert not seen & set(s.hands[1 - seat]) and not seen & set(s.stock)
        assert v["hand_counts"] == [10, 10] and v["stock_count"] == 31
        assert v["discard_top"] == s.discard[-1]
    spectator = ENGINE.view(s, None)
    assert spectator["hand"] is None and spectator["arrangement"] is None
    assert not strings(spectator) & (set(s.hands[0]) | set(s.hands[1]) | set(s.stock))


def test_view_shows_a_stock_draw_only_to_the_drawer() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_top=["H13"], pile=["S3"])
    d = ok(s, 0, {"type": "draw", "source": "stock"})
    assert ENGINE.view(d, 0)["drawn"] == "H13"
    assert ENGINE.view(d, 1)["drawn"] is None and "H13" not in strings(ENGINE.view(d, 1))
    assert ENGINE.view(d, 1)["drawn_from"] == "stock"
    t = ok(s, 0, {"type": "draw", "source": "discard"})
    assert ENGINE.view(t, 1)["drawn"] == "S3"  # taking the discard is public


def test_view_reveals_both_hands_when_the_hand_ends() -> None:
    defender = ["C9", "H9", "S9", "H4", "H5", "H6", "S3", "D13", "C2", "C8"]
    s = _knocked("H8", defender)
    v1 = ENGINE.view(s, 1)
    assert v1["knock"]["deadwood"] == ["H8"] and v1["knock"]["points"] == 8
    assert "C13" not in strings(v1)  # face-down knock discard
    assert not strings(ENGINE.view(s, 0)) & set(s.hands[1])
    s = ok(s, 1, {"type": "lay_off", "card": "S3", "meld": S_RUN})
    s = ok(s, 1, {"type": "finish_layoff"})
    for seat in (0, 1, None):
        res = ENGINE.view(s, seat)["last_result"]
        assert res["knock_discard"] == "C13"
        assert res["seats"][0]["deadwood"] == ["H8"] and res["seats"][0]["points"] == 8
        assert res["seats"][1]["points"] == 10 + 2 + 8
        assert sorted(c for m in res["seats"][1]["melds"] for c in m) == sorted(
            ["C9", "H9", "S9", "H4", "H5", "H6"]
        )
        assert res["layoffs"] == [{"card": "S3", "meld": S_RUN}]
        assert res["points"] == 20 - 8 and res["winner"] == 0
    assert ENGINE.view(s, 0)["history"] == [
        {"hand_no": 1, "kind": "knock", "winner": 0, "points": 12}
    ]


# --------------------------------------------------------------------------- dump / load


def _random_states(seed: int, count: int) -> list[GinState]:
    """States met in play where each move is the bot's or a random legal one (half each)."""
    rng = random.Random(seed)
    s = ENGINE.new_game(2, {}, seed)
    out = [s]
    while len(out) < count:
        if s.phase == GAME_OVER:
            s = ENGINE.new_game(2, {}, rng.randrange(10**6))
        actions = [(seat, a) for seat in (0, 1) for a in ENGINE.legal_actions(s, seat)]
        seat, action = rng.choice(actions)
        if rng.random() < 0.5:
            action = choose_action(ENGINE, s, seat, rng) or action
        s = ok(s, seat, action)
        out.append(s)
    return out


def _plain_only(obj: Any) -> bool:
    if obj is None or isinstance(obj, str | int | bool):
        return True
    if isinstance(obj, list):
        return all(_plain_only(v) for v in obj)
    if isinstance(obj, dict):
        return all(isinstance(k, str) and _plain_only(v) for k, v in obj.items())
    return False


def test_dump_load_round_trip_through_msgpack() -> None:
    states = _random_states(3, 1500)
    phases = {s.phase for s in states}
    assert {UPCARD, DRAW, DISCARD, LAYOFF, HAND_OVER} <= phases
    for s in states:
        data = ENGINE.dump(s)
        assert _plain_only(data)
        back = ENGINE.load(msgpack.unpackb(msgpack.packb(data)))
        assert back == s
        assert ENGINE.view(back, 0) == ENGINE.view(s, 0)
        assert all(_plain_only(ENGINE.view(s, seat)) for seat in (0, 1, None))


def test_states_are_immutable_and_apply_never_mutates() -> None:
    s = ENGINE.new_game(2, {}, 9)
    with pytest.raises(AttributeError):
        s.phase = DRAW  # type: ignore[misc]
    for s in _random_states(4, 300):
        before = ENGINE.dump(s)
        for seat in (0, 1):
            for action in ENGINE.legal_actions(s, seat):
                ENGINE.apply(s, seat, action)
        assert ENGINE.dump(s) == before


# --------------------------------------------------------------------------- legal actions


def _universe(state: GinState) -> list[Any]:
    """Candidate actions, legal or not, for the exact-match property below."""
    out: list[Any] = [
        {"type": t} for t in ("take_upcard", "pass", "big_gin", "finish_layoff", "next_hand")
    ]
    out += [{"type": "draw", "source": src} for src in ("stock", "discard", "hand")]
    out += [{"type": t, "card": c} for t in ("discard", "knock") for c in full_deck()]
    melds = len(state.knock.melds) + 1 if state.knock else 1
    cards = full_deck() if state.phase == LAYOFF else ["H1", "S13"]
    out += [{"type": "lay_off", "card": c, "meld": j} for c in cards for j in range(melds)]
    out += [{"type": "cheat"}, {"type": "discard"}, {}, "discard", {"type": 3}]
    return out


def test_legal_actions_are_exactly_the_accepted_actions_on_random_states() -> None:
    states = _random_states(17, 2000)[::4]
    seen_codes: set[str] = set()
    for s in states:
        for seat in (0, 1):
            legal = ENGINE.legal_actions(s, seat)
            for action in _universe(s):
                out = ENGINE.apply(s, seat, action)
                if action in legal:
                    assert not isinstance(out, Rejection), (action, out)
                else:
                    assert isinstance(out, Rejection), action
                    seen_codes.add(out.code)
        assert ENGINE.legal_actions(s, 2) == []
        assert isinstance(ENGINE.apply(s, None, {"type": "pass"}), Rejection)  # type: ignore[arg-type]
    assert {
        "not_your_turn",
        "wrong_phase",
        "not_in_hand",
        "unknown_action",
        "bad_action",
        "bad_card",
        "cannot_lay_off",
        "knocker_cannot_lay_off",
        "deadwood_too_high",
        "not_big_gin",
        "discard_taken_card",
        "bad_meld",
        "upcard_refused",
    } <= seen_codes


def test_misc_rejections_have_stable_codes() -> None:
    s = ENGINE.new_game(2, {}, 1)
    first = s.turn
    assert first is not None
    rejected(s, 5, {"type": "pass"}, "bad_seat")
    rejected(s, first, {"type": "shuffle"}, "unknown_action")
    rejected(s, first, {"kind": "pass"}, "bad_action")
    rejected(s, first, ["pass"], "bad_action")
    rejected(s, first, {"type": "next_hand"}, "wrong_phase")
    rejected(s, first, {"type": "discard", "card": s.hands[first][0]}, "wrong_phase")
