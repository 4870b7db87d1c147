"""Places round the table for bindings: where each player sits and how to put things near them.

A slot is ``(x, y, fx, fy)``: a player's place on the 1600 x 1000 table and the unit vector
from it towards the middle. Slot 0 is at the bottom; the others follow clockwise. Bindings lay
the table out with player ``p`` at ``slots(n)[p]`` and mark what belongs to ``p`` with
``owner=p``; each page then turns the table so that its own player sits at the bottom.
"""

from __future__ import annotations

from collections.abc import Sequence

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


# --- rows of melds --------------------------------------------------------------------------
#
# A meld is a fanned row zone exactly as wide as its cards: CARD_W plus a step per further card
# (the page fans a row zone's cards over its width when that gives each at least FAN_MIN, see
# web/src/table/board.ts stackBox). Melds are flowed along rows (segments), biggest step first;
# when they do not all fit, every step shrinks (down to FAN_MIN) until they do.

CARD_W = 100.0
CARD_H = 140.0
FAN = 32.0
FAN_MIN = 12.0
GAP = 8.0
STEPS = (32.0, 26.0, 21.0, 17.0, 14.0, 12.0)
"""The fan steps tried, widest first."""

Segment = tuple[float, float, float]
"""Where melds may go: ``(across, lo, hi)``: the row's centre line and its span along it."""


def meld_width(cards: int, step: float) -> float:
    """The width of a row zone of ``cards`` cards fanned ``step`` apart."""
    return CARD_W + max(0, cards - 1) * step


def flow(
    sizes: Sequence[int],
    segments: Sequence[Segment],
    *,
    max_w: float = float("inf"),
    square: bool = False,
) -> list[tuple[float, float, float]]:
    """Melds of ``sizes`` cards laid along ``segments`` in order: each as ``(along, across,
    width)``, its centre and width. ``max_w`` caps a meld's width (its step shrinks, never under
    FAN_MIN). ``square``: each takes as much room along the row as it is wide or tall, whichever
    is more, so that the layout still holds when the page turns a player's things to another
    side of the table (boxes move by their centres and never turn). Melds that fit nowhere even
    at FAN_MIN go on past the last segment's end."""
    placed: list[tuple[float, float, float]] = []
    for step in STEPS:
        placed = fill(sizes, segments, step, max_w, square)
        if len(placed) == len(sizes):
            return placed
    if not segments:
        return placed
    across, _, hi = segments[-1]
    at = max((a + room(w, square) / 2 for a, c, w in placed if c == across), default=hi)
    for n in sizes[len(placed) :]:
        w = _width(n, FAN_MIN, max_w)
        placed.append((at + GAP + room(w, square) / 2, across, w))
        at += GAP + room(w, square)
    return placed


def _width(cards: int, step: float, max_w: float) -> float:
    if cards > 1 and meld_width(cards, step) > max_w:
        step = max(FAN_MIN, (max_w - CARD_W) / (cards - 1))
    return meld_width(cards, step)


def room(width: float, square: bool) -> float:
    """The room a meld this wide takes along its row (see :func:`flow`'s ``square``)."""
    return max(width, CARD_H) if square else width


def fill(
    sizes: Sequence[int], segments: Sequence[Segment], step: float, max_w: float, square: bool
) -> list[tuple[float, float, float]]:
    """:func:`flow` at one fan step: as many melds as fit, in order."""
    out: list[tuple[float, float, float]] = []
    k = 0
    if not segments:
        return out
    across, at, hi = segments[0]
    for n in sizes:
        w = _width(n, step, max_w)
        took = room(w, square)
        while at + took > hi:
            k += 1
            if k == len(segments):
                return out
            across, at, hi = segments[k]
        out.append((at + took / 2, across, w))
        at += took + GAP
    return out
