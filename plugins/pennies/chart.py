"""Pennies' round chart: the first-meld requirement and the wild cards of each of the 7 rounds.

The source (PlayingCards.io's "Ten Pennies") does not publish its chart, so :data:`DEFAULT_CHART`
is the reconstruction in ``shared/rules/pennies.md``; a room may replace it through the
``chart`` option. A chart is plain data - a list of 7 rows, one per round::

    {"first_meld": [3, 3], "wild": ["joker"]}

``first_meld`` lists the sizes of the sets the first meld of the round must contain (a set of
``k`` is met by ``k`` or more cards), ``wild`` names the wild cards: ``"joker"``, ``"ace"``,
``"2"`` .. ``"10"``, ``"jack"``, ``"queen"``, ``"king"``. :func:`check_chart` is the option's
validator; :func:`wild_ranks` and :func:`requirement_text` turn a row into what the engine and
the table show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ROUNDS = 7
MIN_SET = 3
MAX_FIRST_MELD_CARDS = 11  # what a freshly dealt hand holds

# Wild card names -> card rank (plugins.cards.rank: 0 for a joker, ace 1 .. king 13).
WILD_NAMES: dict[str, int] = {
    "joker": 0,
    "ace": 1,
    **{str(r): r for r in range(2, 11)},
    "jack": 11,
    "queen": 12,
    "king": 13,
}
_PLURALS = {0: "jokers", 1: "aces", 11: "jacks", 12: "queens", 13: "kings"}
_COUNT_WORDS = {1: "one", 2: "two", 3: "three"}

DEFAULT_CHART: tuple[dict[str, Any], ...] = (
    {"first_meld": [3, 3], "wild": ["joker"]},
    {"first_meld": [4], "wild": ["joker"]},
    {"first_meld": [4, 4], "wild": ["joker", "2"]},
    {"first_meld": [5], "wild": ["joker", "2"]},
    {"first_meld": [5, 5], "wild": ["joker", "2", "ace"]},
    {"first_meld": [6], "wild": ["joker", "2", "ace"]},
    {"first_meld": [7], "wild": ["joker", "2", "ace"]},
)


def default_chart() -> list[dict[str, Any]]:
    """A fresh copy of the reconstructed chart (safe to modify)."""
    return [{"first_meld": list(r["first_meld"]), "wild": list(r["wild"])} for r in DEFAULT_CHART]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_chart(chart: Any) -> str | None:
    """``None`` when ``chart`` is a well-formed round chart, otherwise the reason in a sentence."""
    if not isinstance(chart, list | tuple):
        return f"the chart must be a list of {ROUNDS} rounds."
    if len(chart) != ROUNDS:
        return f"the chart must have exactly {ROUNDS} rounds, not {len(chart)}."
    for number, row in enumerate(chart, start=1):
        problem = _check_row(row)
        if problem is not None:
            return f"round {number}: {problem}"
    return None


def _check_row(row: Any) -> str | None:
    if not isinstance(row, dict):
        return 'each round must be written like {"first_meld": [3, 3], "wild": ["joker"]}.'
    extra = sorted(set(row) - {"first_meld", "wild"})
    if extra:
        return f"unknown key {extra[0]!r} (a round has only first_meld and wild)."
    sizes = row.get("first_meld")
    if not isinstance(sizes, list | tuple) or not sizes:
        return "first_meld must list the sizes of the required sets, e.g. [3, 3]."
    for size in sizes:
        if not _is_int(size) or size < MIN_SET:
            return f"every required set needs at least {MIN_SET} cards (got {size!r})."
    if sum(sizes) > MAX_FIRST_MELD_CARDS:
        return (
            f"the first meld may ask for at most {MAX_FIRST_MELD_CARDS} cards in all "
            f"(a hand is dealt {MAX_FIRST_MELD_CARDS}), not {sum(sizes)}."
        )
    wild = row.get("wild")
    if not isinstance(wild, list | tuple):
        return 'wild must be a list such as ["joker", "2"] (it may be empty).'
    for name in wild:
        if name not in WILD_NAMES:
            allowed = ", ".join(WILD_NAMES)
            return f"{name!r} is not a card that can be wild; use {allowed}."
    if len(set(wild)) != len(wild):
        return "a wild card is named twice."
    return None


def wild_ranks(wild: Sequence[str]) -> frozenset[int]:
    """The card ranks (0 = joker) that are wild for a row's ``wild`` names."""
    return frozenset(WILD_NAMES[name] for name in wild)


def plural(rank: int) -> str:
    """``"jokers"``, ``"aces"``, ``"2s"``, ``"queens"``."""
    return _PLURALS.get(rank, f"{rank}s")


def and_list(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def sets_text(sizes: Sequence[int]) -> str:
    """``"two sets of 4"``, ``"one set of 5"``, ``"one set of 3 and one set of 4"``."""
    groups: list[str] = []
    for size in sorted(set(sizes)):
        n = sum(1 for s in sizes if s == size)
        word = _COUNT_WORDS.get(n, str(n))
        groups.append(f"{word} set{'s' if n > 1 else ''} of {size}")
    return and_list(groups)


def wild_text(wild: Sequence[str]) -> str:
    """``"jokers and 2s"``; ``"none"`` for an empty list."""
    if not wild:
        return "none"
    return and_list([plural(WILD_NAMES[name]) for name in wild])


def requirement_text(round_no: int, sizes: Sequence[int], wild: Sequence[str]) -> str:
    """``"Round 3: two sets of 4; wild: jokers and 2s"``."""
    return f"Round {round_no}: {sets_text(sizes)}; wild: {wild_text(wild)}"
