"""Pennies and Rummy hold together on the table: seeded bot self-play with 2, 3 and 4 players to
states with many melds (and long runs), and at every meld or lay-off the table as each player's
page draws it (owned zones and markers moved to that viewer's frame, as
web/src/table/seating.ts seatView does) has no two boxes overlapping and every box inside the
1600 x 1000 table: melds, "New meld", the zones' names over them, the stock, the discard and
spent piles, the pennies, the contract label and the other players' hands drawn at their places.

Boxes are the page's (web/src/table/board.ts): a row zone as wide as ``max(w, fan)`` with the
fan's step ``(w - CARD_W) / (n - 1)`` capped at 32 when that is at least 12 (else it spreads
towards the table's right edge), at least CARD_H tall; widgets by their fixed sizes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from plugins.base import Projection
from plugins.pennies import ENGINE as PENNIES
from plugins.pennies import choose_action as pennies_bot
from plugins.pennies.binding import BINDING as PENNIES_BINDING
from plugins.rummy import ENGINE as RUMMY
from plugins.rummy import choose_action as rummy_bot
from plugins.rummy.binding import BINDING as RUMMY_BINDING
from plugins.simulate import drive

TABLE_W, TABLE_H = 1600.0, 1000.0
CARD_W, CARD_H = 100.0, 140.0
FAN, FAN_MIN = 32.0, 12.0
LABEL_H = 32.0  # a zone's name over it (the phone's ZONE_LABEL_H, the larger)
WIDGETS = {"chips": (96.0, 96.0), "counter": (150.0, 66.0), "label": (200.0, 40.0)}
HAND_FAN = (226.0, 100.0)  # 13 backs fanned and turned (render.ts fans), measured in the page
Box = tuple[str, float, float, float, float]


def fan_width(x: float, w: float, n: int, row: bool) -> float:
    if not row or n < 2:
        return CARD_W
    step = (w - CARD_W) / (n - 1) if w else 0.0
    if step >= FAN_MIN:
        step = min(FAN, step)
    else:
        step = max(FAN_MIN, min(FAN, (TABLE_W - 16 - x - CARD_W) / (n - 1)))
    return CARD_W + (n - 1) * step


def frames(slots: Any) -> list[tuple[float, float, float, float]]:
    out = []
    for x, y, fx, fy in slots:
        d = math.hypot(fx, fy)
        out.append((x, y, fx / d, fy / d))
    return out


def move(src: Any, dst: Any, box: Box) -> Box:
    """seating.ts moveBox: the centre keeps its offset from the place, the box does not turn."""
    name, x, y, w, h = box
    dx, dy = x + w / 2 - src[0], y + h / 2 - src[1]
    f = dx * src[2] + dy * src[3]
    s = -dx * src[3] + dy * src[2]
    cx = dst[0] + f * dst[2] - s * dst[3]
    cy = dst[1] + f * dst[3] + s * dst[2]
    return name, cx - w / 2, cy - h / 2, w, h


def boxes(proj: Projection, me: int) -> list[Box]:
    """What player ``me``'s page draws on the table."""
    places = frames(proj.slots)
    n = len(places)
    out: list[Box] = []
    owned: list[tuple[int | None, Box]] = []
    for z in proj.zones:
        w = max(z.w, fan_width(z.x, z.w, len(z.faces), z.layout == "row"))
        h = max(z.h, CARD_H)
        top = LABEL_H if z.label else 0.0
        owned.append((z.owner, (z.id, z.x, z.y - top, w, h + top)))
    for m in proj.markers:
        w, h = WIDGETS[m.kind]
        owned.append((m.owner, (m.id, m.x, m.y, w, h)))
    for owner, box in owned:
        if owner is None:
            out.append(box)
        else:
            out.append(move(places[owner], places[(owner - me) % n], box))
    for r in range(1, n):  # the other players' hands, fanned at their places
        x, y, fx, _ = places[r]
        w, h = HAND_FAN if abs(fx) < 0.5 else HAND_FAN[::-1]
        out.append((f"hand@{r}", x - w / 2, y - h / 2, w, h))
    return out


def problems(proj: Projection) -> list[str]:
    out = []
    for me in range(len(proj.slots)):
        seen = boxes(proj, me)
        for name, x, y, w, h in seen:
            if x < 0 or y < 0 or x + w > TABLE_W or y + h > TABLE_H:
                out.append(f"viewer {me}: {name} off the table at {x:.0f},{y:.0f} {w:.0f}x{h:.0f}")
        for i, a in enumerate(seen):
            for b in seen[i + 1 :]:
                across = a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
                if across and a[2] < b[2] + b[4] and b[2] < a[2] + a[4]:
                    out.append(f"viewer {me}: {a[0]} overlaps {b[0]}")
    return out


def played(
    engine: Any,
    binding: Any,
    bot: Callable[..., Any],
    players: int,
    seed: int,
    melds: Callable[[Any], int],
) -> tuple[int, list[str]]:
    """Self-play one game, checking the table after every meld and lay-off; returns the most
    melds seen on the table at once and the problems found (the first few)."""
    most = 0
    found: list[str] = []

    def observe(_state: Any, _player: Any, action: dict[str, Any], after: Any) -> None:
        nonlocal most
        if action["type"] not in ("meld", "lay_off") or len(found) > 5:
            return
        most = max(most, melds(after))
        found.extend(problems(binding.project(after)))

    state = engine.new_game(players, {}, seed)
    drive(engine, state, [bot] * players, [random.Random(seed)] * players, observe=observe)
    return most, found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pennies_melds_never_overlap_and_stay_on_the_table(players: int) -> None:
    most = 0
    for seed in range(4):
        top, found = played(
            PENNIES,
            PENNIES_BINDING,
            pennies_bot,
            players,
            seed,
            lambda s: sum(len(a) for a in s.melds),
        )
        assert not found, f"seed {seed}: {found[:5]}"
        most = max(most, top)
    assert most >= 6  # the states asked for: 6+ melds down at once


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rummy_melds_never_overlap_and_stay_on_the_table(players: int) -> None:
    most = 0
    for seed in range(4):
        top, found = played(RUMMY, RUMMY_BINDING, rummy_bot, players, seed, lambda s: len(s.melds))
        assert not found, f"seed {seed}: {found[:5]}"
        most = max(most, top)
    assert most >= 6


@pytest.mark.parametrize("players", [2, 4])
def test_rummy_long_runs_and_a_full_table_stay_apart(players: int) -> None:
    # Self-play rarely gets there: every long run of a suit and the sets of the rest.
    runs = [tuple(f"{s}{r}" for r in range(1, 14)) for s in "SH"]
    sets = [tuple(f"{s}{r}" for s in "CD") + (f"C{r}",) for r in range(1, 13)]
    state = msgspec.structs.replace(
        RUMMY.new_game(players, {}, 1), melds=(runs[0], *sets[:5], runs[1], *sets[5:])
    )
    assert not problems(RUMMY_BINDING.project(state))
