"""A simple, sound Pennies bot that plays from what its player may see.

``choose_action(engine, state, player, rng)`` reads only ``engine.view(state, player)`` (its own
hand, the public discard pile, the melds on the table, who bought what, whose move it is) -
never another hand or the stock order; every move it returns is legal (the self-play tests
check each one). It uses ``rng`` only to break ties, so it is deterministic for a given ``rng``.

Strategy: before its first meld of the round it buys a discard that helps (a wild card, or a
new suit of a rank it already holds) while it has pennies and its hand is not too big; it lays
down the first meld as soon as the hand meets the round's requirement. Afterwards it buys only
a card that completes a new set at once (a third different card for a pair, or a wild card
while it holds a pair), or any card of a rank it holds when it is down to 2 cards (too few to
make a set); each turn it places every card it can - natural cards onto matching melds,
leftover naturals into new sets topped up with wild cards, the remaining wild cards onto any
meld - and so goes out as soon as it can. It discards the least useful card: never a wild card
if it can help it, not a rank the next player has been buying or melding, a second copy of a
card when the round asks for one set (identical natural cards can't share it), then the rank
with the fewest different cards, the most points first.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from plugins.base import Engine
from plugins.pennies.rules import MIN_SET, RANK, card_points, find_opening

MAX_HAND_TO_BUY = 18  # a bigger hand costs too much if someone goes out
STUCK_HAND = 2  # after the first meld, this few cards can't make a new set: buy to get more


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The bot's move for ``player``, or ``None`` if it has nothing to do."""
    view = engine.view(state, player)
    if player not in view["to_act"]:
        return None
    phase = view["phase"]
    if phase == "round_over":
        return {"type": "next_round"}
    hand: list[str] = view["hand"]
    wild = frozenset(view["requirement"]["wild_ranks"])
    opened = view["opened"][player]
    can_buy = view["pennies"][player] > 0
    if phase == "buy":
        card = view["discard_top"]
        buy = can_buy and _wants(hand, card, wild, opened, mover=True)
        return {"type": "buy" if buy else "decline"}
    if phase == "offer":
        card = view["buy_window"]["card"]
        buy = can_buy and _wants(hand, card, wild, opened, mover=False)
        return {"type": "buy" if buy else "pass"}
    if not opened:
        opening = find_opening(hand, view["requirement"]["first_meld"], wild)
        if opening is not None:
            return {
                "type": "meld",
                "melds": [{"cards": list(m.cards), "rank": m.rank} for m in opening],
            }
    else:
        step = _placement(view, hand, wild)
        if step is not None:
            return step
    return {"type": "discard", "card": _discard(view, hand, wild, player, rng)}


def _wants(
    hand: list[str], card: str | None, wild: frozenset[int], opened: bool, *, mover: bool
) -> bool:
    """Whether buying ``card`` (with 2 unknown stock cards) helps toward the first meld."""
    if card is None or len(hand) >= MAX_HAND_TO_BUY:
        return False
    r = RANK[card]
    held = len({c for c in hand if RANK[c] == r})
    if opened:
        if r in wild:  # a wild card turns a pair into a new set
            ranks = Counter(RANK[c] for c in set(hand) if RANK[c] not in wild)
            return any(k >= MIN_SET - 1 for k in ranks.values())
        if card not in hand and held >= MIN_SET - 1:
            return True  # it completes a new set
        return mover and len(hand) <= STUCK_HAND and held > 0
    if r in wild:
        return True
    # A new suit for a rank already held: another different natural card for its set.
    return card not in hand and held >= (1 if mover else 2)


def _placement(
    view: dict[str, Any], hand: list[str], wild: frozenset[int]
) -> dict[str, Any] | None:
    """The next meld or lay-off that gets cards out of the hand after the first meld."""
    table = [
        (p, i, m["rank"], set(m["cards"]))
        for p, area in enumerate(view["melds"])
        for i, m in enumerate(area)
    ]
    naturals = [c for c in hand if RANK[c] not in wild]
    wilds = sorted((c for c in hand if RANK[c] in wild), key=lambda c: -card_points(c))
    for p, i, r, cards in table:
        fits = list(dict.fromkeys(c for c in hand if RANK[c] == r and c not in cards))
        if fits:
            return _lay_off(fits, p, i)
    by_rank: dict[int, list[str]] = {}
    for c in naturals:
        by_rank.setdefault(RANK[c], [])
        if c not in by_rank[RANK[c]]:
            by_rank[RANK[c]].append(c)
    for r, codes in sorted(by_rank.items(), key=lambda kv: (-len(kv[1]), -kv[0])):
        need = max(0, MIN_SET - len(codes))
        if need <= len(wilds):
            return {"type": "meld", "melds": [{"cards": [*codes, *wilds[:need]], "rank": r}]}
    for p, i, r, _ in table:
        # A wild card of the set's own rank is natural there: no second identical one.
        fits = [c for c in wilds if RANK[c] != r]
        if fits:
            return _lay_off(fits, p, i)
    return None


def _lay_off(cards: list[str], player: int, index: int) -> dict[str, Any]:
    return {"type": "lay_off", "cards": cards, "meld": {"player": player, "index": index}}


def _discard(
    view: dict[str, Any], hand: list[str], wild: frozenset[int], player: int, rng: random.Random
) -> str:
    """The least useful card: wild cards last; then a second copy of a card when one set is
    needed (identical naturals can't share a set); ranks with the fewest different cards; the
    next player's bought ranks and melded ranks avoided; the most points first."""
    n = view["players"]
    nxt = (player + 1) % n
    fed = {RANK[c] for c in view["bought"][nxt]}
    if view["opened"][nxt]:
        fed |= {m["rank"] for m in view["melds"][nxt]}
    copies = Counter(hand)
    suits = Counter(RANK[c] for c in copies)
    one_set = len(view["requirement"]["first_meld"]) == 1

    def cost(card: str) -> tuple[bool, bool, int, int]:
        r = RANK[card]
        useful = 0 if one_set and copies[card] > 1 else suits[r]
        return (r in wild, r in fed, useful, -card_points(card))

    costs = {c: cost(c) for c in hand}
    lowest = min(costs.values())
    choices = sorted(c for c, k in costs.items() if k == lowest)
    return choices[0] if len(choices) == 1 else rng.choice(choices)
