"""The ``hard`` Gin Rummy computer: ``normal`` plus card tracking and meld potential.

``choose_action(engine, state, seat, rng)`` has the bot signature of :mod:`plugins.game` and
reads only ``engine.view(state, seat)``: its hand, the public discard pile, the cards the
opponent took face up (``known_cards``) and the knocker's melds - never the opponent's hand or
the stock order. What it adds to ``normal`` (:mod:`plugins.gin_rummy.bot`):

* **Discard by outlook, not only by deadwood.** Each discard it may make is scored by the
  deadwood it leaves, less the expected gain of its next draw (every card it has not seen is
  equally likely to come off the stock; a card's gain is the deadwood it would save), plus the
  danger of feeding the opponent: the chance the opponent holds two cards that meld with it
  (a card the opponent took face up counts as held, a card in the discard pile or its own hand
  as not held).
* **Draws by the same score**: it takes the top discard when keeping it (and throwing the best
  other card) scores better than the expected stock draw.
* **Knock timing with undercut awareness**: early in the hand it knocks as soon as it may; once
  fewer than ``LATE_STOCK`` cards are left in the stock the opponent's hand has improved (an
  undercut is likelier), so it knocks only with ``LATE_KNOCK`` deadwood or less and otherwise
  plays on towards Gin.

Knock layouts and lay-offs are ``normal``'s. Ties are broken by ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

from plugins.base import Engine
from plugins.cards import deck as full_deck
from plugins.cards import rank, suit
from plugins.gin_rummy.bot import _discards, knock_layout
from plugins.melds import best_arrangement, best_defence, deadwood_points, deadwood_value

DRAW_WEIGHT = 1.5  # how much the outlook of future draws counts against deadwood now
DANGER_WEIGHT = 8.0  # deadwood points a card that surely completes an opponent meld costs
LATE_STOCK = 14  # fewer cards than this in the stock: late in the hand
LATE_KNOCK = 4  # the most deadwood it knocks with late in the hand
CANDIDATES = 4  # discards looked at closely: the best by deadwood and danger alone
FULL_DECK = tuple(full_deck())


def _near(card: str, cards: Iterable[str]) -> bool:
    r, s = rank(card), suit(card)
    return any(rank(o) == r or (suit(o) == s and abs(rank(o) - r) <= 2) for o in cards)


def draw_outlook(kept: Sequence[str], live: Sequence[str]) -> float:
    """The deadwood a draw from ``live`` (each card equally likely) is expected to save."""
    if not live:
        return 0.0
    now = deadwood_points(kept)
    gain = 0
    for card in live:
        if _near(card, kept):
            arr = best_arrangement([*kept, card])  # then throw its highest deadwood card
            top = max((deadwood_value(c) for c in arr.deadwood), default=0)
            gain += max(0, now - arr.points + top)
    return gain / len(live)


def meld_partners(card: str) -> list[tuple[str, str]]:
    """The pairs of other cards that make a meld of three with ``card``."""
    r, s = rank(card), suit(card)
    same = [f"{o}{r}" for o in "CDHS" if o != s]
    out = list(combinations(same, 2))
    for lo in (r - 2, r - 1, r):
        ranks = [x for x in (lo, lo + 1, lo + 2) if x != r]
        if lo >= 1 and lo + 2 <= 13:
            out.append((f"{s}{ranks[0]}", f"{s}{ranks[1]}"))
    return out


def danger(card: str, held: dict[str, float]) -> float:
    """The chance the opponent holds two cards that meld with ``card`` (``held[c]``: the
    chance they hold ``c``; missing cards are not theirs)."""
    miss = 1.0
    for a, b in meld_partners(card):
        miss *= 1.0 - held.get(a, 0.0) * held.get(b, 0.0)
    return 1.0 - miss


def _held(view: dict[str, Any], hand: Sequence[str]) -> tuple[dict[str, float], list[str]]:
    """The chance the opponent holds each card, and the cards that may still be drawn."""
    me: int = view["player"]
    known = set(view["known_cards"][1 - me])
    seen = set(hand) | set(view["discard_pile"])
    unseen = [c for c in FULL_DECK if c not in seen]
    unknown = [c for c in unseen if c not in known]
    held_unknown = max(0, view["hand_counts"][1 - me] - len(known))
    share = held_unknown / len(unknown) if unknown else 0.0
    held = {c: share for c in unknown}
    held.update({c: 1.0 for c in known})
    return held, unknown


def score_discards(
    hand: Sequence[str], allowed: Iterable[str], held: dict[str, float], live: Sequence[str]
) -> dict[str, float]:
    """Each allowed discard's score (lower is better; see the module docstring)."""
    now = {
        out: deadwood_points(c for c in hand if c != out) + DANGER_WEIGHT * danger(out, held)
        for out in allowed
    }
    shortlist = sorted(now, key=lambda c: (now[c], c))[:CANDIDATES]
    scores: dict[str, float] = {}
    for out in shortlist:
        kept = [c for c in hand if c != out]
        scores[out] = now[out] - DRAW_WEIGHT * draw_outlook(kept, [c for c in live if c != out])
    return scores


def _pick(scores: dict[str, float], rng: random.Random) -> str:
    best = min(scores.values())
    return rng.choice(sorted(c for c, v in scores.items() if v <= best + 1e-9))


def wants_to_knock(points: int, stock: int, limit: int) -> bool:
    """Knock with ``points`` deadwood while ``stock`` cards are left (see the docstring)."""
    return points <= limit and (stock >= LATE_STOCK or points <= LATE_KNOCK)


def choose_action(
    engine: Engine[Any], state: Any, seat: int, rng: random.Random
) -> dict[str, Any] | None:
    """The hard bot's move for ``seat``, or ``None`` if ``seat`` has no legal action."""
    legal = engine.legal_actions(state, seat)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_hand" in kinds:
        return {"type": "next_hand"}
    view = engine.view(state, seat)
    phase = view["phase"]
    hand: list[str] = view["hand"]
    if phase == "layoff":
        plan, _ = best_defence(view["knock"]["melds"], hand)
        if plan:
            card, meld = plan[0]
            return {"type": "lay_off", "card": card, "meld": meld}
        return {"type": "finish_layoff"}
    held, live = _held(view, hand)
    if phase in ("upcard", "draw"):
        top = view["discard_top"]
        can_take = phase == "upcard" or {"type": "draw", "source": "discard"} in legal
        take = can_take and top is not None and _take(hand, top, held, live)
        if phase == "upcard":
            return {"type": "take_upcard" if take else "pass"}
        return {"type": "draw", "source": "discard" if take else "stock"}
    if phase == "discard":
        if "big_gin" in kinds:
            return {"type": "big_gin"}
        allowed = [a["card"] for a in legal if a["type"] == "discard"]
        knockable = {a["card"] for a in legal if a["type"] == "knock"}
        if knockable:
            left = {c: deadwood_points(x for x in hand if x != c) for c in knockable}
            least = min(left.values())
            if least == 0 or wants_to_knock(
                least, view["stock_count"], view["options"]["knock_limit"]
            ):
                out = _pick({c: -deadwood_value(c) for c in knockable if left[c] == least}, rng)
                melds = knock_layout(view, out)
                if melds is None:
                    return {"type": "knock", "card": out}
                return {"type": "knock", "card": out, "melds": melds}
        out = _pick(score_discards(hand, allowed, held, live), rng)
        return {"type": "discard", "card": out}
    return rng.choice(legal)


def _take(hand: Sequence[str], top: str, held: dict[str, float], live: Sequence[str]) -> bool:
    """Taking ``top`` and throwing the best other card scores better than drawing blind."""
    if deadwood_points(hand) <= _discards(tuple(sorted([*hand, top])), top)[0]:
        return False  # it does not lower the deadwood: never worth showing it
    with_top = score_discards(
        [*hand, top], [c for c in hand], {**held, top: 0.0}, [c for c in live if c != top]
    )
    taken = min(with_top.values())
    blind = deadwood_points(hand) - DRAW_WEIGHT * draw_outlook(hand, live)
    return taken < blind
