"""Gin Rummy's part of the meld library (:mod:`plugins.melds`: the one-deck fewest-deadwood
search, its tied arrangements, lay-offs as many as possible and the defence; rules 1-3 and 9),
checked against a plain brute force."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plugins.cards import card_name
from plugins.cards import deck as full_deck
from plugins.melds import (
    _arranged,
    _solve,
    arrangement_of,
    arrangements,
    best_arrangement,
    best_defence,
    can_lay_off,
    deadwood_points,
    deadwood_value,
    extend_meld,
    is_meld,
    layoffs,
    parse,
)
from plugins.melds import plan_most_layoffs as plan_layoffs

# --------------------------------------------------------------------------- brute force


def _plain_value(card: str) -> int:
    rank = int(card[1:])
    return 10 if rank > 10 else rank


def _plain_is_meld(group: tuple[str, ...]) -> bool:
    """A meld, written straight from rule 2 without using the engine's helpers."""
    suits = [c[0] for c in group]
    ranks = [int(c[1:]) for c in group]
    if len(group) < 3:
        return False
    if len(set(ranks)) == 1:
        return len(group) <= 4
    if len(set(suits)) != 1:
        return False
    ordered = sorted(ranks)
    return all(b == a + 1 for a, b in zip(ordered, ordered[1:], strict=False))


def brute_force_min_deadwood(hand: list[str]) -> int:
    """Try every combination of disjoint melds and return the least deadwood."""
    # Every meld lies inside one suit (runs) or one rank (sets): try every group of 3+ there.
    groups: list[list[str]] = []
    for suit in "CDHS":
        groups.append([c for c in hand if c[0] == suit])
    for rank in range(1, 14):
        groups.append([c for c in hand if int(c[1:]) == rank])
    melds = [
        frozenset(combo)
        for group in groups
        for size in range(3, len(group) + 1)
        for combo in itertools.combinations(group, size)
        if _plain_is_meld(combo)
    ]
    total = sum(_plain_value(c) for c in hand)
    best = total

    def search(start: int, used: frozenset[str], melded: int) -> None:
        nonlocal best
        best = min(best, total - melded)
        for i in range(start, len(melds)):
            meld = melds[i]
            if not (meld & used):
                search(i + 1, used | meld, melded + sum(_plain_value(c) for c in meld))

    search(0, frozenset(), 0)
    return best


def _check_arrangement(hand: list[str]) -> None:
    arr = best_arrangement(hand)
    assert arr.points == brute_force_min_deadwood(hand), hand
    # The arrangement itself is consistent: disjoint valid melds, the rest is deadwood.
    placed = [c for m in arr.melds for c in m] + arr.deadwood
    assert sorted(placed) == sorted(hand)
    assert all(_plain_is_meld(tuple(m)) for m in arr.melds)
    assert arr.points == sum(_plain_value(c) for c in arr.deadwood)


# --------------------------------------------------------------------------- rule 1


def test_rule_01_one_deck_of_52_and_deadwood_values() -> None:
    deck = full_deck()
    assert len(deck) == 52 and len(set(deck)) == 52
    assert {parse(c)[0] for c in deck} == set("CDHS")
    assert [deadwood_value(f"H{r}") for r in range(1, 14)] == [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10
    ]  # fmt: skip
    assert sum(deadwood_value(c) for c in deck) == 4 * 85
    assert parse("S12") == ("S", 12) and parse("H1") == ("H", 1) and parse("C10") == ("C", 10)
    assert card_name("S12") == "queen of spades" and card_name("H1") == "ace of hearts"


@pytest.mark.parametrize("bad", ["", "X5", "H0", "H14", "H05", "h5", "5H", "J", "H"])
def test_rule_01_bad_card_codes_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse(bad)
    with pytest.raises(ValueError):
        best_arrangement(["H1", bad])


def test_rule_01_duplicate_cards_are_refused() -> None:
    with pytest.raises(ValueError):
        best_arrangement(["H1", "H2", "H1"])


# --------------------------------------------------------------------------- rule 2


def test_rule_02_sets_of_three_or_four() -> None:
    assert is_meld(["C7", "D7", "H7"])
    assert is_meld(["C7", "D7", "H7", "S7"])
    assert not is_meld(["C7", "D7"])
    assert not is_meld(["C7", "D7", "H8"])
    arr = best_arrangement(["C7", "D7", "H7", "S7", "H2"])
    assert arr.melds == [["C7", "D7", "H7", "S7"]] and arr.deadwood == ["H2"] and arr.points == 2


def test_rule_02_runs_same_suit_in_sequence() -> None:
    assert is_meld(["S5", "S6", "S7"])
    assert is_meld(["S5", "S6", "S7", "S8", "S9", "S10", "S11"])
    assert not is_meld(["S5", "S6", "H7"])
    assert not is_meld(["S5", "S6", "S8"])
    arr = best_arrangement(["S5", "S6", "S7", "S8", "D9"])
    assert arr.melds == [["S5", "S6", "S7", "S8"]] and arr.points == 9


def test_rule_02_ace_is_low_only_and_runs_never_wrap() -> None:
    assert is_meld(["H1", "H2", "H3"])
    assert not is_meld(["H12", "H13", "H1"])
    assert not is_meld(["H13", "H1", "H2"])
    assert best_arrangement(["H1", "H2", "H3"]).points == 0
    qka = best_arrangement(["H12", "H13", "H1"])
    assert qka.melds == [] and qka.points == 21
    kaa = best_arrangement(["H13", "H1", "H2"])
    assert kaa.melds == [] and kaa.points == 13


# --------------------------------------------------------------------------- rule 3


def test_rule_03_the_fours_example_depends_on_the_rest_of_the_hand() -> None:
    # H1 H2 H3 H4 C4 D4 alone: H4 belongs in the set of fours, nothing is left over.
    arr = best_arrangement(["H1", "H2", "H3", "H4", "C4", "D4"])
    assert arr.points == 0
    assert sorted(map(sorted, arr.melds)) == [["C4", "D4", "H4"], ["H1", "H2", "H3"]]
    # With H5 H6 as well, H4 is worth more in the run: deadwood C4 D4 = 8 (set would leave 11).
    arr = best_arrangement(["H1", "H2", "H3", "H4", "C4", "D4", "H5", "H6"])
    assert arr.points == 8 and sorted(arr.deadwood) == ["C4", "D4"]
    # With S4 too, H4 goes to the run and the other three fours still make a set.
    arr = best_arrangement(["H1", "H2", "H3", "H4", "C4", "D4", "S4"])
    assert arr.points == 0 and len(arr.melds) == 2


def test_rule_03_least_points_not_first_or_biggest_meld() -> None:
    # Ace at the low end: the run leaves C1 D1 (2 points), the set of aces would leave 5.
    arr = best_arrangement(["H1", "H2", "H3", "C1", "D1"])
    assert arr.melds == [["H1", "H2", "H3"]] and arr.points == 2
    # Ten at the high end: the set of tens leaves H8 H9 (17), the run would leave 20.
    arr = best_arrangement(["H8", "H9", "H10", "C10", "D10"])
    assert arr.melds == [["C10", "D10", "H10"]] and arr.points == 17
    # A card is in at most one meld: H7 cannot serve both the run and the set.
    arr = best_arrangement(["H5", "H6", "H7", "C7", "D7"])
    used = [c for m in arr.melds for c in m]
    assert len(used) == len(set(used)) == 3 and arr.points == 11


def test_rule_03_best_arrangement_matches_brute_force_on_random_hands() -> None:
    rng = random.Random(20240603)
    deck = full_deck()
    checked = 0
    for _ in range(2500):  # uniform hands of 10 and 11
        _check_arrangement(rng.sample(deck, rng.choice([10, 11])))
        checked += 1
    for _ in range(2500):  # dense hands: few ranks, many melds and overlaps
        low = rng.randint(1, 10)
        window = [c for c in deck if low <= parse(c)[1] < low + rng.choice([4, 5])]
        _check_arrangement(rng.sample(window, rng.choice([9, 10, 11])))
        checked += 1
    for size in range(0, 14):  # every size up to 11, and a little beyond
        for _ in range(20):
            _check_arrangement(rng.sample(deck[:26], size))
            checked += 1
    assert checked == 5280


# Three times the profile's count (tests/conftest.py): 300 in ci.
@settings(max_examples=3 * settings.default.max_examples, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(full_deck()[:39]), min_size=0, max_size=11, unique=True))
def test_rule_03_best_arrangement_matches_brute_force_hypothesis(hand: list[str]) -> None:
    _check_arrangement(hand)


def test_rule_03_cold_cache_gives_the_same_arrangements() -> None:
    """The solver's caches only save work: cleared, every hand gets the same answer. (Its
    speed, about 11 us a hand here, is measured by the bench, never asserted in a test.)"""
    rng = random.Random(7)
    deck = full_deck()
    hands = [rng.sample(deck, 10) for _ in range(500)]
    warm = [best_arrangement(hand) for hand in hands]
    _solve.cache_clear()
    _arranged.cache_clear()
    cold = [best_arrangement(hand) for hand in hands]
    assert [(a.melds, a.deadwood, a.points) for a in warm] == [
        (a.melds, a.deadwood, a.points) for a in cold
    ]


def test_rule_03_deadwood_points_agrees_with_best_arrangement() -> None:
    rng = random.Random(3)
    deck = full_deck()
    for _ in range(200):
        hand = rng.sample(deck, 10)
        assert deadwood_points(hand) == best_arrangement(hand).points


# --------------------------------------------------------------------------- rule 9 (helpers)


def test_rule_09_runs_extend_at_either_end() -> None:
    run = ["S5", "S6", "S7"]
    assert can_lay_off(run, "S4") and can_lay_off(run, "S8")
    assert not can_lay_off(run, "S9") and not can_lay_off(run, "H8")
    assert extend_meld(run, "S4") == ["S4", "S5", "S6", "S7"]
    assert sorted(layoffs([run], ["S9", "S3", "S4", "S8", "H2"])) == ["S3", "S4", "S8", "S9"]


def test_rule_09_sets_complete_to_four_only() -> None:
    assert can_lay_off(["C7", "D7", "H7"], "S7")
    assert not can_lay_off(["C7", "D7", "H7", "S7"], "S7")
    assert layoffs([["C7", "D7", "H7"]], ["S7", "S8"]) == ["S7"]
    with pytest.raises(ValueError):
        extend_meld(["C7", "D7", "H7"], "S8")


def test_rule_09_layoffs_apply_repeatedly() -> None:
    # H4 makes room for H5, which makes room for H6.
    assert layoffs([["H1", "H2", "H3"]], ["H6", "H5", "H4"]) == ["H4", "H5", "H6"]
    assert layoffs([["H1", "H2", "H3"]], ["H6", "H5"]) == []


def test_rule_09_a_card_fitting_a_run_and_a_set_goes_on_the_run() -> None:
    melds = [["C4", "D4", "S4"], ["H1", "H2", "H3"]]
    plan = plan_layoffs(melds, ["H4", "H5"])
    assert plan == [("H4", 1), ("H5", 1)]


def test_rule_09_ace_low_runs_do_not_wrap_for_layoffs() -> None:
    assert layoffs([["S11", "S12", "S13"]], ["S1", "S10"]) == ["S10"]
    assert layoffs([["S1", "S2", "S3"]], ["S13", "S4"]) == ["S4"]


def test_rule_09_best_defence_may_break_own_meld() -> None:
    # Knocker: sets of tens and jacks. Defender: H9 H10 H11 C9 D9. Keeping the run leaves
    # C9 D9 = 18; laying off H10 and H11 leaves the set of nines: 0.
    knocker = [["C10", "D10", "S10"], ["C11", "D11", "S11"]]
    defender = ["H9", "H10", "H11", "C9", "D9"]
    assert best_arrangement(defender).points == 18
    plan, rest = best_defence(knocker, defender)
    assert sorted(plan) == [("H10", 0), ("H11", 1)]
    assert rest.points == 0 and rest.melds == [["C9", "D9", "H9"]]


def test_example_defender_h4_lays_off_on_h1_h2_h3_and_stops_counting() -> None:
    knocker = [["H1", "H2", "H3"]]
    defender = ["H4", "C9", "D13"]
    assert best_arrangement(defender).points == 4 + 9 + 10
    assert layoffs(knocker, defender) == ["H4"]
    plan, rest = best_defence(knocker, defender)
    assert plan == [("H4", 0)] and rest.points == 19


# --------------------------------------------------------------------------- rule 3: every layout


def brute_force_layouts(hand: list[str]) -> set[frozenset[frozenset[str]]]:
    """Every set of disjoint melds of ``hand`` leaving the least deadwood, by brute force."""
    groups = [[c for c in hand if c[0] == s] for s in "CDHS"]
    groups += [[c for c in hand if int(c[1:]) == r] for r in range(1, 14)]
    melds = [
        frozenset(combo)
        for group in groups
        for size in range(3, len(group) + 1)
        for combo in itertools.combinations(group, size)
        if _plain_is_meld(combo)
    ]
    total = sum(_plain_value(c) for c in hand)
    found: dict[int, set[frozenset[frozenset[str]]]] = {}

    def search(start: int, used: frozenset[str], chosen: frozenset[frozenset[str]]) -> None:
        left = total - sum(_plain_value(c) for c in used)
        found.setdefault(left, set()).add(chosen)
        for i in range(start, len(melds)):
            if not melds[i] & used:
                search(i + 1, used | melds[i], chosen | {melds[i]})

    search(0, frozenset(), frozenset())
    return found[min(found)]


def _layouts(hand: list[str]) -> set[frozenset[frozenset[str]]]:
    return {frozenset(frozenset(m) for m in arr.melds) for arr in arrangements(hand)}


def test_rule_03_arrangements_lists_every_least_deadwood_layout() -> None:
    # Run H5-H8 with the eights C8 D8 S8, or run H5-H7 with all four eights: both leave S1 D2.
    hand = ["H5", "H6", "H7", "H8", "C8", "D8", "S8", "S1", "D2"]
    arrs = arrangements(hand)
    assert [a.points for a in arrs] == [3, 3]
    assert _layouts(hand) == {
        frozenset({frozenset({"H5", "H6", "H7", "H8"}), frozenset({"C8", "D8", "S8"})}),
        frozenset({frozenset({"H5", "H6", "H7"}), frozenset({"C8", "D8", "H8", "S8"})}),
    }
    best = best_arrangement(hand)
    assert (arrs[0].melds, arrs[0].deadwood) == (best.melds, best.deadwood)
    for arr in arrs:
        assert sorted(arr.deadwood) == ["D2", "S1"]
        assert sorted([c for m in arr.melds for c in m] + arr.deadwood) == sorted(hand)
    # A run of six may also be laid out as two runs of three.
    six = ["C1", "C2", "C3", "C4", "C5", "C6"]
    assert _layouts(six) == {
        frozenset({frozenset(six)}),
        frozenset({frozenset(six[:3]), frozenset(six[3:])}),
    }
    # Equal deadwood from different cards: the run of clubs or the set of queens.
    faces = ["C10", "C11", "C12", "D12", "S12"]
    assert {tuple(a.deadwood) for a in arrangements(faces)} == {("D12", "S12"), ("C10", "C11")}
    assert all(a.points == 20 for a in arrangements(faces))
    assert arrangements([]) and arrangements([])[0].points == 0
    assert len(arrangements(["C1", "C2", "C3", "C4", "C5", "C6"], cap=1)) == 1


def test_rule_03_arrangements_match_brute_force_on_random_hands() -> None:
    rng = random.Random(99)
    deck = full_deck()
    several = 0
    for i in range(400):
        if i % 2:
            hand = rng.sample(deck, rng.choice([10, 11]))
        else:
            low = rng.randint(1, 10)
            window = [c for c in deck if low <= parse(c)[1] < low + 4]
            hand = rng.sample(window, 10)
        want = brute_force_layouts(hand)
        arrs = arrangements(hand)
        assert _layouts(hand) == want, hand
        assert len(arrs) == len(want)  # no layout twice
        assert {a.points for a in arrs} == {best_arrangement(hand).points}
        several += len(want) > 1
    assert several > 30  # dense hands often tie


def test_arrangement_of_checks_a_chosen_layout() -> None:
    hand = ["H5", "H6", "H7", "H8", "C8", "D8", "S8", "S1", "D2"]
    arr = arrangement_of(hand, [["S8", "C8", "D8", "H8"], ["H7", "H5", "H6"]])
    assert arr.melds == [["C8", "D8", "H8", "S8"], ["H5", "H6", "H7"]]  # usual order
    assert arr.deadwood == ["D2", "S1"] and arr.points == 3
    assert arrangement_of(hand, []).points == sum(deadwood_value(c) for c in hand)
    with pytest.raises(ValueError, match="not a meld"):
        arrangement_of(hand, [["H5", "H6", "H8"]])
    with pytest.raises(ValueError, match="not in the hand"):
        arrangement_of(hand, [["H6", "H7", "H8", "H9"]])
    with pytest.raises(ValueError, match="two melds"):
        arrangement_of(hand, [["H5", "H6", "H7", "H8"], ["C8", "D8", "H8"]])
