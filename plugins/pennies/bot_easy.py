"""Pennies' ``easy`` computer: a casual beginner who plays only from what its seat may see.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game` and
returns one of ``engine.legal_actions(state, player)`` (or the offer's ``pass``). It reads only
its own view; ``rng`` breaks ties.

Strategy (weaker than ``normal`` on purpose, never random): it buys greedily, without regard
to the round's first meld or the size of its hand - any wild card, any card of a rank it
holds - while it has pennies; it lays down the first meld as soon as it has one, then any new
set it holds and its natural cards onto matching sets, but lays a wild card off onto a set
only when it holds nothing else; it keeps its wild cards and discards its highest natural
card, whatever it might still make or give the next player.
"""

from __future__ import annotations

import random
from typing import Any

from plugins.base import Engine
from plugins.pennies.rules import RANK, card_points


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The easy bot's move for ``player``, or ``None`` if it has nothing to do."""
    view = engine.view(state, player)
    if player not in view["to_act"]:
        return None
    phase = view["phase"]
    if phase == "round_over":
        return {"type": "next_round"}
    hand: list[str] = view["hand"]
    wild = frozenset(view["requirement"]["wild_ranks"])
    if phase in ("buy", "offer"):
        card = view["discard_top"] if phase == "buy" else view["buy_window"]["card"]
        greedy = card is not None and (
            RANK[card] in wild or any(RANK[c] == RANK[card] for c in hand)
        )
        buy = greedy and view["pennies"][player] > 0
        return {"type": "buy" if buy else ("decline" if phase == "buy" else "pass")}
    legal = engine.legal_actions(state, player)
    for action in legal:
        if action["type"] == "meld":
            return action
    only_wild = all(RANK[c] in wild for c in hand)
    for action in legal:
        if action["type"] == "lay_off" and (only_wild or RANK[action["cards"][0]] not in wild):
            return action
    discards = [a for a in legal if a["type"] == "discard"]
    high = max(_cost(a["card"], wild) for a in discards)
    return rng.choice([a for a in discards if _cost(a["card"], wild) == high])


def _cost(card: str, wild: frozenset[int]) -> tuple[bool, int]:
    """Higher is discarded first: natural cards before wild ones, then the most points."""
    return (RANK[card] not in wild, card_points(card))
