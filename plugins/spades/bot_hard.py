"""The ``hard`` Spades computer: ``normal``'s bidding and play, plus counting and nil defence.

``choose_action(engine, state, player, rng)`` has the bot signature of :mod:`plugins.game` and
reads only ``engine.view(state, player)``: its hand, the bids and the cards played so far
(``played``, ``trick``) - never another hand.

**Bidding.** As ``normal`` (:mod:`plugins.spades.bot`: the same trick estimate, the same nil
and blind nil choices), but a little lower: the estimate less 0.4, rounded. A set costs ten
times the bid, an overtrick one point and a bag; measured against ``normal`` over 400
duplicate games, shifts of -0.15 to -0.6 all won more (the best, -0.4: 247 of 400) and +0.3
won less (133 of 400). In play it adds:

* **Voids.** A player who did not follow the suit led holds none of it; the bot reads every
  finished trick and the current one for that.
* **Ruff-aware winners.** A top card of a side suit is not a sure winner while an opponent still
  to play is void in it and may hold spades: the bot neither cashes such a card on the lead nor
  leaves a partner's top card to be ruffed. It leads a suit its partner is void in (the partner
  ruffs) when no opponent behind is known to be void too.
* **Nil defence.** Against an opponent's live nil it leads its lowest card of a suit the nil
  bidder still holds, and plays under the nil bidder's winning card (its highest card that still
  loses); when the nil bidder plays after it, it plays low, so the nil bidder is left the
  trick. The nil defence gives way once setting the nil would cost its own contract.

Everything else is ``normal``'s play (:func:`plugins.spades.bot.choose_card`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import plugins.spades.bot as normal
from plugins.base import Engine
from plugins.cards import rank_high, suit
from plugins.spades.bot import _is_boss, _low, _need, _winning, beats

SPADE = "S"
BID_SHIFT = -0.4  # measured: -0.6, -0.3, -0.15 and +0.3 won less against normal


def choose_action(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The hard bot's move for ``player``, or ``None`` if it has nothing to do now."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return None
    view = engine.view(state, player)
    if view["phase"] == "bidding" and not view["hand_hidden"] and view["turn"] == player:
        action = normal.choose_action(engine, state, player, rng)
        if action is not None and action.get("bid"):  # not nil: bid a little lower
            return {"type": "bid", "bid": hard_bid(view["hand"], view["bids"][(player + 2) % 4])}
        return action
    if view["phase"] != "playing":
        return normal.choose_action(engine, state, player, rng)
    cards = [a["card"] for a in legal if a["type"] == "play"]
    return {"type": "play", "card": choose_card(view, player, cards, rng)}


def hard_bid(hand: Sequence[str], partner_bid: int | None) -> int:
    """``normal``'s trick estimate less :data:`BID_SHIFT`, rounded (at least 1, and at most
    what the partner's bid leaves)."""
    bid = max(1, min(13, round(normal.estimate_tricks(hand) + BID_SHIFT)))
    if partner_bid:
        bid = max(1, min(bid, 13 - partner_bid))
    return bid


def voids(view: dict[str, Any]) -> dict[int, set[str]]:
    """The suits each player has shown out of this deal."""
    out: dict[int, set[str]] = {p: set() for p in range(4)}
    tricks = [[(t["leader"] + i) % 4 for i in range(4)] for t in view["played"]]
    for order, t in zip(tricks, view["played"], strict=True):
        led = suit(t["cards"][0])
        for p, c in zip(order, t["cards"], strict=True):
            if suit(c) != led:
                out[p].add(led)
    trick = view["trick"]
    if trick:
        led = suit(trick[0]["card"])
        for t in trick[1:]:
            if suit(t["card"]) != led:
                out[t["player"]].add(led)
    return out


def _ruffable(card_suit: str, by: Sequence[int], void: dict[int, set[str]]) -> bool:
    """One of ``by`` is void in ``card_suit`` and may still trump."""
    return card_suit != SPADE and any(card_suit in void[p] and SPADE not in void[p] for p in by)


def choose_card(view: dict[str, Any], player: int, cards: list[str], rng: random.Random) -> str:
    """The card to play among the legal ``cards``."""
    if len(cards) == 1:
        return cards[0]
    partner = (player + 2) % 4
    opponents = [(player + 1) % 4, (player + 3) % 4]
    bids, taken = view["bids"], view["tricks_taken"]
    trick = view["trick"]
    void = voids(view)
    gone = set(view["hand"])
    for t in view["played"]:
        gone.update(t["cards"])
    gone.update(t["card"] for t in trick)
    my_nil = bids[player] == 0 and taken[player] == 0
    partner_nil = bids[partner] == 0 and taken[partner] == 0
    if my_nil or partner_nil:
        return normal.choose_card(view, player, cards, rng)
    need = _need(bids, taken, [player, partner])
    left = len(view["hand"])  # tricks still to play
    nils = [p for p in opponents if bids[p] == 0 and taken[p] == 0]
    if nils and need < left - 1:
        defence = _nil_defence(nils[0], trick, cards, void)
        if defence is not None:
            return defence
    played_by = {t["player"] for t in trick}
    behind = [p for p in opponents if p not in played_by]
    if not trick:
        lead = _lead(cards, gone, void, partner, opponents, need, view, rng)
        return lead or normal.choose_card(view, player, cards, rng)
    win_player, win_card = _winning(trick)
    led = suit(trick[0]["card"])
    if win_player == partner and behind and _ruffable(led, behind, void) and suit(win_card) == led:
        # The partner's top card may be trumped: trump it ourselves if we need the trick.
        winners = [c for c in cards if beats(c, win_card)]
        if need > 0 and winners and suit(winners[0]) == SPADE:
            return _low(winners)
    if len(trick) == 1 and need > 0:
        # Second hand low: a winner that is not the top card of the suit led would only be
        # overtaken by the fourth hand; the partner plays after us.
        winners = [c for c in cards if beats(c, win_card)]
        led_winners = [c for c in winners if suit(c) == led]
        if led_winners and not any(_is_boss(c, gone) for c in led_winners):
            return _low(cards)
    return normal.choose_card(view, player, cards, rng)


def _lead(
    cards: list[str],
    gone: set[str],
    void: dict[int, set[str]],
    partner: int,
    opponents: list[int],
    need: int,
    view: dict[str, Any],
    rng: random.Random,
) -> str | None:
    """A lead better than ``normal``'s, or ``None`` to lead as ``normal`` does."""
    side = [c for c in cards if suit(c) != SPADE]
    if need <= 0:
        return None
    # A suit the partner is void in and the opponents are not known to be: the partner ruffs.
    for c in sorted(side, key=lambda c: (rank_high(c), c)):
        s = suit(c)
        if s in void[partner] and SPADE not in void[partner] and not _ruffable(s, opponents, void):
            return c
    bosses = [c for c in side if _is_boss(c, gone)]
    safe = [c for c in bosses if not _ruffable(suit(c), opponents, void)]
    if bosses and not safe:
        # Every side-suit top card would be trumped: lead low in a suit nobody is void in.
        plain = [c for c in side if not _ruffable(suit(c), opponents, void)]
        if plain:
            return _low(plain)
    if safe:
        return rng.choice(sorted(safe))
    return None


def _nil_defence(
    nil: int, trick: list[dict[str, Any]], cards: list[str], void: dict[int, set[str]]
) -> str | None:
    """Leave the trick to the opponent who bid nil (see the module docstring)."""
    if not trick:
        held = [c for c in cards if suit(c) not in void[nil]]
        plain = [c for c in held if suit(c) != SPADE] or held or cards
        return min(plain, key=lambda c: (rank_high(c), c))
    win_player, win_card = _winning(trick)
    losers = [c for c in cards if not beats(c, win_card)]
    if any(t["player"] == nil for t in trick):
        if win_player == nil and losers:
            return max(losers, key=lambda c: (rank_high(c) + (13 if suit(c) == SPADE else 0), c))
        return None
    return _low(losers or cards)
