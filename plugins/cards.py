"""The card library every game shares: card codes, names, decks, sorting.

Card codes are a suit letter (``C D H S``) and the rank number, ace = 1: ``H1`` is the ace of
hearts, ``S12`` the queen of spades, ``D13`` the king of diamonds. Jokers are ``J1`` (red) and
``J2`` (black). Games played with several decks simply repeat codes: two ``H5`` in one game are
two identical cards, and engines treat hands and piles as multisets of codes.

Ranks compare ace-low here (1..13); a game where the ace ranks high (Spades) says so itself
with :func:`rank_high`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from plugins.base import Rejection

SUITS = "CDHS"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_NAMES = {1: "ace", 11: "jack", 12: "queen", 13: "king"}
JOKERS = ("J1", "J2")
STANDARD: tuple[str, ...] = tuple(f"{s}{r}" for s in SUITS for r in range(1, 14))
_SUIT_ORDER = {s: i for i, s in enumerate(SUITS)}


# Every card code and what it reads as: the one parse of a code (the server's table, the
# engines and, through the generated TypeScript, the page all take codes from here).
_PARSED: dict[str, tuple[str, int]] = {
    **{f"{s}{r}": (s, r) for s in SUITS for r in range(1, 14)},
    **{j: ("J", 0) for j in JOKERS},
}


def parse_card(value: object, *, jokers: bool = True) -> tuple[str, int] | None:
    """``(suit letter, rank)`` of a card code (ace 1, ``("J", 0)`` for a joker), or None when
    ``value`` is not one (nor a joker, unless ``jokers``)."""
    if not isinstance(value, str):
        return None
    parsed = _PARSED.get(value)
    if parsed is None or (not jokers and parsed[1] == 0):
        return None
    return parsed


def is_card(value: object, *, jokers: bool = False) -> bool:
    """Whether ``value`` is a card code (jokers only when ``jokers``)."""
    return parse_card(value, jokers=jokers) is not None


def suit(card: str) -> str:
    """``"H"`` for ``"H12"``; ``"J"`` for a joker."""
    return _PARSED[card][0]


def rank(card: str) -> int:
    """1..13 (ace low); 0 for a joker."""
    return _PARSED[card][1]


def rank_high(card: str) -> int:
    """Rank with the ace high: 2..14."""
    r = rank(card)
    return 14 if r == 1 else r


def rank_name(r: int) -> str:
    return RANK_NAMES.get(r, str(r))


def card_name(card: str) -> str:
    """Plain words for log lines and messages: ``"queen of spades"``, ``"red joker"``."""
    if card == "J1":
        return "red joker"
    if card == "J2":
        return "black joker"
    return f"{rank_name(rank(card))} of {SUIT_NAMES[suit(card)]}"


def card_names(cards: Iterable[str]) -> str:
    """``"the 4, 5 and 6 of hearts"``-free plain list: ``"4 of hearts, 5 of hearts and ..."``."""
    names = [card_name(c) for c in cards]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def deck(decks: int = 1, jokers: int = 0) -> list[str]:
    """``decks`` standard decks plus ``jokers`` jokers (alternating red, black), unshuffled."""
    cards = list(STANDARD) * decks
    cards += [JOKERS[i % 2] for i in range(jokers)]
    return cards


def shuffled(cards: Sequence[str], rng: random.Random) -> list[str]:
    out = list(cards)
    rng.shuffle(out)
    return out


def sort_key(card: str, *, ace_high: bool = False, suits: str = SUITS) -> tuple[int, int]:
    """Order by suit (in ``suits`` order, jokers last), then rank."""
    if card in JOKERS:
        return (len(suits), JOKERS.index(card))
    r = rank_high(card) if ace_high else rank(card)
    return (suits.index(suit(card)), r)


def sort_cards(cards: Iterable[str], *, ace_high: bool = False, suits: str = SUITS) -> list[str]:
    return sorted(cards, key=lambda c: sort_key(c, ace_high=ace_high, suits=suits))


def counts(cards: Iterable[str]) -> dict[str, int]:
    """Multiset of codes: code -> how many."""
    out: dict[str, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def bad_card(card: object, *, jokers: bool = False) -> Rejection:
    """The rejection every engine gives for a missing or malformed card code."""
    if card is None:
        return Rejection(
            "bad_card", "Say which card, written like H5 (5 of hearts) or S12 (queen of spades)."
        )
    also = " or J1 (a joker)" if jokers else ""
    return Rejection(
        "bad_card",
        f"That is not a card: {card!r}. Cards are written like H5 (5 of "
        f"hearts), S12 (queen of spades), C1 (ace of clubs){also}.",
    )


def points(card: str) -> int:
    """The common rummy count: ace 1, 2-10 face value, J/Q/K 10 (jokers 0: games decide)."""
    return 0 if card in JOKERS else min(rank(card), 10)
