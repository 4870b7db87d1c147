"""Gin Rummy knocking with the knocker's own melds (rules 7-9), and the knock offer in the view.

The knocker may lay out any valid arrangement of the 10 cards left whose deadwood is within
the knock limit; the defender lays off onto exactly those melds and the hand is scored with
that deadwood. In the discard phase the view offers the best arrangement for every card that
can be discarded to knock, or says why no knock is possible.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from plugins.base import Rejection
from plugins.gin_rummy import ENGINE
from plugins.gin_rummy.rules import DISCARD, HAND_OVER, LAYOFF
from tests.plugins.test_gin_rules import HEARTS, knock_state, make, ok, rejected, strings

# Kept after discarding S13: the hearts run and the eights can share H8 either way round.
KEPT = ["H5", "H6", "H7", "H8", "C8", "D8", "S8", "S1", "D2", "C3"]  # deadwood S1 D2 C3 = 6
RUN_OF_FOUR = [["H5", "H6", "H7", "H8"], ["C8", "D8", "S8"]]  # H9 (then H10) lays off
FOUR_EIGHTS = [["H5", "H6", "H7"], ["C8", "D8", "H8", "S8"]]  # the run ends at H7: H8 is used
# Defender: kings melded; deadwood H9 H10 C4 D6 S5 C2 H2 = 38.
DEFENDER = ["H9", "H10", "C13", "D13", "H13", "C4", "D6", "S5", "C2", "H2"]
# A defender sharing no card with the hands of the knock-offer tests.
OTHER = ["C10", "C11", "C12", "S9", "S10", "S11", "S12", "D11", "D12", "H13"]


def _knock(melds: Any = None, **kw: Any) -> Any:
    action: dict[str, Any] = {"type": "knock", "card": "S13"}
    if melds is not None:
        action["melds"] = melds
    return ENGINE.apply(knock_state(KEPT, "S13", DEFENDER, **kw), 0, action)


# --------------------------------------------------------------------------- chosen melds


def test_rule_07_knocker_lays_out_the_chosen_melds() -> None:
    s = _knock([["S8", "C8", "D8"], ["H8", "H6", "H7", "H5"]])  # any order is accepted
    assert not isinstance(s, Rejection)
    assert s.phase == LAYOFF and s.knock is not None
    assert s.knock.melds == (("C8", "D8", "S8"), ("H5", "H6", "H7", "H8"))  # usual order
    assert s.knock.deadwood == ("C3", "D2", "S1") and s.knock.points == 6
    view = ENGINE.view(s, 1)["knock"]
    assert view["melds"] == [["C8", "D8", "S8"], ["H5", "H6", "H7", "H8"]]
    assert view["laid_out"] == view["melds"] and view["points"] == 6


def test_rule_09_defender_lays_off_onto_the_chosen_melds() -> None:
    # Run of four: H9 and then H10 lay off, leaving the defender 19 -> knocker scores 13.
    s = _knock(RUN_OF_FOUR)
    assert not isinstance(s, Rejection)
    legal = ENGINE.legal_actions(s, 1)
    assert {"type": "lay_off", "card": "H9", "meld": 1} in legal
    s = ok(
        ok(s, 1, {"type": "lay_off", "card": "H9", "meld": 1}),
        1,
        {"type": "lay_off", "card": "H10", "meld": 1},
    )
    res = ok(s, 1, {"type": "finish_layoff"}).history[-1]
    assert (res.kind, res.winner, res.points) == ("knock", 0, 38 - 19 - 6)
    assert [list(m) for m in res.seats[0].melds] == [["C8", "D8", "S8"], ["H5", "H6", "H7", "H8"]]


def test_rule_09_a_blocking_layout_leaves_nothing_to_lay_off() -> None:
    # Four eights: the run stops at H7 and H8 is taken, so H9 has nowhere to go.
    s = _knock(FOUR_EIGHTS)
    assert not isinstance(s, Rejection)
    assert ENGINE.legal_actions(s, 1) == [{"type": "finish_layoff"}]
    r = rejected(s, 1, {"type": "lay_off", "card": "H9", "meld": 1}, "cannot_lay_off")
    assert r.message == (
        "The 9 of hearts doesn't extend the knocker's meld of the 5 of hearts, 6 of hearts "
        "and 7 of hearts."
    )
    res = ok(s, 1, {"type": "finish_layoff"}).history[-1]
    assert (res.kind, res.winner, res.points) == ("knock", 0, 38 - 6)


def test_rule_07_without_melds_the_engine_lays_out_its_best_arrangement() -> None:
    plain = _knock()
    assert not isinstance(plain, Rejection) and plain.knock is not None
    assert [list(m) for m in plain.knock.melds] == [["C8", "D8", "H8", "S8"], ["H5", "H6", "H7"]]
    assert _knock(None) == plain  # "melds": None is the same as leaving it out
    offered = ENGINE.view(knock_state(KEPT, "S13", DEFENDER), 0)["knock_options"]
    s13 = next(o for o in offered if o["card"] == "S13")
    assert s13["melds"] == [list(m) for m in plain.knock.melds] and s13["points"] == 6


def test_rule_08_a_gin_layout_may_be_laid_out_as_a_knock() -> None:
    # Both layouts below use all ten cards except, in the second, the ace of hearts.
    gin_hand = ["H1", "H2", "H3", "H4", "C4", "D4", "S4", "C12", "D12", "H12"]
    state = knock_state(gin_hand, "S13", HEARTS[4:] + ["C1", "C2", "C3", "C5", "S5", "S6"])
    gin = ok(state, 0, {"type": "knock", "card": "S13"})
    assert gin.history[-1].kind == "gin" and gin.phase == HAND_OVER
    chosen = [["H1", "H2", "H3"], ["C4", "D4", "H4", "S4"], ["C12", "D12", "H12"]]
    also_gin = ok(state, 0, {"type": "knock", "card": "S13", "melds": chosen})
    assert also_gin.history[-1].kind == "gin"
    melds = [["H2", "H3", "H4"], ["C4", "D4", "S4"], ["C12", "D12", "H12"]]
    s = ok(state, 0, {"type": "knock", "card": "S13", "melds": melds})
    assert s.phase == LAYOFF and s.knock is not None
    assert (s.knock.kind, s.knock.deadwood, s.knock.points) == ("knock", ("H1",), 1)
    assert (
        ENGINE.describe(state, 0, {"type": "knock", "card": "S13", "melds": melds}, ["Ana", "Ben"])
        == "Ana knocked with 1 deadwood"
    )


def test_rule_07_chosen_melds_over_the_limit_are_refused() -> None:
    # Without the set of eights the deadwood is 30 (C8 D8 S8 S1 D2 C3).
    r = rejected(
        knock_state(KEPT, "S13", DEFENDER),
        0,
        {"type": "knock", "card": "S13", "melds": [["H5", "H6", "H7", "H8"]]},
        "deadwood_too_high",
    )
    assert r.message == (
        "You can't knock with those melds: your deadwood would be 30 (3 of clubs, 8 of clubs, "
        "2 of diamonds, 8 of diamonds, ace of spades and 8 of spades), and the knock limit is "
        "10 (your best layout leaves 6)."
    )
    strict = knock_state(KEPT, "S13", DEFENDER, options={"knock_limit": 5})
    r = rejected(
        strict, 0, {"type": "knock", "card": "S13", "melds": FOUR_EIGHTS}, "deadwood_too_high"
    )
    assert "would be 6" in r.message and "limit is 5" in r.message and "best" not in r.message


def test_rule_07_bad_melds_are_refused_with_their_reason() -> None:
    s = knock_state(KEPT, "S13", DEFENDER)
    before = ENGINE.dump(s)

    def refuse(melds: Any, code: str) -> str:
        return rejected(s, 0, {"type": "knock", "card": "S13", "melds": melds}, code).message

    for shape in ("H5 H6 H7", ["H5", "H6", "H7"], [["H5", "H6", "Z9"]], {"a": 1}, [[1, 2, 3]]):
        assert "list of melds" in refuse(shape, "bad_melds")
    assert refuse([["H5", "H6", "H8"]], "not_a_meld") == (
        "The 5 of hearts, 6 of hearts and 8 of hearts don't form a meld: a meld is 3 or 4 "
        "cards of one rank, or 3 or more cards of one suit in sequence (ace low)."
    )
    assert refuse([["C8", "D8"]], "not_a_meld").startswith("The 8 of clubs and 8 of diamonds")
    assert refuse([["C8", "D8", "S8"], ["H6", "H7", "H8"], ["H8", "D8", "C8"]], "meld_overlap") == (
        "The 8 of hearts is in two of your melds; a card belongs to one meld at most."
    )
    assert refuse([["S11", "S12", "S13"]], "knock_card_in_meld") == (
        "The king of spades is the card you are discarding; it can't be in a meld."
    )
    assert refuse([["H9", "H10", "H11"]], "not_in_hand") == "You don't hold the 9 of hearts."
    assert ENGINE.dump(s) == before


# --------------------------------------------------------------------------- the view's offer


def test_example_knock_offer_with_deadwood_3_5_9_is_the_9_for_8() -> None:
    melded = ["S4", "S5", "S6", "S7", "C12", "D12", "H12", "S12"]
    s = knock_state([*melded, "C3", "D5"], "H9", HEARTS)
    v = ENGINE.view(s, 0)
    assert v["knock_options"] == [
        {
            "card": "H9",
            "melds": [["C12", "D12", "H12", "S12"], ["S4", "S5", "S6", "S7"]],
            "deadwood": ["C3", "D5"],
            "points": 8,
            "gin": False,
        }
    ]
    assert v["knock_blocked"] is None
    offered = {o["card"] for o in v["knock_options"]}
    legal = {a["card"] for a in ENGINE.legal_actions(s, 0) if a["type"] == "knock"}
    assert offered == legal
    for viewer in (1, None):  # nobody else learns about the knocker's options
        other = ENGINE.view(s, viewer)
        assert other["knock_options"] == [] and other["knock_blocked"] is None
        assert not strings(other) & {"S4", "C3", "D5", "H9"}


def test_view_says_why_no_knock_is_possible() -> None:
    hand = ["C1", "C2", "C3", "D4", "D5", "D6", "H2", "S3", "H8", "D10"]  # deadwood 23
    s = knock_state(hand, "S13", OTHER)
    v = ENGINE.view(s, 0)
    assert v["knock_options"] == []
    assert v["knock_blocked"] == "Your deadwood would be 23; the limit is 10."
    assert not [a for a in ENGINE.legal_actions(s, 0) if a["type"] == "knock"]
    # Only Gin allowed: the reason says so.
    low = ["C1", "C2", "C3", "D4", "D5", "D6", "H7", "S7", "C7", "S4"]  # deadwood 4
    s = knock_state(low, "S13", OTHER, options={"knock_limit": 0})
    assert ENGINE.view(s, 0)["knock_blocked"] == (
        "Your deadwood would be 4; only Gin (0 deadwood) may knock."
    )
    # The same hand with the default limit offers knocks instead.
    s = knock_state(low, "S13", OTHER)
    assert ENGINE.view(s, 0)["knock_blocked"] is None
    assert {o["card"] for o in ENGINE.view(s, 0)["knock_options"]} == {"S13", "S4"}


def test_view_knock_blocked_ignores_the_card_just_taken() -> None:
    # The king of spades was just taken from the discard pile: discarding it would leave 22
    # (H2 S3 H8 C9), but it may not go back this turn, so the least is 23 (discarding C9).
    hand = ["C1", "C2", "C3", "D4", "D5", "D6", "H2", "S3", "H8", "C9", "S13"]
    s = make((hand, OTHER), phase=DISCARD, drawn="S13", drawn_from="discard")
    assert ENGINE.view(s, 0)["knock_blocked"] == "Your deadwood would be 23; the limit is 10."
    drawn = replace(s, drawn_from="stock")  # the same hand drawn from the stock may discard it
    assert ENGINE.view(drawn, 0)["knock_blocked"] == "Your deadwood would be 22; the limit is 10."


def test_view_offers_gin() -> None:
    gin_hand = ["H1", "H2", "H3", "H4", "C4", "D4", "S4", "C12", "D12", "H12"]
    s = knock_state(gin_hand, "S13", HEARTS[4:] + ["C1", "C2", "C3", "C5", "S5", "S6"])
    options = {o["card"]: o for o in ENGINE.view(s, 0)["knock_options"]}
    assert options["S13"]["gin"] and options["S13"]["points"] == 0
    assert options["S13"]["deadwood"] == []
    assert all(o["gin"] == (o["points"] == 0) for o in options.values())
