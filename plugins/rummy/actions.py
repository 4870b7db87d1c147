"""Rummy's moves as typed structs: the wire's ``{"type": "meld", "cards": [...]}`` becomes
``Meld(cards=(...))`` by one ``msgspec.convert`` in the flow's gate (:class:`plugins.base.Flow`).

A field the struct's type refuses is answered with the game's rejection for that field (the
flow's ``fields`` in :mod:`plugins.rummy.rules`); what the type cannot say (the card exists and
is in the hand, the meld number is on the table) the handler checks.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from plugins.base import Action


class Draw(Action, frozen=True, tag="draw"):
    """Draw from the stock or the discard pile."""

    source: Literal["stock", "discard"]


class Meld(Action, frozen=True, tag="meld"):
    """Lay ``cards`` down as a new meld."""

    cards: Annotated[tuple[str, ...], msgspec.Meta(min_length=1)]


class LayOff(Action, frozen=True, tag="lay_off"):
    """Add ``card`` to meld number ``meld`` on the table."""

    card: str
    meld: int


class Discard(Action, frozen=True, tag="discard"):
    """Discard ``card``, ending the turn (or going out with the last card)."""

    card: str


class NextHand(Action, frozen=True, tag="next_hand"):
    """Deal the next hand."""


RummyAction = Draw | Meld | LayOff | Discard | NextHand
