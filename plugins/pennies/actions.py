"""Pennies' moves as typed structs: the wire's
``{"type": "meld", "melds": [{"cards": ["H5", "S5", "J1"]}]}`` becomes
``Meld(melds=(SetSpec(cards=("H5", "S5", "J1")),))`` by one ``msgspec.convert`` in the flow's
gate (:class:`plugins.base.Flow`).

A field the struct's type refuses is answered with the game's rejection for that field (the
flow's ``fields`` in :mod:`plugins.pennies.rules`, which says which part is wrong); what the
type cannot say (the cards exist and are held, the set is a set, the meld is on the table) the
handlers check.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from plugins.base import Action


class SetSpec(msgspec.Struct, frozen=True):
    """One set to lay down: its ``cards`` and, when they could be two ranks, the ``rank`` the
    player names (1 ace to 13 king)."""

    cards: tuple[str, ...]
    rank: Annotated[int, msgspec.Meta(ge=1, le=13)] | None = None


class MeldRef(msgspec.Struct, frozen=True):
    """A meld on the table: meld number ``index`` of ``player``'s area."""

    player: int
    index: int


class Buy(Action, frozen=True, tag="buy"):
    """Pay a penny for the top discard (with 2 stock cards)."""


class Decline(Action, frozen=True, tag="decline"):
    """Leave the top discard to the others and draw from the stock."""


class Pass(Action, frozen=True, tag="pass"):
    """Decline the discard offered out of turn (the game passes for a player who lets it lapse)."""


class Meld(Action, frozen=True, tag="meld"):
    """Lay down ``melds``, one or more sets."""

    melds: Annotated[tuple[SetSpec, ...], msgspec.Meta(min_length=1)]


class LayOff(Action, frozen=True, tag="lay_off"):
    """Add ``cards`` to the meld ``meld``."""

    meld: MeldRef
    cards: Annotated[tuple[str, ...], msgspec.Meta(min_length=1)]


class Discard(Action, frozen=True, tag="discard"):
    """Discard ``card``, ending the turn."""

    card: str


class NextRound(Action, frozen=True, tag="next_round"):
    """Deal the next round."""


PenniesAction = Buy | Decline | Pass | Meld | LayOff | Discard | NextRound
