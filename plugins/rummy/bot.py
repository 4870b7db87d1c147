"""A Rummy computer player that plays only from what its seat may see.

``choose_action(engine, state, player, rng)`` reads ``engine.view(state, player)`` (its own hand,
the shared melds, the public discard pile and move history) and
``engine.legal_actions(state, player)`` - never another hand or the stock order - and returns one
of the legal actions, or ``None`` when the player has nothing to do. ``rng`` only breaks ties, so
the bot is deterministic for a given ``rng``. It does return ``next_hand`` when that is legal
(the server never lets it; simulations use it).

Strategy
--------
* Draw: take the top discard when it lays off onto a meld on the table or makes a new meld with
  the hand (more points melded than without it); otherwise draw from the stock.
* Going out: if the hand can be melded (fewest cards left) and laid off down to at most one
  card it may discard, follow that plan.
* Otherwise meld early: lay down every meld of the best arrangement (most points melded), then
  lay off every card that fits a meld on the table, highest first.
* Discard: the highest-value card that is not useful to the next player (it does not fit a
  meld on the table, and is not of a rank, or next to a card of a suit, that they took from the
  discard pile this hand), preferring cards with no partner in the hand (a pair, or a
  neighbour of the same suit, that could still become a meld).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from plugins.base import Engine
from plugins.cards import STANDARD, points, rank, suit
from plugins.melds import Arrangement, best_melds, can_lay_off, plan_layoffs

_RANK = {c: rank(c) for c in STANDARD}
_SUIT = {c: suit(c) for c in STANDARD}
_POINTS = {c: points(c) for c in STANDARD}


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The bot's move for ``player``, or ``None`` if it has no legal action."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_hand" in kinds:
        return {"type": "next_hand"}
    view = engine.view(state, player)
    hand: list[str] = view["hand"]
    melds: list[list[str]] = view["melds"]
    if view["phase"] == "draw":
        return _draw(hand, melds, view["discard_top"], legal)
    return _play(view, hand, melds, legal, rng)


def _draw(
    hand: list[str], melds: list[list[str]], top: str | None, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    take = {"type": "draw", "source": "discard"}
    if top is not None and take in legal and _wants(hand, melds, top):
        return take
    stock = {"type": "draw", "source": "stock"}
    return stock if stock in legal else legal[0]


def _wants(hand: list[str], melds: list[list[str]], card: str) -> bool:
    """``card`` lays off on the table or joins a meld that scores more than the hand alone."""
    if any(can_lay_off(m, card) for m in melds):
        return True
    before = _melded_points(best_melds(hand))
    with_card = best_melds([*hand, card])
    return card not in with_card.left and _melded_points(with_card) > before


def _melded_points(arr: Arrangement) -> int:
    return sum(points(c) for m in arr.melds for c in m)


def _out_plan(hand: list[str], melds: list[list[str]], taken: str | None) -> Arrangement | None:
    """An arrangement that takes the player out this turn, if there is one."""
    arr = best_melds(hand, fewest_cards=True)
    if len(arr.left) > 1 and not melds and not arr.melds:
        return None
    laid = {c for c, _ in plan_layoffs([*melds, *arr.melds], arr.left)}
    rest = [c for c in arr.left if c not in laid]
    if not rest or (len(rest) == 1 and rest[0] != taken):
        return arr
    return None


def _play(
    view: dict[str, Any],
    hand: list[str],
    melds: list[list[str]],
    legal: list[dict[str, Any]],
    rng: random.Random,
) -> dict[str, Any]:
    taken: str | None = view["taken"]
    plan = _out_plan(hand, melds, taken) or best_melds(hand)
    legal_melds = [a for a in legal if a["type"] == "meld"]
    for meld in plan.melds:
        for action in legal_melds:
            if sorted(action["cards"]) == sorted(meld):
                return action
    layoffs = [a for a in legal if a["type"] == "lay_off" and a["card"] in plan.left]
    if layoffs:
        return max(layoffs, key=lambda a: (points(a["card"]), -a["meld"]))
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return rng.choice(legal)
    signals = _taken_by(view, (view["player"] + 1) % view["players"])
    dead = {c for m in melds for c in m} | set(view["discard_pile"])
    fits = {c for m in melds for c in hand if can_lay_off(m, c)}
    scored = [(_discard_score(a["card"], hand, fits, signals, dead), a) for a in discards]
    best = max(score for score, _ in scored)
    return rng.choice([a for score, a in scored if score == best])


def _taken_by(view: dict[str, Any], player: int) -> list[str]:
    """Cards ``player`` took from the discard pile this hand (public moves)."""
    return [
        m["card"]
        for m in view["history"]
        if m["type"] == "draw" and m["source"] == "discard" and m["player"] == player
    ]


def _discard_score(
    card: str, hand: Sequence[str], fits: set[str], signals: list[str], dead: set[str]
) -> tuple[int, int]:
    """Higher is a better discard: safe first (it fits no meld on the table and no card the
    next player took), then its value less what it may still make with the hand."""
    useful = card in fits or any(_near(card, s) for s in signals)
    return (0 if useful else 1, _POINTS[card] - 6 * _partners(card, hand, dead))


def _near(card: str, other: str) -> bool:
    """Same rank, or the same suit within two ranks: the two could share a meld."""
    r, o = _RANK[card], _RANK[other]
    return r == o or (_SUIT[card] == _SUIT[other] and abs(r - o) <= 2)


def _partners(card: str, hand: Sequence[str], dead: set[str]) -> int:
    """Cards of the hand that could still make a meld with ``card``: a pair of the rank while a
    third card of it is still unseen, or a same-suit neighbour whose missing link is unseen."""
    count = 0
    r, s = _RANK[card], _SUIT[card]
    for other in hand:
        if other == card:
            continue
        o = _RANK[other]
        if o == r:
            live = [f"{t}{r}" for t in "CDHS" if f"{t}{r}" not in (card, other)]
            count += any(c not in dead and c not in hand for c in live)
        elif _SUIT[other] == s and abs(o - r) <= 2:
            lo, hi = min(r, o), max(r, o)
            links = [lo + 1] if hi - lo == 2 else [lo - 1, hi + 1]
            count += any(1 <= k <= 13 and f"{s}{k}" not in dead for k in links)
    return count
