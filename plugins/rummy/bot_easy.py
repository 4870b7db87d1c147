"""Rummy's ``easy`` computer: a casual beginner who plays only from what its seat may see.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game` and
returns one of ``engine.legal_actions(state, player)``. It reads only its own view; ``rng``
breaks ties and decides what it notices.

Strategy (weaker than ``normal`` on purpose, never random): it takes the top discard only when
that card makes a meld with its hand at once, and notices that only one time in two;
otherwise it draws from the stock. It lays down the first meld it sees (not the best
arrangement of its hand) and lays off any card that fits a meld on the table. It discards a
card with the fewest partners in its hand (cards of its rank, or of its suit within two
ranks), the lowest of those (it hoards its face cards), never minding what it gives the next
player.
"""

from __future__ import annotations

import random
from typing import Any

from plugins.base import Engine
from plugins.cards import STANDARD, points, rank, suit
from plugins.rummy.rules import melds_in

_RANK = {c: rank(c) for c in STANDARD}
_SUIT = {c: suit(c) for c in STANDARD}
_POINTS = {c: points(c) for c in STANDARD}
NOTICE = 0.5  # how often it notices that the top discard makes a meld with its hand


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The easy bot's move for ``player``, or ``None`` if it has no legal action."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_hand" in kinds:
        return {"type": "next_hand"}
    view = engine.view(state, player)
    hand: list[str] = view["hand"]
    if view["phase"] == "draw":
        top = view["discard_top"]
        take = {"type": "draw", "source": "discard"}
        seen = rng.random() < NOTICE
        if (
            seen
            and top is not None
            and take in legal
            and any(top in m for m in melds_in([*hand, top]))
        ):
            return take
        stock = {"type": "draw", "source": "stock"}
        return stock if stock in legal else legal[0]
    placed = next((a for a in legal if a["type"] in ("meld", "lay_off")), None)
    if placed is not None:
        return placed
    discards = [a for a in legal if a["type"] == "discard"]
    keep = {a["card"]: (_partners(a["card"], hand), _POINTS[a["card"]]) for a in discards}
    least = min(keep.values())
    return rng.choice([a for a in discards if keep[a["card"]] == least])


def _partners(card: str, hand: list[str]) -> int:
    """Cards of ``hand`` of the same rank, or of the same suit within two ranks."""
    r, s = _RANK[card], _SUIT[card]
    return sum(
        1
        for c in hand
        if c != card and (_RANK[c] == r or (_SUIT[c] == s and abs(_RANK[c] - r) <= 2))
    )
