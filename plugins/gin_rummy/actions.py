"""Gin Rummy's moves as typed structs: the wire's ``{"type": "discard", "card": "H5"}`` becomes
``Discard(card="H5")`` by one ``msgspec.convert`` in the flow's gate
(:class:`plugins.base.Flow`).

A field the struct's type refuses is answered with the game's rejection for that field (the
flow's ``fields`` in :mod:`plugins.gin_rummy.rules`); what the type cannot say (the card exists,
is in the hand, the meld number is one of the knocker's melds) the handler checks.
"""

from __future__ import annotations

from typing import Literal

from plugins.base import Action


class TakeUpcard(Action, frozen=True, tag="take_upcard"):
    """First turn: take the face-up card."""


class Pass(Action, frozen=True, tag="pass"):
    """First turn: pass on the face-up card."""


class Draw(Action, frozen=True, tag="draw"):
    """Draw from the stock or the discard pile."""

    source: Literal["stock", "discard"]


class Discard(Action, frozen=True, tag="discard"):
    """Discard ``card``, ending the turn."""

    card: str


class Knock(Action, frozen=True, tag="knock"):
    """Knock, discarding ``card``; ``melds`` is the knocker's own layout (``None``: the best)."""

    card: str
    melds: tuple[tuple[str, ...], ...] | None = None


class BigGin(Action, frozen=True, tag="big_gin"):
    """Declare Big Gin: all 11 cards in melds."""


class LayOff(Action, frozen=True, tag="lay_off"):
    """Lay ``card`` off onto the knocker's meld number ``meld``."""

    card: str
    meld: int


class FinishLayoff(Action, frozen=True, tag="finish_layoff"):
    """Done laying off: the hand is scored."""


class NextHand(Action, frozen=True, tag="next_hand"):
    """Deal the next hand."""


GinAction = TakeUpcard | Pass | Draw | Discard | Knock | BigGin | LayOff | FinishLayoff | NextHand
