"""A simple, reasonable Gin Rummy bot that plays from what its seat may see.

``choose_action(engine, state, seat, rng)`` returns one of ``engine.legal_actions(state, seat)``
or ``None`` when the seat has nothing to do. It reads only ``engine.view(state, seat)`` (its own
hand, the public discard pile, the knocker's laid-out melds) - never the opponent's hand or the
stock order - and uses ``rng`` only to break ties, so it is deterministic for a given ``rng``.

Strategy: take the upcard or the top discard only if that lowers the best deadwood reachable
after discarding; discard the card that leaves the least deadwood (highest card on a tie);
declare Big Gin or Gin whenever possible, otherwise knock as soon as it is legal; as defender,
make the lay-offs that leave the least deadwood (see :func:`best_defence`).

Knock layout (:func:`knock_layout`): among the arrangements of the 10 cards kept that have the
least deadwood (:func:`arrangements`), the bot lays out the one giving the defender the fewest
expected lay-offs: every card it has not seen (not in its hand, not in the discard pile) that
would extend one of its melds counts with the chance that the defender holds it, and a card
the defender took face up from the discard pile (``known_cards`` in the view) counts as
certain. Ties keep the engine's default layout, which the bot then sends without ``melds``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from plugins.base import Engine
from plugins.cards import deck as full_deck
from plugins.melds import (
    arrangements,
    best_arrangement,
    best_defence,
    can_lay_off,
    deadwood_points,
    deadwood_value,
)

HAND_SIZE = 10


def _best_discards(hand: Sequence[str], keep: str | None = None) -> tuple[int, tuple[str, ...]]:
    """Least deadwood left after discarding one card of ``hand`` (never ``keep``), and the
    discards achieving it with the highest deadwood value among them."""
    return _discards(tuple(hand), keep)


@lru_cache(maxsize=1 << 12)
def _discards(hand: tuple[str, ...], keep: str | None) -> tuple[int, tuple[str, ...]]:
    whole = best_arrangement(hand)
    dead = set(whole.deadwood)
    best: tuple[int, int] | None = None
    cards: list[str] = []
    # Deadwood first, highest value first: their exact results prune most melded cards.
    for out in sorted(hand, key=lambda c: (c not in dead, -deadwood_value(c))):
        if out == keep:
            continue
        value = deadwood_value(out)
        points = whole.points - value  # exact for deadwood, a lower bound for melded cards
        if out not in dead:
            if best is not None and (points, -value) > best:
                continue
            points = deadwood_points(c for c in hand if c != out)
        key = (points, -value)
        if best is None or key < best:
            best, cards = key, [out]
        elif key == best:
            cards.append(out)
    assert best is not None
    return best[0], tuple(cards)


def _wants(hand: list[str], card: str | None) -> bool:
    """Taking ``card`` (then discarding another card) lowers the deadwood."""
    if card is None:
        return False
    return _best_discards([*hand, card], keep=card)[0] < deadwood_points(hand)


def expected_layoffs(
    melds: list[list[str]], unseen: set[str], known: set[str], unknown_share: float
) -> tuple[float, float]:
    """How many of the defender's cards are expected to lay off directly onto ``melds``, and
    their deadwood points: ``known`` cards (the defender holds them) count fully, other
    ``unseen`` cards with the chance ``unknown_share`` that the defender holds one."""
    count = points = 0.0
    for card in unseen:
        if any(can_lay_off(m, card) for m in melds):
            weight = 1.0 if card in known else unknown_share
            count += weight
            points += weight * deadwood_value(card)
    return count, points


def knock_layout(view: dict[str, Any], card: str) -> list[list[str]] | None:
    """The melds to knock with when discarding ``card``, from what ``view`` shows: ``None``
    when the engine's default layout is as good (see the module docstring)."""
    hand: list[str] = view["hand"]
    options = arrangements([c for c in hand if c != card])
    if len(options) < 2 or options[0].points == 0:
        return None  # a single layout, or Gin: nothing can be laid off anyway
    player: int = view["player"]
    known = set(view["known_cards"][1 - player])
    unseen = set(full_deck()) - set(hand) - set(view["discard_pile"])
    unknown = unseen - known
    held_unknown = HAND_SIZE - len(known)
    share = held_unknown / len(unknown) if unknown else 0.0
    scored = [
        (expected_layoffs(arr.melds, unseen, known, share), i) for i, arr in enumerate(options)
    ]
    _, best = min(scored)
    return options[best].melds if best else None


def choose_action(
    engine: Engine[Any], state: Any, seat: int, rng: random.Random
) -> dict[str, Any] | None:
    """The bot's move for ``seat``, or ``None`` if ``seat`` has no legal action."""
    legal = engine.legal_actions(state, seat)
    if not legal:
        return None
    view = engine.view(state, seat)
    phase = view["phase"]
    hand: list[str] = view["hand"]
    kinds = {a["type"] for a in legal}

    if "next_hand" in kinds:
        return {"type": "next_hand"}
    if phase == "upcard":
        return {"type": "take_upcard" if _wants(hand, view["discard_top"]) else "pass"}
    if phase == "draw":
        can_take = {"type": "draw", "source": "discard"} in legal
        take = can_take and _wants(hand, view["discard_top"])
        return {"type": "draw", "source": "discard" if take else "stock"}
    if phase == "layoff":
        plan, _ = best_defence(view["knock"]["melds"], hand)
        if plan:
            card, meld = plan[0]
            return {"type": "lay_off", "card": card, "meld": meld}
        return {"type": "finish_layoff"}
    if phase == "discard":
        if "big_gin" in kinds:
            return {"type": "big_gin"}
        knockable = {a["card"] for a in legal if a["type"] == "knock"}
        _, outs = _best_discards(
            hand, keep=view["drawn"] if view["drawn_from"] != "stock" else None
        )
        out = rng.choice(outs)
        if out in knockable:
            melds = knock_layout(view, out)
            if melds is None:
                return {"type": "knock", "card": out}  # Gin when points == 0
            return {"type": "knock", "card": out, "melds": melds}
        return {"type": "discard", "card": out}
    return rng.choice(legal)
