"""The ``easy`` Spades computer: a casual beginner, not a random player.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game` and
reads only ``engine.view(state, player)`` and the legal actions. It bids its high cards only
(aces, kings, the queen of spades: at least 1, never nil or blind nil), looks at its cards at
once, and plays without counting cards or thinking of its partner: when it can win the trick it
plays its highest winning card (even over its partner's winner), otherwise its lowest card; it
leads its highest card outside spades. In a blind nil exchange it passes as ``normal`` does.
"""

from __future__ import annotations

import random
from typing import Any

from plugins.base import Engine
from plugins.cards import rank_high, suit
from plugins.spades.bot import _exchange, _high, _low, _winning, beats

SPADE = "S"


def easy_bid(hand: list[str]) -> int:
    """Aces, kings and the queen of spades: one trick each, at least 1."""
    high = sum(1 for c in hand if rank_high(c) >= 13 or c == "S12")
    return max(1, min(13, high))


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The easy bot's move for ``player``, or ``None`` if it has nothing to do now."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_deal" in kinds:
        return {"type": "next_deal"}
    if "look" in kinds:
        return {"type": "look"}
    view = engine.view(state, player)
    phase = view["phase"]
    if phase == "bidding":
        if view["turn"] != player:
            return None
        bid = {"type": "bid", "bid": easy_bid(view["hand"])}
        return bid if bid in legal else rng.choice(legal)
    if phase == "exchange":
        return _exchange(view, player)
    if phase == "playing":
        cards = [a["card"] for a in legal if a["type"] == "play"]
        return {"type": "play", "card": easy_card(view, cards)}
    return rng.choice(legal)


def easy_card(view: dict[str, Any], cards: list[str]) -> str:
    """Win with the highest card that wins, else throw the lowest; lead high outside spades."""
    trick = view["trick"]
    if not trick:
        side = [c for c in cards if suit(c) != SPADE]
        return max(side, key=lambda c: (rank_high(c), c)) if side else _low(cards)
    _, best = _winning(trick)
    winners = [c for c in cards if beats(c, best)]
    return _high(winners) if winners else _low(cards)
