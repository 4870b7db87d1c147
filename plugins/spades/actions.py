"""Spades' moves as typed structs: the wire's ``{"type": "bid", "bid": 3}`` becomes
``Bid(bid=3)`` by one ``msgspec.convert`` in the flow's gate (:class:`plugins.base.Flow`).

A field the struct's type refuses is answered with the game's rejection for that field
(``SPADES_FLOW.fields`` in :mod:`plugins.spades.rules`); what the type cannot say (the card is in
the deck, the two passed cards differ) the handler checks.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from plugins.base import Action


class Bid(Action, frozen=True, tag="bid"):
    """Bid ``bid`` tricks, 0 (nil) to 13; ``blind`` for blind nil."""

    bid: Annotated[int, msgspec.Meta(ge=0, le=13)]
    blind: bool = False


class Look(Action, frozen=True, tag="look"):
    """Pick up cards dealt face down."""


class PassCards(Action, frozen=True, tag="pass_cards"):
    """Pass 2 cards to the partner after a blind nil bid."""

    cards: Annotated[tuple[str, ...], msgspec.Meta(min_length=2, max_length=2)]


class Play(Action, frozen=True, tag="play"):
    """Play ``card`` to the trick."""

    card: str


class Gather(Action, frozen=True, tag="gather"):
    """The game's own move: the finished trick goes to its winner."""


class NextDeal(Action, frozen=True, tag="next_deal"):
    """Start the next deal once a deal is scored."""


SpadesAction = Bid | Look | PassCards | Play | Gather | NextDeal
