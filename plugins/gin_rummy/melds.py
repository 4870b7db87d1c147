"""Gin Rummy card codes, melds, best arrangements and lay-offs (pure functions, no state).

Card codes are a suit letter (``C D H S``) followed by the rank number, ace = 1:
``H1`` is the ace of hearts, ``C10`` the ten of clubs, ``S12`` the queen of spades, ``D13`` the
king of diamonds. Deadwood values: ace 1, 2-10 face value, J/Q/K 10 (rule 1).

A *set* is 3 or 4 cards of one rank; a *run* is 3 or more cards of one suit in sequence, ace low
only, never wrapping (rule 2). A card belongs to at most one meld (rule 3).

Public API
----------
``parse(card) -> (suit, rank)``
    Split a card code, e.g. ``parse("S12") == ("S", 12)``. Raises ``ValueError`` on a bad code.
``is_card(value) -> bool``
    Whether ``value`` is a valid card code.
``deadwood_value(card) -> int``
    The card's deadwood points.
``card_name(card) -> str``
    Plain-English name for messages (:func:`plugins.cards.card_name`, re-exported):
    ``card_name("S12") == "queen of spades"``, ``card_name("H7") == "7 of hearts"``.
``full_deck() -> list[str]``
    The 52 codes in a fixed order (clubs, diamonds, hearts, spades; ace to king).
``sort_cards(cards) -> list[str]``
    Cards in that fixed order.
``is_meld(cards) -> bool``
    Whether the cards form one valid set or run.
``best_arrangement(cards) -> Arrangement``
    The arrangement of ``cards`` (any number, typically 10 or 11) with the **fewest deadwood
    points** (not the most melds). ``Arrangement.melds`` is ``list[list[str]]``,
    ``Arrangement.deadwood`` is ``list[str]``, ``Arrangement.points`` the deadwood total. Ties are
    broken deterministically. Candidate melds (runs per suit, sets per rank) are generated from
    the hand; with few candidates every single meld, pair and triple of disjoint melds is tried
    (11 cards hold at most 3 melds), otherwise a memoised lowest-card-first search picks them.
    Results are cached per hand, so repeated queries (bots, legality checks) are cheap.
``arrangements(cards, cap=256) -> list[Arrangement]``
    Every arrangement of ``cards`` with the least deadwood points (melds differ, deadwood
    points are equal), :func:`best_arrangement`'s own first; at most ``cap`` of them.
``arrangement_of(cards, melds) -> Arrangement``
    The arrangement a player chose: ``melds`` checked (valid, disjoint, all from ``cards``)
    and put in the usual order, the rest deadwood; ``ValueError`` otherwise.
``can_lay_off(meld, card) -> bool`` / ``extend_meld(meld, card) -> list[str]``
    Whether one card extends one meld (a run at either end, a 3-card set to 4), and the result.
``plan_layoffs(melds, cards) -> list[tuple[str, int]]``
    Which of ``cards`` can be laid off onto ``melds`` and onto which meld index, applied
    repeatedly so that a laid-off card can make room for the next (H4 then H5 onto H1 H2 H3).
    It lays off as many cards as possible (a card that fits both a run and a set goes on the
    run, which never loses anything: only that card could complete the set).
``layoffs(melds, cards) -> list[str]``
    The cards of ``plan_layoffs``, in lay-off order.
``best_defence(melds, hand) -> (plan, Arrangement)``
    For a defender: the lay-offs (a subset of what is possible, possibly breaking the
    defender's own melds) that leave the least deadwood, and the arrangement of what is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from plugins.cards import card_name as card_name

SUITS = "CDHS"
RANKS = range(1, 14)

_CODES: tuple[str, ...] = tuple(f"{s}{r}" for s in SUITS for r in RANKS)
_INDEX: dict[str, int] = {code: i for i, code in enumerate(_CODES)}
_VALUE: tuple[int, ...] = tuple(min(r, 10) for _s in SUITS for r in RANKS)
_SUIT_MASK = (1 << 13) - 1


@dataclass
class Arrangement:
    """Melds and deadwood of a hand; ``points`` is the deadwood total."""

    melds: list[list[str]] = field(default_factory=list)
    deadwood: list[str] = field(default_factory=list)
    points: int = 0


def is_card(value: object) -> bool:
    """Whether ``value`` is a valid card code such as ``"H1"`` or ``"S12"``."""
    return isinstance(value, str) and value in _INDEX


def card_index(card: str) -> int:
    """The card's position 0..51 in :func:`full_deck` order; ``ValueError`` on a bad code."""
    try:
        return _INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None


def parse(card: str) -> tuple[str, int]:
    """Split a card code into ``(suit, rank)``, e.g. ``("S", 12)`` for the queen of spades."""
    i = card_index(card)
    return SUITS[i // 13], i % 13 + 1


def deadwood_value(card: str) -> int:
    """Deadwood points of one card: ace 1, 2-10 face value, J/Q/K 10."""
    try:
        return _DEADWOOD[card]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None


_DEADWOOD: dict[str, int] = dict(zip(_CODES, _VALUE, strict=True))


def full_deck() -> list[str]:
    """All 52 card codes in a fixed order: clubs, diamonds, hearts, spades; ace to king."""
    return list(_CODES)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """The cards in :func:`full_deck` order (suit, then rank)."""
    return sorted(cards, key=card_index)


_BIT: dict[str, int] = {code: 1 << i for i, code in enumerate(_CODES)}


def _suit_values() -> tuple[int, ...]:
    """Deadwood total of every 13-bit pattern of one suit."""
    table = [0] * (1 << 13)
    for p in range(1, 1 << 13):
        low = p & -p
        table[p] = table[p ^ low] + _VALUE[low.bit_length() - 1]
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
        out.append(_CODES[low.bit_length() - 1])
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
                value += _VALUE[b]
                if b - a >= 2:
                    runs.append((run, value))
    return tuple(runs)


def _rank_sets() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For rank r and 4-bit suit pattern p (index ``r * 16 + p``): the sets, as (mask, value)."""
    table: list[tuple[tuple[int, int], ...]] = []
    for r in range(13):
        for p in range(16):
            bits = [1 << (13 * s + r) for s in range(4) if p >> s & 1]
            v = _VALUE[r]
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


def best_arrangement(cards: Iterable[str]) -> Arrangement:
    """The arrangement of ``cards`` with the fewest deadwood points.

    Melds are listed by their lowest card; cards inside a meld and the deadwood are in
    :func:`full_deck` order. Raises ``ValueError`` for a bad or repeated card code.
    """
    melds, deadwood, points = _arranged(_to_mask(cards))
    return Arrangement(melds=[list(m) for m in melds], deadwood=list(deadwood), points=points)


@lru_cache(maxsize=1 << 14)
def _arranged(mask: int) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], int]:
    """:func:`best_arrangement` as card codes, cached (immutable, copied by the caller)."""
    chosen, points = _solve(mask)
    melded = 0
    for m in chosen:
        melded |= m
    ordered = sorted(chosen, key=lambda m: m & -m)  # by lowest card
    melds = tuple(tuple(_mask_cards(m)) for m in ordered)
    return melds, tuple(_mask_cards(mask & ~melded)), points


def deadwood_points(cards: Iterable[str]) -> int:
    """Deadwood points of the best arrangement of ``cards``."""
    return _solve(_to_mask(cards))[1]


def _as_arrangement(mask: int, chosen: Iterable[int]) -> Arrangement:
    ordered = sorted(chosen, key=lambda m: m & -m)  # by lowest card
    melded = 0
    for m in ordered:
        melded |= m
    rest = mask & ~melded
    return Arrangement(
        melds=[_mask_cards(m) for m in ordered],
        deadwood=_mask_cards(rest),
        points=_mask_value(rest),
    )


def arrangements(cards: Iterable[str], cap: int = 256) -> list[Arrangement]:
    """Every arrangement of ``cards`` with the least deadwood points, at most ``cap`` of them.

    The first is :func:`best_arrangement`'s; the others tie with it on points but meld other
    cards or split them differently (a set of three fours instead of a 4 in a run, a run of
    six as two runs of three). Raises ``ValueError`` for a bad or repeated card code.
    """
    mask = _to_mask(cards)
    default_melds, points = _solve(mask)
    want = _mask_value(mask) - points
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
    return [_as_arrangement(mask, packing) for packing in found]


def arrangement_of(cards: Iterable[str], melds: Sequence[Sequence[str]]) -> Arrangement:
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
    return _as_arrangement(mask, chosen)


def is_meld(cards: Sequence[str]) -> bool:
    """Whether ``cards`` form one valid meld: a set of 3-4 of a rank or a run of 3+ in a suit."""
    if len(cards) < 3:
        return False
    try:
        parsed = [parse(c) for c in cards]
    except ValueError:
        return False
    if len(set(cards)) != len(cards):
        return False
    ranks = {r for _, r in parsed}
    suits = {s for s, _ in parsed}
    if len(ranks) == 1:
        return len(cards) <= 4
    if len(suits) == 1:
        rs = sorted(r for _, r in parsed)
        return rs == list(range(rs[0], rs[0] + len(rs)))
    return False


def _meld_shape(meld: Sequence[str]) -> tuple[str, str, int, int]:
    """``("set", "", rank, size)`` or ``("run", suit, low rank, high rank)``."""
    return _shape_of(tuple(meld))


@lru_cache(maxsize=1 << 14)
def _shape_of(meld: tuple[str, ...]) -> tuple[str, str, int, int]:
    if not is_meld(meld):
        raise ValueError(f"not a meld: {list(meld)}")
    parsed = [parse(c) for c in meld]
    ranks = [r for _, r in parsed]
    if len(set(ranks)) == 1:
        return "set", "", ranks[0], len(meld)
    return "run", parsed[0][0], min(ranks), max(ranks)


def can_lay_off(meld: Sequence[str], card: str) -> bool:
    """Whether ``card`` extends ``meld``: a run at either end, or a 3-card set to 4."""
    suit, rank = parse(card)
    kind, msuit, a, b = _meld_shape(meld)
    if kind == "set":
        return rank == a and b < 4 and card not in meld
    return suit == msuit and (rank == a - 1 or rank == b + 1)


def extend_meld(meld: Sequence[str], card: str) -> list[str]:
    """``meld`` with ``card`` laid off onto it, in deck order; ``ValueError`` if it doesn't fit."""
    if not can_lay_off(meld, card):
        raise ValueError(f"{card} does not fit on {list(meld)}")
    return sort_cards([*meld, card])


def plan_layoffs(melds: Sequence[Sequence[str]], cards: Iterable[str]) -> list[tuple[str, int]]:
    """The most cards of ``cards`` that can be laid off onto ``melds``, repeatedly.

    Returns ``(card, meld index)`` pairs in an order in which they can be laid off one by one.
    """
    current = [list(m) for m in melds]
    shapes = [_meld_shape(m) for m in current]
    remaining = sort_cards(cards)
    plan: list[tuple[str, int]] = []
    changed = True
    while changed and remaining:
        changed = False
        for card in list(remaining):
            fits = [j for j, m in enumerate(current) if can_lay_off(m, card)]
            if not fits:
                continue
            runs = [j for j in fits if shapes[j][0] == "run"]
            j = (runs or fits)[0]
            current[j] = extend_meld(current[j], card)
            shapes[j] = _meld_shape(current[j])
            remaining.remove(card)
            plan.append((card, j))
            changed = True
    return plan


def layoffs(melds: list[list[str]], cards: Iterable[str]) -> list[str]:
    """Which of ``cards`` can be laid off onto ``melds`` (applied repeatedly), in lay-off order."""
    return [card for card, _ in plan_layoffs(melds, cards)]


def best_defence(
    melds: Sequence[Sequence[str]], hand: Iterable[str]
) -> tuple[list[tuple[str, int]], Arrangement]:
    """The defender's best lay-offs against ``melds`` and the arrangement of what remains.

    Tries every subset of the cards that could be laid off (the defender may break one of their
    own melds to lay off cards); keeps the one leaving the fewest deadwood points, preferring
    fewer lay-offs on a tie.
    """
    cards = sort_cards(hand)
    possible = plan_layoffs(melds, cards)
    order = [c for c, _ in possible]
    best_plan: list[tuple[str, int]] = []
    best = best_arrangement(cards)
    if not possible:
        return best_plan, best
    n = len(order)
    for bits in sorted(range(1, 1 << n), key=lambda b: b.bit_count()):
        chosen = [order[i] for i in range(n) if bits >> i & 1]
        plan = plan_layoffs(melds, chosen)
        if len(plan) != len(chosen):
            continue  # not layable without a card left out of this subset
        gone = set(chosen)
        rest = best_arrangement(c for c in cards if c not in gone)
        if rest.points < best.points:
            best_plan, best = plan, rest
    return best_plan, best
