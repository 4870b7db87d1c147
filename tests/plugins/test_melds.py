"""The shared meld module: set and run checks with their reasons, lay-offs, and the meld search
(checked against brute force on small hands, one deck and Pennies-style wild multi-deck)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest

from plugins.cards import deck, points
from plugins.melds import (
    arrange,
    best_arrangement,
    best_melds,
    can_go_out,
    can_lay_off,
    check_meld,
    check_run,
    check_set,
    deadwood_points,
    extend_meld,
    is_meld,
    lay_off,
    lay_off_problem,
    meld_kind,
    plan_layoffs,
    plan_most_layoffs,
    set_ranks,
)


def jokers_and_twos(card: str) -> bool:
    """Pennies round 3: jokers and 2s are wild."""
    return card in ("J1", "J2") or card[1:] == "2"


def jokers_twos_aces(card: str) -> bool:
    """Pennies round 5: jokers, 2s and aces are wild."""
    return card in ("J1", "J2") or card[1:] in ("1", "2")


def pennies_value(card: str) -> int:
    if card in ("J1", "J2"):
        return 50
    r = int(card[1:])
    return 20 if r in (1, 2) else 10 if r >= 10 else 5


# --------------------------------------------------------------------------------- runs


def test_run_ace_low_is_a_run() -> None:
    assert check_run(["H1", "H2", "H3"]) is None
    assert check_run(["S3", "S1", "S2", "S4"]) is None  # order given does not matter


def test_run_queen_king_ace_refused_ace_low_only() -> None:
    assert check_run(["S12", "S13", "S1"]) == "Q-K-A is not a run: the ace is low only"


def test_run_no_wrapping() -> None:
    reason = check_run(["D13", "D1", "D2"])
    assert reason is not None and reason.startswith("K-A-2 is not a run")
    assert "don't wrap" in reason


def test_run_one_suit() -> None:
    assert check_run(["H5", "C6", "H7"]) == "5-6-7 is not a run: a run is one suit"


def test_run_in_sequence() -> None:
    assert check_run(["C5", "C6", "C8"]) == (
        "5-6-8 is not a run: the cards must be in sequence (7 missing)"
    )


def test_run_too_short_and_no_jokers() -> None:
    assert check_run(["C5", "C6"]) == "a meld needs at least 3 cards"
    assert check_run(["C5", "C6", "J1"]) == "a run holds natural cards only, not the red joker"


def test_run_identical_cards() -> None:
    assert check_run(["C5", "C5", "C6"]) == (
        "two identical natural cards (two 5s of clubs) can't share a meld"
    )


# --------------------------------------------------------------------------------- sets


def test_set_three_and_four_of_a_rank() -> None:
    assert check_set(["H7", "C7", "S7"]) is None
    assert check_set(["H7", "C7", "S7", "D7"]) is None
    assert check_set(["H7", "C7", "S7", "D7", "H7"]) == "a set has at most 4 cards"


def test_set_one_rank_reason_names_the_odd_card() -> None:
    assert check_set(["H7", "C7", "S8"]) == "a set is cards of one rank: the 8 of spades is not a 7"


def test_set_jokers_not_wild_without_predicate() -> None:
    assert check_set(["H7", "C7", "J2"]) == "the black joker is not wild here"


def test_set_with_wild_cards_pennies_style() -> None:
    big = {"wild": jokers_and_twos, "max_len": None}
    assert check_set(["H9", "J1", "C2"], **big) is None  # one natural, two wild
    assert check_set(["H9", "S9", "D9", "C9", "J1", "J2", "H2"], **big) is None  # a set of 7
    assert check_set(["J1", "J2", "J1"], **big) == "a meld needs at least one natural card"
    assert check_set(["H13", "H13", "J1"], **big) == (
        "two identical natural cards (two kings of hearts) can't share a meld"
    )
    assert check_set(["H9", "J1", "J1"], **big) is None  # identical wild cards may share
    assert check_set(["H9", "C8", "J1"], **big) == "the 8 of clubs is neither a 9 nor wild"


def test_card_of_wild_rank_is_natural_in_its_own_set() -> None:
    big = {"wild": jokers_twos_aces, "max_len": None}
    assert check_set(["H1", "C1", "S1"], **big) is None  # three aces in round 5
    assert set_ranks(["H1", "C1", "S1"], **big) == [1]
    # Two aces of hearts are identical naturals in a set of aces...
    assert check_set(["H1", "H1", "C1"], rank=1, **big) is not None
    # ...but both may be wild in a set of kings.
    assert check_set(["H13", "H1", "H1"], **big) is None


def test_ambiguous_wild_set_needs_a_named_rank() -> None:
    big = {"wild": jokers_twos_aces, "max_len": None}
    cards = ["H2", "C1", "J1"]
    assert set_ranks(cards, **big) == [1, 2]
    assert check_set(cards, **big) is None
    assert check_set(cards, rank=2, **big) is None
    assert check_set(cards, rank=5, **big) == "a meld needs at least one natural card"
    assert arrange(cards, wild=jokers_twos_aces, rank=2) == ("H2", "C1", "J1")
    assert arrange(cards, wild=jokers_twos_aces, rank=1) == ("C1", "H2", "J1")


# ------------------------------------------------------------------------------ either kind


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        (["S12", "S13", "S1"], "Q-K-A is not a run: the ace is low only"),
        (["H5", "H6", "C7"], "5-6-7 is not a run: a run is one suit"),
        (["H5", "H6"], "a meld needs at least 3 cards"),
        (["H5", "C5", "C6"], "a set is cards of one rank: the 6 of clubs is not a 5"),
        (["H5", "X9", "C5"], "'X9' is not a card"),
    ],
)
def test_check_meld_reasons(cards: list[str], reason: str) -> None:
    assert check_meld(cards) == reason


def test_meld_kind_and_arrange() -> None:
    assert meld_kind(["H4", "H2", "H3"]) == "run"
    assert meld_kind(["H4", "C4", "S4"]) == "set"
    assert meld_kind(["H4", "C4", "S5"]) is None
    assert meld_kind(["H4", "C4", "J1"], wild=jokers_and_twos, runs=False) == "set"
    assert arrange(["H4", "H2", "H3"]) == ("H2", "H3", "H4")
    assert arrange(["S4", "J1", "C4"], wild=jokers_and_twos) == ("C4", "S4", "J1")


# --------------------------------------------------------------------------------- lay-offs


def test_lay_off_run_extends_at_either_end() -> None:
    assert lay_off(["H4", "H5", "H6"], "H3") == ("H3", "H4", "H5", "H6")
    assert lay_off(["H4", "H5", "H6"], "H7") == ("H4", "H5", "H6", "H7")
    assert lay_off(["H2", "H3", "H4"], "H1") == ("H1", "H2", "H3", "H4")
    assert lay_off_problem(["H4", "H5", "H6"], "H8") == (
        "the 8 of hearts doesn't extend 4-5-6 of hearts: a run grows at either end by one suit"
    )
    assert lay_off_problem(["H11", "H12", "H13"], "H1") == (
        "the ace of hearts doesn't extend J-Q-K of hearts: the ace is low only"
    )
    assert not can_lay_off(["H4", "H5", "H6"], "C7")


def test_lay_off_set_up_to_its_maximum() -> None:
    assert lay_off(["H9", "C9", "S9"], "D9") == ("C9", "D9", "H9", "S9")
    assert lay_off_problem(["H9", "C9", "S9"], "D8") == (
        "the 8 of diamonds is not a 9, so it doesn't fit the set of 9s"
    )
    assert lay_off_problem(["H9", "C9", "S9", "D9"], "D9") is not None
    with pytest.raises(ValueError, match="doesn't fit the set of 9s"):
        lay_off(["H9", "C9", "S9", "D9"], "D9")


def test_lay_off_pennies_fourth_ace_and_wilds() -> None:
    rules = {"wild": jokers_twos_aces, "runs": False, "max_set": None}
    assert can_lay_off(["H1", "C1", "S1"], "D1", **rules)  # the source's own example
    assert can_lay_off(["H1", "C1", "S1"], "J2", **rules)
    assert not can_lay_off(["H1", "C1", "S1"], "H1", **rules)  # identical natural
    assert can_lay_off(["H7", "C7", "J1"], "H2", **rules)
    assert not can_lay_off(["H7", "C7", "J1"], "H8", **rules)
    assert can_lay_off(["H2", "C1", "J1"], "S2", rank=2, **rules)
    assert not can_lay_off(["H2", "C1", "J1"], "H2", rank=2, **rules)
    assert can_lay_off(["H2", "C1", "J1"], "H2", rank=1, **rules)


def test_plan_layoffs_repeats_so_cards_make_room() -> None:
    plan = plan_layoffs([["H1", "H2", "H3"], ["C9", "D9", "S9"]], ["H5", "H4", "H9", "C2"])
    assert sorted(plan) == [("H4", 0), ("H5", 0), ("H9", 1)]
    assert plan.index(("H4", 0)) < plan.index(("H5", 0))


# ----------------------------------------------------------------------------------- search


def test_best_melds_prefers_points_over_card_count() -> None:
    # Either the run 8-9-10 of clubs (27 points) or the set of 8s (24); the set also frees nothing.
    arr = best_melds(["C8", "C9", "C10", "D8", "H8", "S2"])
    assert arr.melds == (("C8", "C9", "C10"),)
    assert arr.left == ("D8", "H8", "S2") and arr.points == 18


def test_best_melds_fewest_cards_for_going_out() -> None:
    # A run of three plus a set of three beat the run of four (which strands two 4s).
    arr = best_melds(["H1", "H2", "H3", "H4", "C4", "D4"], fewest_cards=True)
    assert arr.left == () and set(arr.melds) == {("H1", "H2", "H3"), ("C4", "D4", "H4")}
    rng = random.Random(5)
    for _ in range(200):
        hand = rng.sample(deck(), 11)
        assert len(best_melds(hand, fewest_cards=True).left) <= len(best_melds(hand).left)


def test_best_melds_wild_sets_of_any_size() -> None:
    # The set of 9s takes both wild cards (130 points); C5 and C6 can't use a lone wild.
    hand = ["H9", "S9", "J1", "H2", "C5", "C6"]
    arr = best_melds(hand, wild=jokers_and_twos, runs=False, max_set=None, value=pennies_value)
    assert arr.melds == (("H9", "S9", "H2", "J1"),) and arr.ranks == (9,)
    assert arr.left == ("C5", "C6") and arr.points == 10


def test_can_go_out_with_table_layoffs() -> None:
    hand = ["H4", "H5", "C9", "D9", "S9", "D12"]
    assert not can_go_out(hand)
    assert can_go_out(hand, table=[["H1", "H2", "H3"]])  # H4, H5 laid off; D12 discarded
    assert not can_go_out(hand, table=[["H1", "H2", "H3"]], discard=False)
    assert can_go_out(["C9", "D9", "S9"], discard=False)


def test_best_melds_rejects_bad_codes() -> None:
    with pytest.raises(ValueError, match="'Z3' is not a card"):
        best_melds(["H1", "Z3"])


# ------------------------------------------------------------------------ brute-force oracle


def brute_best(
    hand: Sequence[str],
    *,
    wild: object = None,
    runs: bool = True,
    max_set: int | None = 4,
    value: object = points,
) -> tuple[int, int]:
    """(most value melded, most cards melded at that value) by trying every meld subset."""
    val = value if callable(value) else points
    candidates: list[tuple[int, ...]] = []
    n = len(hand)
    for size in range(3, n + 1):
        for idx in combinations(range(n), size):
            cards = [hand[i] for i in idx]
            tame = [c for c in cards if not (callable(wild) and wild(c))]
            if len({c[1:] for c in tame}) > 1 and len({c[0] for c in cards}) > 1:
                continue  # neither one rank nor one suit: no meld by definition
            if check_meld(cards, wild=wild, runs=runs, max_set=max_set) is None:  # type: ignore[arg-type]
                candidates.append(idx)
    by_low: dict[int, list[tuple[int, int, int]]] = {}
    for idx in candidates:
        m = sum(1 << i for i in idx)
        by_low.setdefault(m & -m, []).append((m, sum(val(hand[i]) for i in idx), len(idx)))
    best: dict[int, tuple[int, int]] = {0: (0, 0)}
    # Every subset of cards, smallest first: the best packing of melds inside it.
    for rem in range(1, 1 << n):
        low = rem & -rem
        top = best[rem ^ low]
        for m, v, k in by_low.get(low, ()):
            if m & rem == m:
                sub = best[rem ^ m]
                top = max(top, (sub[0] + v, sub[1] + k))
        best[rem] = top
    return best[(1 << n) - 1]


def check_arrangement(
    hand: list[str], arr_melds: tuple[tuple[str, ...], ...], left: tuple[str, ...]
) -> None:
    assert sorted([c for m in arr_melds for c in m] + list(left)) == sorted(hand)


def test_search_matches_brute_force_one_deck() -> None:
    rng = random.Random(7)
    cards = deck()
    for _ in range(150):
        hand = rng.sample(cards, 8)
        # Bias towards meldable hands: add neighbours of a random card.
        base = rng.choice(hand)
        for extra in (f"{base[0]}{int(base[1:]) % 13 + 1}", f"C{base[1:]}", f"S{base[1:]}"):
            if extra not in hand:
                hand.append(extra)
        arr = best_melds(hand)
        check_arrangement(hand, arr.melds, arr.left)
        for m in arr.melds:
            assert check_meld(m) is None
        melded_value = sum(points(c) for m in arr.melds for c in m)
        assert (melded_value, arr.melded) == brute_best(hand)
        assert arr.points == sum(points(c) for c in arr.left)


def test_gin_and_the_general_search_agree_on_one_deck() -> None:
    """The two searches of the one library: Gin's fewest deadwood is the general search's
    fewest points left, its melds are melds by the shared check, and a Gin lay-off is the
    shared lay-off."""
    rng = random.Random(21)
    cards = deck()
    for _ in range(400):
        hand = rng.sample(cards, rng.choice((7, 10, 11)))
        gin = best_arrangement(hand)
        assert gin.points == best_melds(hand).points == deadwood_points(hand)
        assert all(check_meld(m) is None and is_meld(m) for m in gin.melds)
        for meld in gin.melds:
            for card in cards:
                if card not in meld and can_lay_off(meld, card):
                    assert extend_meld(meld, card) == list(lay_off(meld, card))
        kept = [c for c in cards if c not in hand][:10]
        plan = plan_most_layoffs(gin.melds, kept)
        assert len(plan) >= len(plan_layoffs(gin.melds, kept))  # as many as possible


def test_search_matches_brute_force_wild_multideck() -> None:
    rng = random.Random(11)
    cards = [c for c in deck(2, 4) if c[1:] in ("1", "2", "5", "6") or c[0] == "J"]
    for _ in range(120):
        hand = rng.sample(cards, 9)
        arr = best_melds(hand, wild=jokers_twos_aces, runs=False, max_set=None, value=pennies_value)
        check_arrangement(hand, arr.melds, arr.left)
        for m, r in zip(arr.melds, arr.ranks, strict=True):
            assert check_set(m, wild=jokers_twos_aces, rank=r, max_len=None) is None
        melded_value = sum(pennies_value(c) for m in arr.melds for c in m)
        expected = brute_best(
            hand, wild=jokers_twos_aces, runs=False, max_set=None, value=pennies_value
        )
        assert (melded_value, arr.melded) == expected


def test_one_deck_fast_search_agrees_with_the_general_search() -> None:
    rng = random.Random(13)
    for _ in range(150):
        hand = rng.sample(deck(), rng.choice((7, 10, 11)))
        for fewest in (False, True):
            fast = best_melds(hand, fewest_cards=fewest)
            general = best_melds(hand, value=lambda c: points(c), fewest_cards=fewest)
            assert (fast.points, len(fast.left)) == (general.points, len(general.left))
            check_arrangement(hand, fast.melds, fast.left)
            assert all(check_meld(m) is None for m in fast.melds)
