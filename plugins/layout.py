"""Places round the table for bindings: where each player sits and how to put things near them.

A slot is ``(x, y, fx, fy)``: a player's place on the 1600 x 1000 table and the unit vector
from it towards the middle. Slot 0 is at the bottom; the others follow clockwise. Bindings lay
the table out with player ``p`` at ``slots(n)[p]`` and mark what belongs to ``p`` with
``owner=p``; each page then turns the table so that its own player sits at the bottom.
"""

from __future__ import annotations

Slot = tuple[float, float, float, float]

BOTTOM: Slot = (800.0, 880.0, 0.0, -1.0)
LEFT: Slot = (130.0, 500.0, 1.0, 0.0)
TOP: Slot = (800.0, 120.0, 0.0, 1.0)
RIGHT: Slot = (1470.0, 500.0, -1.0, 0.0)
_BY_COUNT: dict[int, tuple[Slot, ...]] = {
    1: (BOTTOM,),
    2: (BOTTOM, TOP),
    3: (BOTTOM, LEFT, RIGHT),
    4: (BOTTOM, LEFT, TOP, RIGHT),
}


def slots(players: int) -> tuple[Slot, ...]:
    return _BY_COUNT[players]


def at(slot: Slot, forward: float, side: float) -> tuple[float, float]:
    """The point ``forward`` units from the place towards the middle and ``side`` units to the
    player's right."""
    x, y, fx, fy = slot
    return x + forward * fx - side * fy, y + forward * fy + side * fx
