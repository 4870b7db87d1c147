"""A spread lays the row where it covers no other pile: where the pile is when there is room to
its right, else below, to the left or above, with the cards closer together if it must, and
always inside the table (server/table/spread.py, run by the ``update`` that sets ``row``)."""

from __future__ import annotations

from server.table import ops as O
from server.table.objects import TABLE_H, TABLE_W, Button, Stack, Table
from server.table.spread import EDGE, row_box
from server.table.view import snapshot
from tests.table.helpers import add_card, add_pile, bump_z, ok, seated_table, stack

Box = tuple[float, float, float, float]


def _blank() -> Table:
    return seated_table("blank")


def _wall(t: Table, bid: str, x: float, y: float, w: float, h: float) -> Box:
    t.objects[bid] = Button(id=bid, label=bid, x=x, y=y, w=w, h=h, z=bump_z(t))
    return x, y, w, h


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and a[0] + a[2] > b[0] and a[1] < b[1] + b[3] and a[1] + a[3] > b[1]


def _spread(t: Table, sid: str) -> tuple[Table, Stack, Box]:
    new, _ = ok(t, 0, O.Update(id=sid, layout="row"))
    s = stack(new, sid)
    box = row_box(s)
    x, y, w, h = box
    assert x >= 0 and y >= 0 and x + w <= TABLE_W - EDGE + 0.01 and y + h <= TABLE_H
    return new, s, box


def test_with_room_to_its_right_the_row_stays_where_the_pile_is():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=300, y=300)
    _, s, box = _spread(t, "p")
    assert (s.x, s.y) == (300, 300) and box[2] == 100 + 9 * 32


def test_a_card_in_the_way_on_the_right_moves_the_row_past_it():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=300, y=300)
    add_card(t, "a", "H2", x=500, y=300)
    _, s, box = _spread(t, "p")
    assert s.y == 300 and s.x > 300 and not _overlap(box, (500, 300, 100, 140))


def test_blocked_to_the_right_it_goes_below():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=300, y=300)
    wall = _wall(t, "b1", 410, 0, 1190, 500)
    _, s, box = _spread(t, "p")
    assert s.y > 300 + 140 and not _overlap(box, wall)


def test_blocked_right_and_below_it_goes_left():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=700, y=400)
    walls = [_wall(t, "r", 810, 0, 790, 1000), _wall(t, "d", 0, 548, 810, 452)]
    walls.append(_wall(t, "u", 0, 0, 810, 252))
    _, s, box = _spread(t, "p")
    assert (s.x, s.y) == (700 - 8 - 388, 400)
    assert not any(_overlap(box, w) for w in walls)


def test_blocked_right_below_and_left_it_goes_above():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=700, y=400)
    walls = [_wall(t, "r", 810, 0, 790, 1000), _wall(t, "d", 0, 548, 810, 452)]
    walls.append(_wall(t, "l", 0, 300, 690, 248))
    _, s, box = _spread(t, "p")
    assert s.y + 140 <= 300 and not any(_overlap(box, w) for w in walls)


def test_in_a_narrow_gap_the_cards_come_closer_together():
    t = _blank()
    add_pile(t, "p", ["H1"] * 20, x=100, y=400)  # 708 wide at full spacing
    walls = [_wall(t, "r", 620, 0, 980, 1000), _wall(t, "d", 0, 548, 620, 452)]
    walls.append(_wall(t, "u", 0, 0, 620, 392))
    _, s, box = _spread(t, "p")
    assert (s.x, s.y) == (100, 400) and box[2] == s.w == 100 + 19 * 18
    assert not any(_overlap(box, w) for w in walls)


def test_with_no_free_spot_the_row_stays_where_the_pile_is():
    t = _blank()
    add_pile(t, "p", ["H1"] * 30, x=100, y=400)
    _wall(t, "r", 210, 0, 1390, 1000)
    _wall(t, "l", 0, 0, 90, 1000)
    _, s, _ = _spread(t, "p")
    assert (s.x, s.y) == (100, 400)


def test_the_standard_deck_spreads_clear_of_the_discard_pile_and_gathers_back():
    t = seated_table("standard")
    discard = row_box(stack(t, "discard"))
    spread, s, box = _spread(t, "deck")
    assert not _overlap(box, discard) and s.holder and s.w == 110
    gathered, _ = ok(spread, 0, O.Update(id="deck", layout="pile"))
    assert stack(gathered, "deck").w == 110  # a zone keeps its size


def test_a_plain_pile_gathered_again_drops_the_width_of_its_row():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=300, y=300)
    spread, s, _ = _spread(t, "p")
    assert s.w > 0
    gathered, _ = ok(spread, 0, O.Update(id="p", layout="pile"))
    assert stack(gathered, "p").w == 0


def test_a_locked_pile_spreads_where_it_is():
    t = _blank()
    add_pile(t, "p", ["H1"] * 10, x=300, y=300)
    t.objects["p"].locked = True
    add_card(t, "a", "H2", x=500, y=300)
    _, s, _ = _spread(t, "p")
    assert (s.x, s.y) == (300, 300)


def test_gathered_where_the_spread_put_it_the_pile_goes_back_and_moved_it_stays():
    t = seated_table("standard")
    spread, s, _ = _spread(t, "deck")
    assert (s.x, s.y) != (665, 425)
    assert all("spread" not in o for o in snapshot(spread, 0)["objects"])  # the server's alone
    back, _ = ok(spread, 0, O.Update(id="deck", layout="pile"))
    assert (stack(back, "deck").x, stack(back, "deck").y) == (665, 425)
    moved, _ = ok(spread, 0, O.Move(id="deck", x=300, y=700))
    kept, _ = ok(moved, 0, O.Update(id="deck", layout="pile"))
    assert (stack(kept, "deck").x, stack(kept, "deck").y) == (300, 700)
    assert stack(kept, "deck").spread == []
