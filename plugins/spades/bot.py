"""A sensible Spades computer player that plays from what its seat may see.

``choose_action(engine, state, player, rng)`` returns one of ``engine.legal_actions(state,
player)`` or ``None`` when the player has nothing to do (or waits: a player planning blind nil
does not look at the cards out of turn). It reads only ``engine.view(state, player)`` (its own
hand, the bids, the cards played so far) and the legal actions - never another hand - and uses
``rng`` only to break ties, so it is deterministic for a given ``rng``.

Bidding: count likely winners - high spades (the king needs one more spade, the queen two),
long spades, aces, kings with cover, queens in three-card suits, and ruffs from short side suits
when spades are spare. Bid nil with a weak hand (no ace, no spade above the 10, at most three
spades, under 1.2 estimated tricks) unless the partner already bid nil. Blind nil (when
offered) only when the side trails by 200 or more.

Play: a nil bidder plays the highest card that still loses (or the lowest when every card
wins); the partner of a live nil bidder plays high to take the tricks the nil bidder would
otherwise win, and overtakes the nil bidder's winning card. Otherwise: while the side still
needs tricks (or the opponents can still be set), cash sure winners when leading, win as
cheaply as possible when an opponent holds the trick, duck when the partner is winning, and
throw the lowest card of another suit when void and not trumping; once both contracts are
made, avoid bags: lead low, duck, and dump high cards when void.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from plugins.base import Engine
from plugins.cards import SUITS, rank_high, suit

SPADE = "S"
SIDE_SUITS = "CDH"
NIL_LIMIT = 1.2
BLIND_NIL_TRAIL = 200


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The bot's move for ``player``, or ``None`` if it has nothing to do now."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    kinds = {a["type"] for a in legal}
    if "next_deal" in kinds:
        return {"type": "next_deal"}
    view = engine.view(state, player)
    phase = view["phase"]
    if phase == "bidding":
        return _bidding(view, player, legal)
    if phase == "exchange":
        return _exchange(view, player)
    if phase == "playing":
        cards = [a["card"] for a in legal if a["type"] == "play"]
        return {"type": "play", "card": choose_card(view, player, cards, rng)}
    return rng.choice(legal)


# ------------------------------------------------------------------------------ bidding


def _bidding(
    view: dict[str, Any], player: int, legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    blind = {"type": "bid", "bid": 0, "blind": True}
    if view["hand_hidden"]:
        if _wants_blind_nil(view, player):
            return blind if blind in legal else None
        return {"type": "look"}
    if view["turn"] != player:
        return None
    hand: list[str] = view["hand"]
    partner_bid = view["bids"][(player + 2) % 4]
    if partner_bid != 0 and wants_nil(hand):
        return {"type": "bid", "bid": 0}
    bid = max(1, min(13, round(estimate_tricks(hand))))
    if partner_bid:
        bid = max(1, min(bid, 13 - partner_bid))
    return {"type": "bid", "bid": bid}


def _wants_blind_nil(view: dict[str, Any], player: int) -> bool:
    side = player % 2
    scores = view["scores"]
    partner_bid = view["bids"][(player + 2) % 4]
    return scores[1 - side] - scores[side] >= BLIND_NIL_TRAIL and partner_bid != 0


def _suits(hand: Sequence[str]) -> dict[str, list[int]]:
    """Ranks (ace 14) per suit, highest first."""
    out: dict[str, list[int]] = {s: [] for s in SUITS}
    for c in hand:
        out[suit(c)].append(rank_high(c))
    for ranks in out.values():
        ranks.sort(reverse=True)
    return out


def estimate_tricks(hand: Sequence[str]) -> float:
    """How many tricks the hand should take (see the module docstring)."""
    suits = _suits(hand)
    spades = suits[SPADE]
    n_spades = len(spades)
    total = 0.0
    honours = 0
    for r in spades:
        if r == 14 or (r == 13 and n_spades >= 2) or (r == 12 and n_spades >= 3):
            total += 1.0
            honours += 1
        elif r == 11 and n_spades >= 4:
            total += 0.5
            honours += 1
    total += 0.8 * max(0, n_spades - max(3, honours))
    spare = max(0, n_spades - honours - 1)
    for s in SIDE_SUITS:
        ranks = suits[s]
        n = len(ranks)
        if 14 in ranks:
            total += 1.0 if n <= 6 else 0.5
        if 13 in ranks and 2 <= n <= 5:
            total += 0.8 if 14 in ranks else 0.6
        if 12 in ranks and 3 <= n <= 4:
            total += 0.4
        if spare > 0 and n <= 1:
            ruffs = min(spare, 2 - n)
            total += 0.7 * ruffs
            spare -= ruffs
        elif spare > 0 and n == 2:
            total += 0.3
    return total


def wants_nil(hand: Sequence[str]) -> bool:
    """A very weak hand: no ace, low and few spades, little else."""
    suits = _suits(hand)
    spades = suits[SPADE]
    if len(spades) > 3 or (spades and spades[0] > 10):
        return False
    if any(14 in suits[s] for s in SIDE_SUITS):
        return False
    if any(len(suits[s]) <= 2 and suits[s] and suits[s][0] >= 12 for s in SIDE_SUITS):
        return False
    return estimate_tricks(hand) < NIL_LIMIT


def _exchange(view: dict[str, Any], player: int) -> dict[str, Any]:
    """The blind nil bidder passes its two most dangerous cards; the partner its two safest."""
    hand: list[str] = view["hand"]
    if view["exchange"]["blind"] == player:
        chosen = sorted(hand, key=lambda c: (suit(c) == SPADE, rank_high(c)), reverse=True)[:2]
    else:
        chosen = sorted(hand, key=lambda c: (suit(c) == SPADE, rank_high(c)))[:2]
    return {"type": "pass_cards", "cards": [c for c in hand if c in chosen]}


# --------------------------------------------------------------------------------- play


def beats(card: str, best: str) -> bool:
    if suit(card) == suit(best):
        return rank_high(card) > rank_high(best)
    return suit(card) == SPADE


def _winning(trick: list[dict[str, Any]]) -> tuple[int, str]:
    best = trick[0]
    for t in trick[1:]:
        if beats(t["card"], best["card"]):
            best = t
    return best["player"], best["card"]


def _low(cards: Sequence[str]) -> str:
    """The cheapest card: lowest rank, a non-spade before a spade."""
    return min(cards, key=lambda c: (rank_high(c) + (13 if suit(c) == SPADE else 0), c))


def _high(cards: Sequence[str]) -> str:
    return max(cards, key=lambda c: (rank_high(c) + (13 if suit(c) == SPADE else 0), c))


def _is_boss(card: str, gone: set[str]) -> bool:
    """No higher card of its suit is still out in the other hands."""
    return all(f"{suit(card)}{1 if r == 14 else r}" in gone for r in range(rank_high(card) + 1, 15))


def choose_card(view: dict[str, Any], player: int, cards: list[str], rng: random.Random) -> str:
    """The card to play among the legal ``cards``."""
    if len(cards) == 1:
        return cards[0]
    partner = (player + 2) % 4
    bids = view["bids"]
    taken = view["tricks_taken"]
    my_nil = bids[player] == 0 and taken[player] == 0
    partner_nil = bids[partner] == 0 and taken[partner] == 0
    side = [player, partner]
    others = [(player + 1) % 4, (player + 3) % 4]
    need = _need(bids, taken, side)
    opp_need = _need(bids, taken, others)
    want = need > 0 or opp_need > 0
    gone = set(view["hand"])
    for t in view["played"]:
        gone.update(t["cards"])
    trick = view["trick"]
    gone.update(t["card"] for t in trick)

    if not trick:
        return _lead(cards, gone, my_nil, partner_nil, want, rng)

    win_player, win_card = _winning(trick)
    last = len(trick) == 3
    winners = [c for c in cards if beats(c, win_card)]
    losers = [c for c in cards if c not in winners]
    partner_played = any(t["player"] == partner for t in trick)

    if my_nil:
        if losers:
            return max(losers, key=lambda c: (rank_high(c), c))
        return _high(cards) if last else _low(cards)
    if partner_nil:
        if not partner_played:
            return _high(winners) if winners else _low(cards)
        if win_player == partner:
            return _low(winners) if winners else _low(cards)
    if win_player == partner and (last or _is_boss(win_card, gone)):
        return _discard(losers or cards, want)
    if want and winners:
        led = suit(trick[0]["card"])
        if last:
            return _low(winners)
        bosses = [c for c in winners if suit(c) == led and _is_boss(c, gone)]
        if bosses:
            return _low(bosses)
        return _low(winners)
    return _discard(losers or cards, want)


def _need(bids: Sequence[int | None], taken: Sequence[int], side: Sequence[int]) -> int:
    contract = sum(b for p in side if (b := bids[p]) is not None and b > 0)
    counted = sum(taken[p] for p in side if bids[p])
    return contract - counted


def _discard(cards: Sequence[str], want: bool) -> str:
    """Keep winners while tricks are needed; otherwise dump the high cards."""
    side = [c for c in cards if suit(c) != SPADE] or list(cards)
    return _low(side) if want else _high(side)


def _lead(
    cards: list[str],
    gone: set[str],
    my_nil: bool,
    partner_nil: bool,
    want: bool,
    rng: random.Random,
) -> str:
    if my_nil:
        return _low(cards)
    bosses = [c for c in cards if _is_boss(c, gone)]
    if partner_nil:
        return _high(bosses) if bosses else _high(cards)
    if not want:
        return _low(cards)
    side_bosses = [c for c in bosses if suit(c) != SPADE]
    if side_bosses:
        return rng.choice(sorted(side_bosses))
    if bosses:
        return _high(bosses)
    side = [c for c in cards if suit(c) != SPADE]
    if not side:
        return _low(cards)
    by_suit: dict[str, list[str]] = {}
    for c in side:
        by_suit.setdefault(suit(c), []).append(c)
    longest = max(len(v) for v in by_suit.values())
    longest_suit = min(s for s, v in by_suit.items() if len(v) == longest)
    return _low(by_suit[longest_suit])
