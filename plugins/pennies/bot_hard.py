"""Pennies' ``hard`` computer: ``normal``'s play, but it cuts its losses when the round is lost.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game`: it
reads only ``engine.view(state, player)`` (its hand, the melds, the public discard pile, who
bought what, the hand sizes) and returns a move the engine accepts; ``rng`` only breaks ties.

It buys, melds, lays off and discards as ``normal`` does (:mod:`plugins.pennies.bot`), with one
change measured to help (``cardtable simulate pennies --levels``, see ``docs/plugins.md``):
when another player has laid their first meld and holds at most :data:`CLOSE` cards, and its
own hand is still :data:`HOPELESS` or more cards short of the round's first meld (counting the
different natural cards of its best ranks and its wild cards), the round is as good as lost,
so it discards its highest card, wild cards included (a joker is 50 points in hand), instead
of keeping them for a first meld it will not make. ``normal`` keeps every wild card and ends
such rounds holding them: in round 5 it held 31 points of wild cards on average, hard 18.
Other changes tried did not beat ``normal`` (see the docs): buying only cards of the ranks the
first meld needs, keeping pennies for the later rounds, never buying after the first meld,
not buying while someone is about to go out, discarding for the most ways to meld next turn.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from plugins.base import Engine
from plugins.pennies.bot import choose_action as normal
from plugins.pennies.rules import RANK, card_points

CLOSE = 2  # another player who has melded and holds this few cards may go out any turn
HOPELESS = 2  # cards short of the first meld: too many to make it before they go out
MOST_OF_A_RANK = 4  # different natural cards of one rank (the suits)


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The hard bot's move for ``player``, or ``None`` if it has nothing to do."""
    action = normal(engine, state, player, rng)
    if action is None or action["type"] != "discard":
        return action
    view = engine.view(state, player)
    if view["opened"][player] or not _someone_close(view, player):
        return action
    hand: list[str] = view["hand"]
    wild = frozenset(view["requirement"]["wild_ranks"])
    if cards_short(hand, view["requirement"]["first_meld"], wild) < HOPELESS:
        return action
    high = max(card_points(c) for c in hand)
    return {
        "type": "discard",
        "card": rng.choice(sorted({c for c in hand if card_points(c) == high})),
    }


def _someone_close(view: dict[str, Any], player: int) -> bool:
    """Another player has laid their first meld and holds at most :data:`CLOSE` cards."""
    return any(
        view["opened"][p] and view["hand_counts"][p] <= CLOSE
        for p in range(view["players"])
        if p != player
    )


def cards_short(hand: list[str], first_meld: list[int], wild: frozenset[int]) -> int:
    """About how many cards ``hand`` lacks for the first meld: each required set (biggest
    first) is filled from the ranks with the most different natural cards, then the wild cards
    fill the gaps."""
    need = sorted(first_meld, reverse=True)
    distinct = Counter(RANK[c] for c in set(hand) if RANK[c] not in wild)
    best = sorted(distinct.values(), reverse=True) + [0] * len(need)
    wilds = sum(1 for c in hand if RANK[c] in wild)
    gaps = sum(max(0, k - min(MOST_OF_A_RANK, d)) for k, d in zip(need, best, strict=False))
    return gaps - wilds
