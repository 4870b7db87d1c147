"""Rummy's ``hard`` computer: ``normal``'s play with a sharper discard, from its seat's view only.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game`:
it reads ``engine.view(state, player)`` (its own hand, the melds, the public discard pile and
move history) and ``engine.legal_actions(state, player)``, never another hand or the stock
order, and returns one of the legal actions; ``rng`` only breaks ties.

It draws, melds, lays off and goes out as ``normal`` does (:mod:`plugins.rummy.bot`); the
difference is the discard, where the measure (``cardtable simulate rummy --levels``, see
``docs/plugins.md``) showed ``normal`` losing most:

* It counts what is still live. A card's worth to the hand is the number of unseen cards that
  would make a meld with it and a partner in the hand (the other two cards of a rank it holds
  a pair of, the missing link or the two ends of a two-card run), where a card is seen when it
  is in the discard pile, in a meld on the table, or was taken from the discard pile by
  another player and not shown since (it is in their hand).
* It discards the card with the most points less a weight per such live card: 3 points with
  two players (holding high cards loses their points to whoever goes out, so a partner with
  one live card is not worth keeping a king for), 10 with four (seven-card hands, three
  others racing: melding sooner matters more), 6 with three. The weights are the best of
  those measured against ``normal`` (2 players: 2, 3, 5; 4 players: 1.5, 3, 5, 7, 10, 14).
* It does not refuse cards "near" what the next player took from the pile: measured, that
  caution (``normal``'s) cost more than it saved, so it goes by points and live cards only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from plugins.base import Engine
from plugins.cards import STANDARD, points, rank, suit
from plugins.melds import best_melds
from plugins.rummy.bot import _draw, _out_plan

_RANK = {c: rank(c) for c in STANDARD}
_SUIT = {c: suit(c) for c in STANDARD}
_POINTS = {c: points(c) for c in STANDARD}
LIVE_WEIGHT = {2: 3, 3: 6, 4: 10}  # by players: what a live card that melds with it is worth


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The hard bot's move for ``player``, or ``None`` if it has no legal action."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    if any(a["type"] == "next_hand" for a in legal):
        return {"type": "next_hand"}
    view = engine.view(state, player)
    hand: list[str] = view["hand"]
    melds: list[list[str]] = view["melds"]
    if view["phase"] == "draw":
        return _draw(hand, melds, view["discard_top"], legal)
    plan = _out_plan(hand, melds, view["taken"]) or best_melds(hand)
    for meld in plan.melds:
        for action in legal:
            if action["type"] == "meld" and sorted(action["cards"]) == sorted(meld):
                return action
    layoffs = [a for a in legal if a["type"] == "lay_off" and a["card"] in plan.left]
    if layoffs:
        return max(layoffs, key=lambda a: (_POINTS[a["card"]], -a["meld"]))
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return rng.choice(legal)
    seen = {c for m in melds for c in m} | set(view["discard_pile"]) | held_by_others(view)
    weight = LIVE_WEIGHT[view["players"]]
    scored = [(_keep_cost(a["card"], hand, seen, weight), a) for a in discards]
    best = max(score for score, _ in scored)
    return rng.choice([a for score, a in scored if score == best])


def held_by_others(view: dict[str, Any]) -> set[str]:
    """Cards the other players took from the discard pile this hand and have not laid down or
    discarded since (the public history shows both)."""
    me = view["player"]
    held: set[str] = set()
    for m in view["history"]:
        if m["player"] is None or m["player"] == me:
            continue
        if m["type"] == "draw" and m["source"] == "discard":
            held.add(m["card"])
        elif m["type"] in ("discard", "lay_off"):
            held.discard(m["card"])
        elif m["type"] == "meld":
            held.difference_update(m["cards"])
    return held


def _keep_cost(card: str, hand: Sequence[str], seen: set[str], weight: int) -> int:
    """Higher is a better discard: the card's points less what its live partners are worth."""
    return _POINTS[card] - weight * live_cards(card, hand, seen)


def live_cards(card: str, hand: Sequence[str], seen: set[str]) -> int:
    """Unseen cards that would make a meld with ``card`` and one other card of ``hand``: the
    rest of a pair's rank, a run's missing link or its two ends (counted per partner)."""
    count = 0
    r, s = _RANK[card], _SUIT[card]
    for other in hand:
        if other == card:
            continue
        o = _RANK[other]
        if o == r:
            count += sum(
                1 for t in "CDHS" if (c := f"{t}{r}") not in seen and c not in hand and c != card
            )
        elif _SUIT[other] == s and abs(o - r) <= 2:
            lo, hi = min(r, o), max(r, o)
            links = [lo + 1] if hi - lo == 2 else [lo - 1, hi + 1]
            count += sum(1 for k in links if 1 <= k <= 13 and f"{s}{k}" not in seen)
    return count
