"""The one meld library of every rummy-family game: checking sets and runs, laying off, and the
best melding (Rummy and Pennies), plus Gin Rummy's fewest-deadwood search on one deck.

Pure functions over the card codes of :mod:`plugins.cards` (``H1`` ace of hearts, ``S12`` queen
of spades, ``J1``/``J2`` jokers). Hands may hold several identical codes (multi-deck games), so
every function treats its cards as a multiset. Rummy, Pennies and Gin Rummy use this module.

Vocabulary
----------
*Set*: ``min_len``.. ``max_len`` cards of one rank (Rummy: 3-4; Pennies: 3 or more, pass
``max_len=None``). *Run*: ``min_len`` or more cards of one suit in sequence, ace low only
(A-2-3 yes, Q-K-A no), never wrapping (K-A-2 no). Runs hold natural cards only.

*Wild cards* are given as a predicate ``wild(card) -> bool`` (``None``: no wild cards; a joker is
then never allowed). In a set, a wild card stands in for the set's rank, with two rules: a card
whose rank is the set's rank is natural there even if its rank is wild (three aces are a set of
aces in a round where aces are wild), and a set holds at least one natural card. Two identical
natural cards (same rank and suit) never share a meld; identical wild cards may.

A set made only of wild cards of different ranks (a 2, an ace and a joker when 2s and aces are
wild) could stand for either rank: pass ``rank=`` to say which one; without it a check succeeds
when any rank works (:func:`set_ranks` lists them).

Public API
----------
``check_set(cards, *, wild=None, rank=None, min_len=3, max_len=4) -> str | None``
    ``None`` when the cards form a set, otherwise the reason in plain words.
``check_run(cards, *, min_len=3) -> str | None``
    The same for a run ("Q-K-A is not a run: the ace is low only").
``check_meld(cards, *, wild=None, rank=None, sets=True, runs=True, min_len=3, max_set=4)``
    Either kind; the reason returned is the one that fits what the cards look like.
``set_ranks(cards, *, wild=None, min_len=3, max_len=4) -> list[int]``
    Every rank the cards form a valid set of (empty when they are no set).
``meld_kind(cards, ...) -> "set" | "run" | None`` and ``arrange(cards, ...) -> tuple``
    What a valid meld is, and its cards in display order (runs low to high; sets by suit with
    wild cards last).
``lay_off_problem(meld, card, ...) -> str | None``, ``can_lay_off(...) -> bool``,
``lay_off(meld, card, ...) -> tuple``
    Whether one card can go onto a meld on the table (a run grows at either end, a set up to
    its maximum) and the meld that results (``ValueError`` with the reason if it can't).
``plan_layoffs(melds, cards, ...) -> list[(card, meld index)]``
    Greedy lay-offs, repeated so that a laid-off card can make room for the next (H4 then H5
    onto H1-H2-H3), highest-value cards first.
``best_melds(cards, *, wild=None, sets=True, runs=True, min_len=3, max_set=4, value=points,
fewest_cards=False) -> Arrangement``
    The best way to meld a hand: the most points melded (fewest points left), then the most
    cards melded; with ``fewest_cards`` the fewest cards left first (can this hand go out?).
    Exact search (memoised, lowest card first). Wild cards are used as fillers in sets only.
``can_go_out(cards, *, table=(), discard=True, ...) -> bool``
    Whether ``cards`` can all be melded or laid off onto ``table``, keeping at most one card to
    discard when ``discard``. The lay-offs are greedy.

Gin Rummy (one standard deck, distinct cards, no wild cards; sets of 3-4, runs of 3+)
--------------------------------------------------------------------------------------
``best_arrangement(cards) -> Deadwood`` and ``deadwood_points(cards) -> int``
    The arrangement with the **fewest deadwood points** (as :func:`best_melds` counts them;
    ties broken Gin's own way, which the game shows). ``Deadwood.melds`` is
    ``list[list[str]]`` (by lowest card, cards in deck order), ``Deadwood.deadwood`` the rest.
    With few candidate melds every single meld, pair and triple is tried (11 cards hold at most
    3 melds), otherwise a memoised lowest-card-first search on bit masks; cached per hand.
``arrangements(cards, cap=256) -> list[Deadwood]``
    Every arrangement tied on the fewest deadwood points, :func:`best_arrangement`'s first.
``arrangement_of(cards, melds) -> Deadwood``
    The arrangement a player chose, checked (valid melds, disjoint, from ``cards``).
``is_meld(cards) -> bool``, ``extend_meld(meld, card) -> list``
    :func:`check_meld` and :func:`lay_off` with their defaults, as a yes/no and a list.
``plan_most_layoffs(melds, cards)``, ``layoffs(melds, cards)``
    Lay off **as many cards as possible** (deck order, a card fitting a run and a set goes on
    the run), where :func:`plan_layoffs` lays off the most valuable first.
``best_defence(melds, hand) -> (plan, Deadwood)``
    The defender's lay-offs (possibly breaking their own melds) leaving the least deadwood.
``parse(card)``, ``deadwood_value(card)``
    A standard card's ``(suit, rank)`` and points, ``ValueError`` on a bad code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

from msgspec import Struct

from plugins.cards import JOKERS, RANK_NAMES, STANDARD, card_name, is_card, points, rank, suit

Wild = Callable[[str], bool]
Value = Callable[[str], int]

RUN = "run"
SET = "set"
_SHORT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_SUIT_ORDER = {"C": 0, "D": 1, "H": 2, "S": 3, "J": 4}


class Arrangement(Struct, frozen=True):
    """A way to meld a hand: ``melds`` (display order), ``ranks`` (the rank each set stands for;
    0 for a run), the cards ``left`` over and their ``points``."""

    melds: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]
    left: tuple[str, ...]
    points: int

    @property
    def melded(self) -> int:
        """How many cards the melds hold."""
        return sum(len(m) for m in self.melds)


# ------------------------------------------------------------------------------------ words


def short_rank(r: int) -> str:
    """``"A"``, ``"2"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``."""
    return _SHORT.get(r, str(r))


def rank_plural(r: int) -> str:
    """``"aces"``, ``"5s"``, ``"kings"``."""
    return f"{RANK_NAMES.get(r, str(r))}s"


def _a_rank(r: int) -> str:
    """``"an ace"``, ``"an 8"``, ``"a king"``, ``"a 5"``."""
    word = RANK_NAMES.get(r, str(r))
    return f"an {word}" if r in (1, 8) else f"a {word}"


def _plural_card(card: str) -> str:
    """``"kings of hearts"`` for ``H13``."""
    return card_name(card).replace(" of ", "s of ", 1)


def run_label(ranks: Iterable[int]) -> str:
    """Ranks joined by dashes, in the order given: ``"Q-K-A"``."""
    return "-".join(short_rank(r) for r in ranks)


def _wild_of(wild: Wild | None) -> Wild:
    return wild if wild is not None else _never


def _never(card: str) -> bool:
    return False


def _bad_code(cards: Sequence[str]) -> str | None:
    for c in cards:
        if not is_card(c, jokers=True):
            return f"{c!r} is not a card"
    return None


def _duplicate(cards: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for c in cards:
        if c in seen:
            return c
        seen.add(c)
    return None


def _duplicate_reason(card: str) -> str:
    return f"two identical natural cards (two {_plural_card(card)}) can't share a meld"


# -------------------------------------------------------------------------------------- sets


def _set_problem(cards: Sequence[str], r: int, wild: Wild, wilds_given: bool) -> str | None:
    """Why ``cards`` are not a set of rank ``r`` (size already checked)."""
    naturals = [c for c in cards if c not in JOKERS and rank(c) == r]
    for c in cards:
        if c in naturals or wild(c):
            continue
        if c in JOKERS:
            return f"the {card_name(c)} is not wild here"
        if wilds_given:
            return f"the {card_name(c)} is neither {_a_rank(r)} nor wild"
        return f"a set is cards of one rank: the {card_name(c)} is not {_a_rank(r)}"
    if not naturals:
        return "a meld needs at least one natural card"
    twice = _duplicate(naturals)
    if twice is not None:
        return _duplicate_reason(twice)
    return None


def _size_problem(n: int, min_len: int, max_len: int | None, what: str) -> str | None:
    if n < min_len:
        return f"a meld needs at least {min_len} cards"
    if max_len is not None and n > max_len:
        return f"a {what} has at most {max_len} cards"
    return None


def _candidate_ranks(cards: Sequence[str]) -> list[int]:
    """Ranks present among the non-joker cards, most common first (ties: first given first)."""
    tally: dict[int, int] = {}
    for c in cards:
        if c not in JOKERS:
            tally[rank(c)] = tally.get(rank(c), 0) + 1
    return sorted(tally, key=lambda r: -tally[r])


def set_ranks(
    cards: Sequence[str],
    *,
    wild: Wild | None = None,
    min_len: int = 3,
    max_len: int | None = 4,
) -> list[int]:
    """Every rank ``cards`` form a valid set of, lowest first (empty: not a set)."""
    if _bad_code(cards) or _size_problem(len(cards), min_len, max_len, SET):
        return []
    w = _wild_of(wild)
    return sorted(
        r for r in _candidate_ranks(cards) if _set_problem(cards, r, w, wild is not None) is None
    )


def check_set(
    cards: Sequence[str],
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    min_len: int = 3,
    max_len: int | None = 4,
) -> str | None:
    """``None`` if ``cards`` are a set (of ``rank`` when given), else the reason."""
    problem = _bad_code(cards) or _size_problem(len(cards), min_len, max_len, SET)
    if problem:
        return problem
    w = _wild_of(wild)
    if rank is not None:
        return _set_problem(cards, rank, w, wild is not None)
    candidates = _candidate_ranks(cards)
    if not candidates:
        return "a meld needs at least one natural card"
    problems = [_set_problem(cards, r, w, wild is not None) for r in candidates]
    if None in problems:
        return None
    # Explain against the rank the player most likely meant: the commonest non-wild rank.
    tame = _candidate_ranks([c for c in cards if not w(c)])
    meant = tame[0] if tame else candidates[0]
    return problems[candidates.index(meant)]


# -------------------------------------------------------------------------------------- runs


def _cyclic_order(ranks: list[int]) -> list[int] | None:
    """The ranks as one block of consecutive ranks if the ace could follow the king (Q-K-A,
    K-A-2), else ``None``."""
    present = set(ranks)
    if len(present) != len(ranks) or 1 not in present or 13 not in present:
        return None
    for start in present:
        block = [(start - 1 + i) % 13 + 1 for i in range(len(ranks))]
        if set(block) == present:
            return block
    return None


def check_run(cards: Sequence[str], *, min_len: int = 3) -> str | None:
    """``None`` if ``cards`` are a run (one suit in sequence, ace low only), else the reason."""
    problem = _bad_code(cards) or _size_problem(len(cards), min_len, None, RUN)
    if problem:
        return problem
    jokers = [c for c in cards if c in JOKERS]
    if jokers:
        return f"a run holds natural cards only, not the {card_name(jokers[0])}"
    ranks = sorted(rank(c) for c in cards)
    if len({suit(c) for c in cards}) > 1:
        return f"{run_label(ranks)} is not a run: a run is one suit"
    twice = _duplicate(cards)
    if twice is not None:
        return _duplicate_reason(twice)
    if all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False)):
        return None
    cyclic = _cyclic_order(ranks)
    if cyclic is not None:
        if cyclic[-1] == 1:
            return f"{run_label(cyclic)} is not a run: the ace is low only"
        return f"{run_label(cyclic)} is not a run: the ace is low only and runs don't wrap"
    if len(set(ranks)) < len(ranks):
        return f"{run_label(ranks)} is not a run: a run has each rank once"
    missing = [r for r in range(ranks[0], ranks[-1] + 1) if r not in ranks]
    gap = ", ".join(short_rank(r) for r in missing)
    return f"{run_label(ranks)} is not a run: the cards must be in sequence ({gap} missing)"


# -------------------------------------------------------------------------------- either kind


def check_meld(
    cards: Sequence[str],
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> str | None:
    """``None`` if ``cards`` are a set or a run (as allowed), else the most fitting reason."""
    problem = _bad_code(cards) or _size_problem(len(cards), min_len, None, "meld")
    if problem:
        return problem
    set_reason = (
        check_set(cards, wild=wild, rank=rank, min_len=min_len, max_len=max_set) if sets else None
    )
    if sets and set_reason is None:
        return None
    run_reason = check_run(cards, min_len=min_len) if runs and rank is None else None
    if runs and rank is None and run_reason is None:
        return None
    if set_reason is None or run_reason is None:
        return set_reason or run_reason or "runs can't stand for a named rank"
    w = _wild_of(wild)
    tame = [rank_of(c) for c in cards if not w(c) and c not in JOKERS]
    if len(set(tame)) == len(tame) > 1:
        return run_reason
    return set_reason


def rank_of(card: str) -> int:
    """The card's rank (ace 1, joker 0): :func:`plugins.cards.rank`, which ``rank=`` keywords
    shadow here."""
    return _ORDER[card][1]


def meld_kind(
    cards: Sequence[str],
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> str | None:
    """``"set"``, ``"run"`` or ``None`` (not a meld)."""
    if sets and check_set(cards, wild=wild, rank=rank, min_len=min_len, max_len=max_set) is None:
        return SET
    if runs and rank is None and check_run(cards, min_len=min_len) is None:
        return RUN
    return None


def arrange(
    cards: Iterable[str], *, wild: Wild | None = None, rank: int | None = None
) -> tuple[str, ...]:
    """A meld's cards in display order: a run low to high; a set's natural cards by suit, then
    its wild cards. Cards that are not a meld come back sorted by suit and rank."""
    cards = list(cards)
    if cards and check_run(cards, min_len=1) is None:
        return tuple(sorted(cards, key=rank_of))
    w = _wild_of(wild)
    ranks = [rank] if rank is not None else _candidate_ranks([c for c in cards if not w(c)])
    r = ranks[0] if ranks else None
    natural = [c for c in cards if c not in JOKERS and rank_of(c) == r]
    rest = [c for c in cards if c not in natural]
    return tuple(sorted(natural, key=_order) + sorted(rest, key=_order))


_ORDER = {c: (_SUIT_ORDER[suit(c)], rank(c)) for c in (*STANDARD, *JOKERS)}


def _order(card: str) -> tuple[int, int]:
    """Deck order: suit (clubs, diamonds, hearts, spades, jokers), then rank."""
    return _ORDER[card]


# ---------------------------------------------------------------------------------- lay-offs


def lay_off_problem(
    meld: Sequence[str],
    card: str,
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> str | None:
    """``None`` if ``card`` can be laid off onto ``meld``, else the reason in plain words."""
    if not is_card(card, jokers=True):
        return f"{card!r} is not a card"
    if wild is None and rank is None and _plain_fits(meld, card, sets, runs, min_len, max_set):
        return None
    kind = meld_kind(
        meld, wild=wild, rank=rank, sets=sets, runs=runs, min_len=min_len, max_set=max_set
    )
    if kind is None:
        return "that is not a meld"
    grown = [*meld, card]
    name = card_name(card)
    if kind == RUN:
        problem = check_run(grown, min_len=min_len)
        if problem is None:
            return None
        ranks = sorted(rank_of(c) for c in meld)
        where = f"{run_label(ranks)} of {suit_word(meld[0])}"
        if card not in JOKERS and suit(card) == suit(meld[0]) and "ace is low" in problem:
            return f"the {name} doesn't extend {where}: the ace is low only"
        return f"the {name} doesn't extend {where}: a run grows at either end by one suit"
    options = (
        [rank] if rank is not None else set_ranks(meld, wild=wild, min_len=min_len, max_len=max_set)
    )
    problems = [
        check_set(grown, wild=wild, rank=r, min_len=min_len, max_len=None)
        or _size_problem(len(grown), min_len, max_set, SET)
        for r in options
    ]
    if None in problems:
        return None
    r = options[0]
    if card in JOKERS or rank_of(card) != r and not _wild_of(wild)(card):
        what = f"neither {_a_rank(r)} nor wild" if wild is not None else f"not {_a_rank(r)}"
        return f"the {name} is {what}, so it doesn't fit the set of {rank_plural(r)}"
    return f"the {name} doesn't fit the set of {rank_plural(r)}: {problems[0]}"


@lru_cache(maxsize=1 << 12)
def _plain_shape(
    meld: tuple[str, ...], sets: bool, runs: bool, min_len: int, max_set: int | None
) -> tuple[str, str, int, int] | None:
    """A meld without wild cards as (kind, suit, low, high): a set's rank is low and high."""
    kind = meld_kind(meld, sets=sets, runs=runs, min_len=min_len, max_set=max_set)
    if kind is None:
        return None
    ranks = [rank_of(c) for c in meld]
    return kind, suit(meld[0]), min(ranks), max(ranks)


def _plain_fits(
    meld: Sequence[str], card: str, sets: bool, runs: bool, min_len: int, max_set: int | None
) -> bool:
    """The quick lay-off test when there are no wild cards (same answer as the full check)."""
    shape = _plain_shape(tuple(meld), sets, runs, min_len, max_set)
    if shape is None or card in JOKERS:
        return False
    kind, s, lo, hi = shape
    r = rank_of(card)
    if kind == SET:
        fits = r == lo and (max_set is None or len(meld) < max_set)
        return fits and all(c[0] != card[0] for c in meld)
    return card[0] == s and (r == lo - 1 or r == hi + 1)


def suit_word(card: str) -> str:
    """``"hearts"`` for ``H5``."""
    return card_name(card).split(" of ")[-1]


def can_lay_off(
    meld: Sequence[str],
    card: str,
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> bool:
    """Whether ``card`` can be laid off onto ``meld``."""
    if wild is None and rank is None:
        return is_card(card) and _plain_fits(meld, card, sets, runs, min_len, max_set)
    problem = lay_off_problem(
        meld, card, wild=wild, rank=rank, sets=sets, runs=runs, min_len=min_len, max_set=max_set
    )
    return problem is None


def lay_off(
    meld: Sequence[str],
    card: str,
    *,
    wild: Wild | None = None,
    rank: int | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> tuple[str, ...]:
    """``meld`` with ``card`` laid off, in display order; ``ValueError`` (the reason) if not."""
    problem = lay_off_problem(
        meld, card, wild=wild, rank=rank, sets=sets, runs=runs, min_len=min_len, max_set=max_set
    )
    if problem is not None:
        raise ValueError(problem)
    if (
        rank is None
        and meld_kind(meld, wild=wild, sets=sets, runs=runs, min_len=min_len, max_set=max_set)
        == SET
    ):
        ranks = set_ranks(meld, wild=wild, min_len=min_len, max_len=max_set)
        fits = [
            r
            for r in ranks
            if check_set([*meld, card], wild=wild, rank=r, min_len=min_len, max_len=max_set) is None
        ]
        rank = fits[0]
    return arrange([*meld, card], wild=wild, rank=rank)


def plan_layoffs(
    melds: Sequence[Sequence[str]],
    cards: Iterable[str],
    *,
    wild: Wild | None = None,
    ranks: Sequence[int | None] | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
    value: Value = points,
) -> list[tuple[str, int]]:
    """Which of ``cards`` can be laid off onto ``melds`` and where, as ``(card, meld index)``
    pairs in an order that works one by one. Greedy: highest-value cards first, each onto the
    first meld it fits (``ranks[i]``, when given, is the rank set ``i`` stands for)."""
    current = [list(m) for m in melds]
    named = list(ranks) if ranks is not None else [None] * len(current)
    remaining = sorted(cards, key=lambda c: (-value(c), _order(c)))
    plan: list[tuple[str, int]] = []
    changed = True
    while changed and remaining:
        changed = False
        for card in list(remaining):
            for i, meld in enumerate(current):
                if wild is None and named[i] is None:
                    if not _plain_fits(meld, card, sets, runs, min_len, max_set):
                        continue
                    # Sets sort by suit, runs by rank: both are deck order within a meld.
                    current[i] = sorted([*meld, card], key=_order)
                elif can_lay_off(
                    meld,
                    card,
                    wild=wild,
                    rank=named[i],
                    sets=sets,
                    runs=runs,
                    min_len=min_len,
                    max_set=max_set,
                ):
                    current[i] = list(
                        lay_off(
                            meld,
                            card,
                            wild=wild,
                            rank=named[i],
                            sets=sets,
                            runs=runs,
                            min_len=min_len,
                            max_set=max_set,
                        )
                    )
                else:
                    continue
                remaining.remove(card)
                plan.append((card, i))
                changed = True
                break
    return plan


# ------------------------------------------------------------------------------------ search


def best_melds(
    cards: Iterable[str],
    *,
    wild: Wild | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
    value: Value = points,
    fewest_cards: bool = False,
) -> Arrangement:
    """The best way to meld ``cards`` (see the module docstring); ``ValueError`` on a bad code.

    Ties are broken deterministically (the search's first best)."""
    hand = list(cards)
    problem = _bad_code(hand)
    if problem:
        raise ValueError(problem)
    if (
        wild is None
        and value is points
        and len(set(hand)) == len(hand)
        and not any(c in JOKERS for c in hand)
    ):
        mask = 0
        for c in hand:
            mask |= _BIT[c]
        return _best_one_deck(mask, sets, runs, min_len, max_set, fewest_cards)
    w = _wild_of(wild)
    # Natural cards first (by suit, then rank, so a run starts at its first card), wild last:
    # a wild card is only ever taken as a filler by a set found before it.
    key = tuple(sorted(hand, key=lambda c: (w(c), _order(c))))
    return _best(key, wild, sets, runs, min_len, max_set, value, fewest_cards)


_BIT = {c: 1 << i for i, c in enumerate(STANDARD)}  # suit by suit, ace to king
_BIT_POINTS = tuple(points(c) for c in STANDARD)


@lru_cache(maxsize=1 << 15)
def _best_one_deck(
    mask: int, sets: bool, runs: bool, min_len: int, max_set: int | None, fewest_cards: bool
) -> Arrangement:
    """:func:`best_melds` for distinct natural cards scored with :func:`points`, on bit masks
    (bit ``13 * suit + rank - 1``): the same search, lowest card first, several times faster."""
    by_low: dict[int, list[tuple[int, tuple[int, int], int]]] = {}

    def add(meld: int, r: int) -> None:
        v, n, rest = 0, 0, meld
        while rest:
            low = rest & -rest
            v += _BIT_POINTS[low.bit_length() - 1]
            n += 1
            rest ^= low
        by_low.setdefault(meld & -meld, []).append((meld, (n, v) if fewest_cards else (v, n), r))

    for su in range(4) if runs else ():
        bits = mask >> (13 * su) & 0x1FFF
        if min_len >= 3 and not bits & bits >> 1 & bits >> 2:
            continue  # no three in a row in this suit
        for lo in range(13):
            hi = lo
            while hi < 13 and bits >> hi & 1:
                hi += 1
                if hi - lo >= min_len:
                    add(((1 << (hi - lo)) - 1) << (13 * su + lo), 0)
    c, d, h, sp = (mask >> (13 * su) & 0x1FFF for su in range(4))
    triples = (c & d & (h | sp)) | (h & sp & (c | d)) if min_len >= 3 else c | d | h | sp
    if not sets:
        triples = 0
    for r in range(13):
        if not triples >> r & 1:
            continue  # fewer than three cards of this rank
        present = [1 << (13 * su + r) for su in range(4) if mask >> (13 * su + r) & 1]
        top = len(present) if max_set is None else min(len(present), max_set)
        for size in range(min_len, top + 1):
            for combo in combinations(present, size):
                add(sum(combo), r + 1)
    memo: dict[int, tuple[tuple[int, int], int, int]] = {}

    def go(rem: int) -> tuple[int, int]:
        if not rem:
            return (0, 0)
        hit = memo.get(rem)
        if hit is not None:
            return hit[0]
        low = rem & -rem
        best, choice, chosen_rank = go(rem ^ low), 0, 0
        for meld, gain, r in by_low.get(low, ()):
            if meld & rem == meld:
                sub = go(rem ^ meld)
                total = (sub[0] + gain[0], sub[1] + gain[1])
                if total > best:
                    best, choice, chosen_rank = total, meld, r
        memo[rem] = (best, choice, chosen_rank)
        return best

    go(mask)
    melds: list[tuple[str, ...]] = []
    ranks: list[int] = []
    left: list[str] = []
    rem = mask
    while rem:
        _, choice, r = memo[rem]
        if choice:
            melds.append(arrange([STANDARD[i] for i in range(52) if choice >> i & 1]))
            ranks.append(r)
            rem ^= choice
        else:
            low = rem & -rem
            left.append(STANDARD[low.bit_length() - 1])
            rem ^= low
    return Arrangement(
        melds=tuple(melds),
        ranks=tuple(ranks),
        left=tuple(left),
        points=sum(points(c) for c in left),
    )


Plan = tuple[tuple[tuple[str, ...], int], ...]


@lru_cache(maxsize=1 << 15)
def _best(
    hand: tuple[str, ...],
    wild: Wild | None,
    sets: bool,
    runs: bool,
    min_len: int,
    max_set: int | None,
    value: Value,
    fewest_cards: bool,
) -> Arrangement:
    w = _wild_of(wild)
    memo: dict[tuple[str, ...], tuple[tuple[int, int], Plan]] = {}

    def score(meld: tuple[str, ...]) -> tuple[int, int]:
        v = sum(value(c) for c in meld)
        return (len(meld), v) if fewest_cards else (v, len(meld))

    def go(rem: tuple[str, ...]) -> tuple[tuple[int, int], Plan]:
        if not rem:
            return (0, 0), ()
        hit = memo.get(rem)
        if hit is not None:
            return hit
        first, rest = rem[0], rem[1:]
        best = go(rest)  # the first card is left over
        for meld, r in _melds_with(first, rest, w, sets, runs, min_len, max_set):
            left = _without(rest, meld[1:])
            sub, plan = go(left)
            gain = score(meld)
            total = (sub[0] + gain[0], sub[1] + gain[1])
            if total > best[0]:
                best = total, ((meld, r), *plan)
        memo[rem] = best
        return best

    _, plan = go(hand)
    used: list[str] = []
    melds: list[tuple[str, ...]] = []
    ranks: list[int] = []
    for meld, r in plan:
        used.extend(meld)
        melds.append(arrange(meld, wild=wild, rank=r if r else None))
        ranks.append(r)
    left = _without(hand, used)
    return Arrangement(
        melds=tuple(melds),
        ranks=tuple(ranks),
        left=tuple(sorted(left, key=_order)),
        points=sum(value(c) for c in left),
    )


def _without(cards: tuple[str, ...], gone: Iterable[str]) -> tuple[str, ...]:
    """``cards`` minus one copy of each of ``gone`` (all present), order kept."""
    out = list(cards)
    for c in gone:
        out.remove(c)
    return tuple(out)


def _melds_with(
    first: str,
    rest: tuple[str, ...],
    w: Wild,
    sets: bool,
    runs: bool,
    min_len: int,
    max_set: int | None,
) -> list[tuple[tuple[str, ...], int]]:
    """Every meld holding ``first`` plus cards of ``rest`` (``first`` leads each tuple), with
    the set's rank (0 for a run)."""
    out: list[tuple[tuple[str, ...], int]] = []
    if first in JOKERS:
        return out
    r, s = rank(first), suit(first)
    available = set(rest)
    if runs and not w(first):
        run = [first]
        k = r + 1
        while k <= 13 and f"{s}{k}" in available and not w(f"{s}{k}"):
            run.append(f"{s}{k}")
            if len(run) >= min_len:
                out.append((tuple(run), 0))
            k += 1
    if not sets:
        return out
    others = [f"{t}{r}" for t in "CDHS" if t != s and f"{t}{r}" in available]
    fillers: dict[str, int] = {}
    for c in rest:
        if w(c) and (c in JOKERS or rank(c) != r):
            fillers[c] = fillers.get(c, 0) + 1
    filler_choices = _multisets(sorted(fillers.items(), key=lambda kv: _order(kv[0])))
    for mask in range(1 << len(others)):
        naturals = [first] + [o for i, o in enumerate(others) if mask >> i & 1]
        for extra in filler_choices:
            size = len(naturals) + len(extra)
            if size < min_len or (max_set is not None and size > max_set):
                continue
            out.append(((*naturals, *extra), r))
    return out


def _multisets(items: list[tuple[str, int]]) -> list[tuple[str, ...]]:
    """Every sub-multiset of ``items`` (code, count), smallest first."""
    out: list[tuple[str, ...]] = [()]
    for code, count in items:
        out = [(*m, *([code] * k)) for m in out for k in range(count + 1)]
    return sorted(out, key=len)


def can_go_out(
    cards: Iterable[str],
    *,
    table: Sequence[Sequence[str]] = (),
    discard: bool = True,
    wild: Wild | None = None,
    ranks: Sequence[int | None] | None = None,
    sets: bool = True,
    runs: bool = True,
    min_len: int = 3,
    max_set: int | None = 4,
) -> bool:
    """Whether every card can be melded or laid off onto ``table`` (and onto the new melds),
    keeping at most one card to discard when ``discard``."""
    hand = list(cards)
    arr = best_melds(
        hand, wild=wild, sets=sets, runs=runs, min_len=min_len, max_set=max_set, fewest_cards=True
    )
    allowed = 1 if discard else 0
    if len(arr.left) <= allowed:
        return True
    melds = [*table, *arr.melds]
    named = [*(ranks if ranks is not None else [None] * len(table)), *arr.ranks]
    named = [r if r else None for r in named]
    plan = plan_layoffs(
        melds,
        arr.left,
        wild=wild,
        ranks=named,
        sets=sets,
        runs=runs,
        min_len=min_len,
        max_set=max_set,
    )
    return len(arr.left) - len(plan) <= allowed


# --------------------------------------------------- one deck, fewest deadwood (Gin Rummy)
#
# Gin Rummy scores what is left, and shows the knocker's melds for the other player to lay off
# onto: which of several equally good arrangements is chosen is part of the game, so this search
# keeps its own order (fewest deadwood points, ties broken as listed under "Public API") on bit
# masks of one standard deck (bit ``13 * suit + rank - 1``, :data:`_BIT`). Sets are 3-4 cards,
# runs 3 or more, no wild cards: :func:`check_meld`'s defaults, so the meld and lay-off checks
# are the ones above.


@dataclass
class Deadwood:
    """Melds and deadwood of a hand; ``points`` is the deadwood total."""

    melds: list[list[str]] = field(default_factory=list)
    deadwood: list[str] = field(default_factory=list)
    points: int = 0


_INDEX: dict[str, int] = {code: i for i, code in enumerate(STANDARD)}
_SUIT_MASK = (1 << 13) - 1


def parse(card: str) -> tuple[str, int]:
    """A standard card as ``(suit, rank)``, e.g. ``("S", 12)``; ``ValueError`` on a bad code."""
    try:
        i = _INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None
    return STANDARD[i][0], i % 13 + 1


def deadwood_value(card: str) -> int:
    """Deadwood points of one standard card (:func:`plugins.cards.points`); ``ValueError`` on
    a bad code."""
    try:
        return _BIT_POINTS[_INDEX[card]]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None


def is_meld(cards: Sequence[str]) -> bool:
    """Whether ``cards`` form one meld: a set of 3-4 of a rank or a run of 3+ in a suit."""
    return check_meld(cards) is None


def extend_meld(meld: Sequence[str], card: str) -> list[str]:
    """``meld`` (no wild cards) with ``card`` laid off onto it, in deck order; ``ValueError``
    if it doesn't fit."""
    if not can_lay_off(meld, card):
        raise ValueError(f"{card} does not fit on {list(meld)}")
    return sorted([*meld, card], key=_order)


def _suit_values() -> tuple[int, ...]:
    """Deadwood total of every 13-bit pattern of one suit."""
    table = [0] * (1 << 13)
    for p in range(1, 1 << 13):
        low = p & -p
        table[p] = table[p ^ low] + _BIT_POINTS[low.bit_length() - 1]
    return tuple(table)


_SUIT_VALUE = _suit_values()


def _to_mask(cards: Iterable[str]) -> int:
    mask = 0
    count = 0
    bits = _BIT
    for c in cards:
        try:
            mask |= bits[c]
        except (KeyError, TypeError):
            raise ValueError(f"not a card code: {c!r}") from None
        count += 1
    if mask.bit_count() != count:
        raise ValueError("a card appears twice")
    return mask


def _mask_cards(mask: int) -> list[str]:
    out = []
    while mask:
        low = mask & -mask
        out.append(STANDARD[low.bit_length() - 1])
        mask ^= low
    return out


def _mask_value(mask: int) -> int:
    return (
        _SUIT_VALUE[mask & _SUIT_MASK]
        + _SUIT_VALUE[(mask >> 13) & _SUIT_MASK]
        + _SUIT_VALUE[(mask >> 26) & _SUIT_MASK]
        + _SUIT_VALUE[mask >> 39]
    )


@lru_cache(maxsize=1 << 13)
def _suit_runs(bits: int) -> tuple[tuple[int, int], ...]:
    """Every run (length >= 3) inside one suit's 13-bit pattern: (pattern, value)."""
    runs: list[tuple[int, int]] = []
    r = 0
    while r < 13:
        if not (bits >> r) & 1:
            r += 1
            continue
        start = r
        while r < 13 and (bits >> r) & 1:
            r += 1
        for a in range(start, r - 2):
            run = 0
            value = 0
            for b in range(a, r):
                run |= 1 << b
                value += _BIT_POINTS[b]
                if b - a >= 2:
                    runs.append((run, value))
    return tuple(runs)


def _rank_sets() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For rank r and 4-bit suit pattern p (index ``r * 16 + p``): the sets, as (mask, value)."""
    table: list[tuple[tuple[int, int], ...]] = []
    for r in range(13):
        for p in range(16):
            bits = [1 << (13 * s + r) for s in range(4) if p >> s & 1]
            v = _BIT_POINTS[r]
            sets: list[tuple[int, int]] = []
            if len(bits) == 4:
                full = bits[0] | bits[1] | bits[2] | bits[3]
                sets.append((full, 4 * v))
                sets.extend((full ^ b, 3 * v) for b in bits)
            elif len(bits) == 3:
                sets.append((bits[0] | bits[1] | bits[2], 3 * v))
            table.append(tuple(sets))
    return tuple(table)


_RANK_SETS = _rank_sets()


def _candidate_melds(mask: int) -> list[tuple[int, int]]:
    """Every set and run contained in ``mask``, as ``(meld mask, meld value)``."""
    melds: list[tuple[int, int]] = []
    suits = [(mask >> (13 * s)) & _SUIT_MASK for s in range(4)]
    for s, bits in enumerate(suits):
        if bits & (bits >> 1) & (bits >> 2):  # three in a row somewhere
            shift = 13 * s
            melds.extend((run << shift, v) for run, v in _suit_runs(bits))
    c, d, h, sp = suits
    three = (c & d & h) | (c & d & sp) | (c & h & sp) | (d & h & sp)
    while three:
        low = three & -three
        r = low.bit_length() - 1
        pattern = (c >> r & 1) | (d >> r & 1) << 1 | (h >> r & 1) << 2 | (sp >> r & 1) << 3
        melds.extend(_RANK_SETS[r * 16 + pattern])
        three ^= low
    return melds


_FEW_MELDS = 12


def _solve_few(melds: list[tuple[int, int]], total: int) -> tuple[tuple[int, ...], int]:
    """Best packing when there are few candidate melds: 11 cards hold at most 3 disjoint
    melds, so try every single meld, pair and triple directly."""
    best = 0
    chosen: tuple[int, ...] = ()
    n = len(melds)
    for i in range(n):
        m1, v1 = melds[i]
        if v1 > best:
            best, chosen = v1, (m1,)
        for j in range(i + 1, n):
            m2, v2 = melds[j]
            if m1 & m2:
                continue
            both = m1 | m2
            if v1 + v2 > best:
                best, chosen = v1 + v2, (m1, m2)
            for k in range(j + 1, n):
                m3, v3 = melds[k]
                if not both & m3 and v1 + v2 + v3 > best:
                    best, chosen = v1 + v2 + v3, (m1, m2, m3)
    return chosen, total - best


@lru_cache(maxsize=1 << 16)
def _solve(mask: int) -> tuple[tuple[int, ...], int]:
    """Best arrangement of the hand ``mask``: (meld masks, deadwood points)."""
    total = _mask_value(mask)
    melds = _candidate_melds(mask)
    if not melds:
        return (), total
    if len(melds) <= _FEW_MELDS and mask.bit_count() <= 11:
        return _solve_few(melds, total)
    by_card: dict[int, list[tuple[int, int]]] = {}
    meldable = 0
    for m, v in melds:
        meldable |= m
        rest = m
        while rest:
            low = rest & -rest
            by_card.setdefault(low, []).append((m, v))
            rest ^= low
    memo: dict[int, tuple[int, int]] = {}

    def go(rem: int) -> int:
        """Maximum melded value within ``rem``; records the chosen meld per state."""
        if not rem:
            return 0
        hit = memo.get(rem)
        if hit is not None:
            return hit[0]
        low = rem & -rem
        best = go(rem ^ low)  # the lowest card stays deadwood
        choice = 0
        for m, v in by_card[low]:
            if m & rem == m:
                got = v + go(rem ^ m)
                if got > best:
                    best, choice = got, m
        memo[rem] = (best, choice)
        return best

    melded = go(meldable)
    chosen: list[int] = []
    rem = meldable
    while rem:
        _, choice = memo[rem]
        if choice:
            chosen.append(choice)
            rem ^= choice
        else:
            rem ^= rem & -rem
    return tuple(chosen), total - melded


def best_arrangement(cards: Iterable[str]) -> Deadwood:
    """The arrangement of ``cards`` (distinct standard cards) with the fewest deadwood points.

    Melds are listed by their lowest card; cards inside a meld and the deadwood are in deck
    order. Raises ``ValueError`` for a bad or repeated card code.
    """
    melds, deadwood, points_left = _arranged(_to_mask(cards))
    return Deadwood(melds=[list(m) for m in melds], deadwood=list(deadwood), points=points_left)


@lru_cache(maxsize=1 << 14)
def _arranged(mask: int) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], int]:
    """:func:`best_arrangement` as card codes, cached (immutable, copied by the caller)."""
    chosen, points_left = _solve(mask)
    melded = 0
    for m in chosen:
        melded |= m
    ordered = sorted(chosen, key=lambda m: m & -m)  # by lowest card
    melds = tuple(tuple(_mask_cards(m)) for m in ordered)
    return melds, tuple(_mask_cards(mask & ~melded)), points_left


def deadwood_points(cards: Iterable[str]) -> int:
    """Deadwood points of the best arrangement of ``cards``."""
    return _solve(_to_mask(cards))[1]


def _as_deadwood(mask: int, chosen: Iterable[int]) -> Deadwood:
    ordered = sorted(chosen, key=lambda m: m & -m)  # by lowest card
    melded = 0
    for m in ordered:
        melded |= m
    rest = mask & ~melded
    return Deadwood(
        melds=[_mask_cards(m) for m in ordered],
        deadwood=_mask_cards(rest),
        points=_mask_value(rest),
    )


def arrangements(cards: Iterable[str], cap: int = 256) -> list[Deadwood]:
    """Every arrangement of ``cards`` with the least deadwood points, at most ``cap`` of them.

    The first is :func:`best_arrangement`'s; the others tie with it on points but meld other
    cards or split them differently (a set of three fours instead of a 4 in a run, a run of
    six as two runs of three). Raises ``ValueError`` for a bad or repeated card code.
    """
    mask = _to_mask(cards)
    default_melds, points_left = _solve(mask)
    want = _mask_value(mask) - points_left
    by_card: dict[int, list[tuple[int, int]]] = {}
    meldable = 0
    for m, v in _candidate_melds(mask):
        meldable |= m
        low = m & -m
        by_card.setdefault(low, []).append((m, v))
    found: list[tuple[int, ...]] = []

    def go(rem: int, need: int, chosen: tuple[int, ...]) -> None:
        """Packings of melds from ``rem`` worth exactly ``need`` more, lowest card first."""
        if len(found) >= cap:
            return
        if need == 0:
            found.append(chosen)
            return
        if not rem or _mask_value(rem) < need:
            return
        low = rem & -rem
        for m, v in by_card.get(low, ()):
            if m & rem == m and v <= need:
                go(rem ^ m, need - v, (*chosen, m))
        go(rem ^ low, need, chosen)  # the lowest card stays deadwood (or is melded no more)

    go(meldable, want, ())
    default = frozenset(default_melds)
    found.sort(key=lambda packing: frozenset(packing) != default)  # stable: default first
    if not found or frozenset(found[0]) != default:
        found.insert(0, default_melds)
        found = found[:cap]
    return [_as_deadwood(mask, packing) for packing in found]


def arrangement_of(cards: Iterable[str], melds: Sequence[Sequence[str]]) -> Deadwood:
    """The arrangement of ``cards`` a player chose: each of ``melds`` must be a valid meld of
    cards from ``cards``, no card in two melds; everything else is deadwood. Melds come back in
    the usual order (by lowest card, cards in deck order). ``ValueError`` says what is wrong."""
    mask = _to_mask(cards)
    used = 0
    chosen: list[int] = []
    for meld in melds:
        if not is_meld(meld):
            raise ValueError(f"not a meld: {list(meld)}")
        m = _to_mask(meld)
        if m & ~mask:
            raise ValueError(f"not in the hand: {_mask_cards(m & ~mask)}")
        if m & used:
            raise ValueError(f"in two melds: {_mask_cards(m & used)}")
        used |= m
        chosen.append(m)
    return _as_deadwood(mask, chosen)


def plan_most_layoffs(
    melds: Sequence[Sequence[str]], cards: Iterable[str]
) -> list[tuple[str, int]]:
    """The most cards of ``cards`` that can be laid off onto ``melds`` (no wild cards),
    repeatedly, as ``(card, meld index)`` pairs in an order that works one by one.

    Unlike :func:`plan_layoffs` (highest value first) it takes the cards in deck order and
    lays off as many as possible: a card that fits both a run and a set goes on the run, which
    never loses anything (only that card could complete the set). ``ValueError`` if one of
    ``melds`` is not a meld."""
    current = [list(m) for m in melds]
    for m in current:
        if _kind(m) is None:
            raise ValueError(f"not a meld: {m}")
    remaining = sorted(cards, key=_deck_index)
    plan: list[tuple[str, int]] = []
    changed = True
    while changed and remaining:
        changed = False
        for card in list(remaining):
            fits = [j for j, m in enumerate(current) if can_lay_off(m, card)]
            if not fits:
                continue
            runs = [j for j in fits if _kind(current[j]) == RUN]
            j = (runs or fits)[0]
            current[j] = sorted([*current[j], card], key=_order)
            remaining.remove(card)
            plan.append((card, j))
            changed = True
    return plan


def _kind(meld: Sequence[str]) -> str | None:
    """``"set"``, ``"run"`` or ``None`` for a meld without wild cards (cached)."""
    shape = _plain_shape(tuple(meld), True, True, 3, 4)
    return shape[0] if shape is not None else None


def _deck_index(card: str) -> int:
    """The card's place 0..51 in deck order; ``ValueError`` on a bad code."""
    try:
        return _INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None


def layoffs(melds: Sequence[Sequence[str]], cards: Iterable[str]) -> list[str]:
    """The cards of :func:`plan_most_layoffs`, in lay-off order."""
    return [card for card, _ in plan_most_layoffs(melds, cards)]


def best_defence(
    melds: Sequence[Sequence[str]], hand: Iterable[str]
) -> tuple[list[tuple[str, int]], Deadwood]:
    """The defender's best lay-offs against ``melds`` and the arrangement of what remains.

    Tries every subset of the cards that could be laid off (the defender may break one of their
    own melds to lay off cards); keeps the one leaving the fewest deadwood points, preferring
    fewer lay-offs on a tie.
    """
    cards = sorted(hand, key=_deck_index)
    possible = plan_most_layoffs(melds, cards)
    order = [c for c, _ in possible]
    best_plan: list[tuple[str, int]] = []
    best = best_arrangement(cards)
    if not possible:
        return best_plan, best
    n = len(order)
    for bits in sorted(range(1, 1 << n), key=lambda b: b.bit_count()):
        chosen = [order[i] for i in range(n) if bits >> i & 1]
        plan = plan_most_layoffs(melds, chosen)
        if len(plan) != len(chosen):
            continue  # not layable without a card left out of this subset
        gone = set(chosen)
        rest = best_arrangement(c for c in cards if c not in gone)
        if rest.points < best.points:
            best_plan, best = plan, rest
    return best_plan, best
