"""Where a spread row goes: a pile turned into a row is laid where it covers nothing else.

The page draws a row from the stack's top-left corner to the right, its cards ``step`` apart:
a stack whose ``w`` leaves each card at least ``FAN_MIN`` fans over that width (at most
``FAN``), any other as widely as the room to the table's right edge allows (web/src/table/
board.ts, ``fanStep``). :func:`place_row` picks the spot: where the pile is (the row runs to the
right), else the nearest free spot below, to the left, above, sliding along the table first
at full spacing and then with the cards closer together (down to ``FAN_MIN``), always inside
the table. A plain pile keeps the chosen spacing in its ``w``; a zone keeps its own size.
When no spot is free the row stays where the pile is.
"""

from __future__ import annotations

from collections.abc import Iterator

from plugins.layout import CARD_H, CARD_W, FAN, FAN_MIN, GAP, meld_width
from server.table.objects import (
    TABLE_H,
    TABLE_W,
    Board,
    Button,
    Card,
    Chips,
    Counter,
    Die,
    Hand,
    Label,
    Stack,
    Table,
)

EDGE = 16.0  # the page keeps a row this far from the table's right edge
STEP = 10.0  # how far apart the spots tried are
TRIES = 4000  # spots tried at most (a crowded table of 1,500 objects stays quick)
WIDGETS: dict[type, tuple[float, float]] = {
    Chips: (96.0, 96.0),
    Counter: (150.0, 66.0),
    Die: (64.0, 64.0),
    Label: (200.0, 40.0),
}

Rect = tuple[float, float, float, float]  # x, y, w, h


def room_step(n: int, x: float) -> float:
    """The spacing the page gives ``n`` cards of a row at ``x`` that has no width of its own."""
    if n < 2:
        return FAN
    return max(FAN_MIN, min(FAN, (TABLE_W - EDGE - x - CARD_W) / (n - 1)))


def row_box(s: Stack) -> Rect:
    """The box a stack covers as the page draws it."""
    n = len(s.cards)
    if s.layout != "row":
        return s.x, s.y, max(s.w, CARD_W), max(s.h, CARD_H)
    in_zone = (s.w - CARD_W) / (n - 1) if n > 1 and s.w else 0.0
    step = min(FAN, in_zone) if in_zone >= FAN_MIN else room_step(n, s.x)
    return s.x, s.y, max(s.w, meld_width(n, step)), max(s.h, CARD_H)


def obstacles(table: Table, skip: str) -> list[Rect]:
    """Every box on the felt but the stack ``skip`` (its cards lie inside it)."""
    out: list[Rect] = []
    for o in table.objects.values():
        if o.id == skip or isinstance(o, Hand | Board):
            continue
        if isinstance(o, Card):
            if o.parent is None:
                out.append((o.x, o.y, CARD_W, CARD_H))
        elif isinstance(o, Stack):
            out.append(row_box(o))
        elif isinstance(o, Button):
            out.append((o.x, o.y, o.w, o.h))
        elif type(o) in WIDGETS:
            w, h = WIDGETS[type(o)]
            out.append((o.x, o.y, w, h))
    return out


def _free(box: Rect, others: list[Rect]) -> bool:
    x, y, w, h = box
    if x < 0 or y < 0 or x + w > TABLE_W - EDGE + 0.01 or y + h > TABLE_H:
        return False
    return not any(
        x < bx + bw + GAP and x + w + GAP > bx and y < by + bh + GAP and y + h + GAP > by
        for bx, by, bw, bh in others
    )


def _spots(s: Stack, width: float) -> Iterator[tuple[float, float]]:
    """Top-left corners for a row ``width`` wide, best first: right of the pile's corner (where
    it is, then sliding right), below, to the left, above (each nearest first, sliding along)."""
    x0, y0 = s.x, s.y
    yield x0, y0
    x = x0 + STEP
    while x + width <= TABLE_W - EDGE:
        yield x, y0
        x += STEP
    ys_below = _range(y0 + CARD_H + GAP, TABLE_H - CARD_H, STEP)
    ys_above = _range(y0 - CARD_H - GAP, 0.0, -STEP)
    for ys in (ys_below, None, ys_above):
        if ys is None:  # to the left: the row ends left of the pile
            x = min(x0 - GAP - width, TABLE_W - EDGE - width)
            while x >= 0:
                yield x, y0
                x -= STEP
            continue
        for y in ys:
            for x in _along(x0, width):
                yield x, y


def _range(start: float, stop: float, step: float) -> list[float]:
    out = []
    v = start
    while (step > 0 and v <= stop) or (step < 0 and v >= stop):
        out.append(v)
        v += step
    return out


def _along(x0: float, width: float) -> list[float]:
    """x positions for a row on another line: under/over the pile first, then ever further."""
    hi = TABLE_W - EDGE - width
    if hi < 0:
        return []
    start = min(max(x0, 0.0), hi)
    out = [start]
    d = STEP
    while start - d >= 0 or start + d <= hi:
        if start + d <= hi:
            out.append(start + d)
        if start - d >= 0:
            out.append(start - d)
        d += STEP * 4
    return out


def place_row(table: Table, s: Stack) -> tuple[float, float, float | None]:
    """Where stack ``s`` goes as a row: its new corner and, for a plain pile, the width that
    sets its spacing (``None``: a zone keeps its width; the spacing follows from where it is)."""
    n = len(s.cards)
    # Nearest first: a spot next to the pile is most often ruled out by a neighbour.
    others = sorted(obstacles(table, s.id), key=lambda b: abs(b[0] - s.x) + abs(b[1] - s.y))
    tries = 0
    for step in (FAN, 24.0, 18.0, FAN_MIN):
        width = meld_width(n, step)
        for x, y in _spots(s, width):
            tries += 1
            if tries > TRIES:
                return s.x, s.y, None if s.holder else s.w
            if s.holder:
                real = max(s.w, meld_width(n, room_step(n, x)))
                if real > width + 0.01:  # the page would fan it wider here than this pass
                    continue
                box = (x, y, real, max(s.h, CARD_H))
            else:
                box = (x, y, width, max(s.h, CARD_H))
            if _free(box, others):
                return x, y, None if s.holder else width
    return s.x, s.y, None if s.holder else s.w


def lay_row(table: Table, s: Stack) -> None:
    """Stack ``s`` has just been spread: move it where its row covers nothing (see
    :func:`place_row`). A locked stack stays put, and so does a zone wide enough to hold the row
    (the page fans it inside) or a row of one card."""
    n = len(s.cards)
    if n < 2 or s.locked or (s.holder and s.w and (s.w - CARD_W) / (n - 1) >= FAN_MIN):
        return
    x, y, w = place_row(table, s)
    if (x, y) != (s.x, s.y):
        s.spread = [s.x, s.y, x, y]
    s.x, s.y = x, y
    if w is not None:
        s.w = w


def gather_row(s: Stack) -> None:
    """Stack ``s`` has just been gathered from a row into a pile: back where it was before the
    spread moved it, if nobody moved it since; a plain pile drops the width that spaced its row."""
    if s.spread and [s.x, s.y] == s.spread[2:]:
        s.x, s.y = s.spread[0], s.spread[1]
    s.spread = []
    if not s.holder:
        s.w = 0.0
