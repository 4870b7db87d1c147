"""The ``easy`` Gin Rummy computer: a casual beginner, not a random player.

``choose_action(engine, state, seat, rng)`` has the bot signature of :mod:`plugins.game` and
reads only ``engine.view(state, seat)`` and the legal actions. It keeps its melds and its
"almost melds" (a pair, two cards of a suit one or two apart) but never tracks the discards or
what the opponent picked up: it takes the upcard or the discard only when that card completes a
meld in its hand; it discards its highest loose card, and one time in five (drawn from ``rng``)
a card of a pair or near-run it should keep; it declares Big Gin or Gin when it has it, knocks
as soon as any knock is allowed (with the engine's layout), and as defender lays off each card
that fits, one by one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from plugins.base import Engine
from plugins.cards import rank, suit
from plugins.melds import best_arrangement, deadwood_points, deadwood_value

SLIP = 0.2  # how often the beginner throws away a card it should keep


def _melded(cards: Sequence[str]) -> set[str]:
    arr = best_arrangement(cards)
    return {c for m in arr.melds for c in m}


def completes_meld(hand: Sequence[str], card: str | None) -> bool:
    """``card`` would sit in a meld with cards of ``hand`` that are loose now."""
    if card is None:
        return False
    return card in _melded([*hand, card]) and len(_melded([*hand, card])) > len(_melded(hand))


def _near(card: str, others: Sequence[str]) -> bool:
    """A pair, or a card of the same suit one or two ranks away."""
    return any(
        o != card
        and (rank(o) == rank(card) or (suit(o) == suit(card) and abs(rank(o) - rank(card)) <= 2))
        for o in others
    )


def easy_discard(hand: Sequence[str], allowed: Sequence[str], rng: random.Random) -> str:
    """The highest loose card that is not part of a pair or near-run; sometimes (``SLIP``) one
    that is."""
    melded = _melded(hand)
    loose = [c for c in allowed if c not in melded] or list(allowed)
    lonely = [c for c in loose if not _near(c, [o for o in hand if o not in melded])]
    keepers = [c for c in loose if c not in lonely]
    pool = lonely or loose
    if keepers and lonely and rng.random() < SLIP:
        pool = keepers
    return max(pool, key=lambda c: (deadwood_value(c), c))


def choose_action(
    engine: Engine[Any], state: Any, seat: int, rng: random.Random
) -> dict[str, Any] | None:
    """The easy bot's move for ``seat``, or ``None`` if ``seat`` has no legal action."""
    legal = engine.legal_actions(state, seat)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_hand" in kinds:
        return {"type": "next_hand"}
    view = engine.view(state, seat)
    phase = view["phase"]
    hand: list[str] = view["hand"]
    if phase == "upcard":
        return {"type": "take_upcard" if completes_meld(hand, view["discard_top"]) else "pass"}
    if phase == "draw":
        take = {"type": "draw", "source": "discard"} in legal and completes_meld(
            hand, view["discard_top"]
        )
        return {"type": "draw", "source": "discard" if take else "stock"}
    if phase == "layoff":
        for action in legal:
            if action["type"] == "lay_off":
                return action
        return {"type": "finish_layoff"}
    if phase == "discard":
        if "big_gin" in kinds:
            return {"type": "big_gin"}
        knocks = [a["card"] for a in legal if a["type"] == "knock"]
        if knocks:
            left = {c: deadwood_points(x for x in hand if x != c) for c in knocks}
            return {
                "type": "knock",
                "card": min(knocks, key=lambda c: (left[c], -deadwood_value(c), c)),
            }
        allowed = [a["card"] for a in legal if a["type"] == "discard"]
        return {"type": "discard", "card": easy_discard(hand, allowed, rng)}
    return rng.choice(legal)
