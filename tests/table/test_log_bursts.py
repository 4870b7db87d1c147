"""A burst of counter clicks reads as one log line: one player's clicks on one counter, each
within a few seconds of the last, replace the line before instead of adding one (the clock is
the reducer's ``now``, moved by the test)."""

from __future__ import annotations

import random

from server.room.reducer import Env, FairValue, TableOp, reduce
from server.table import ops as O
from server.table.apply import LOG_BURST
from server.table.objects import Counter, Table
from tests.table.helpers import add_misc, seated_table


def _click(t: Table, player: str, now: float, delta: int = 1, counter: str = "n1") -> bool:
    change = reduce(
        t, TableOp(player, O.CounterSet(id=counter, delta=delta)), Env(now, random.Random(0))
    )
    assert change is not None
    return change.log_replaces


def _table() -> Table:
    t = seated_table(rng=random.Random(1))
    add_misc(t)  # counter n1 'Score' at 3, step 2
    t.objects["n2"] = Counter(id="n2", value=0, label="Lives", x=300, y=10)
    return t


def test_clicks_a_moment_apart_make_one_line_with_the_latest_value() -> None:
    t = _table()
    assert not _click(t, "p0", 100.0)
    assert _click(t, "p0", 101.0)
    assert _click(t, "p0", 101.0 + LOG_BURST)  # each click opens the window again
    assert _click(t, "p0", 101.0 + 2 * LOG_BURST, delta=-1)
    assert t.log == ["Ana set Score to 7"] and t.log_at == [101.0 + 2 * LOG_BURST]


def test_a_pause_another_player_another_counter_or_another_line_starts_a_new_line() -> None:
    t = _table()
    _click(t, "p0", 100.0)
    assert not _click(t, "p0", 100.0 + LOG_BURST + 0.5)  # a pause
    assert not _click(t, "p1", 107.0)  # Ben, same counter
    assert not _click(t, "p1", 108.0, counter="n2")  # Ben, another counter
    assert _click(t, "p1", 109.0, counter="n2")
    reduce(t, TableOp("p0", O.Roll(id="d1")), Env(now=110.0, rng=random.Random(2)))
    assert not _click(t, "p1", 111.0, counter="n2")  # a roll came between
    assert t.log == [
        "Ana set Score to 5",
        "Ana set Score to 7",
        "Ben set Score to 9",
        "Ben set Lives to 2",
        f"Ana rolled a {t.objects['d1'].value}",  # type: ignore[union-attr]
        "Ben set Lives to 3",
    ]
    assert t.log_at == [100.0, 105.5, 107.0, 109.0, 110.0, 111.0]


def test_without_a_clock_nothing_merges() -> None:
    t = _table()
    _click(t, "p0", 0.0)
    assert not _click(t, "p0", 0.0)
    assert len(t.log) == 2


def test_pages_adding_randomness_to_one_shuffle_make_one_growing_line() -> None:
    """Every seated page answers a commitment at once: one line naming them all, in the order
    they sent, not a line each (a free table of four had four lines after every shuffle)."""
    t = seated_table(rng=random.Random(1))
    pending = t.fair_shuffle
    assert pending is not None and len(t.seated()) >= 3
    value = "ab" * 16
    lines = []
    for at, pid in ((100.0, "p1"), (100.2, "p0"), (100.3, "p2")):
        change = reduce(t, FairValue(pid, pending.deal, value), Env(at, random.Random(0)))
        assert change is not None
        lines.append((change.log_replaces, t.log[-1]))
    deal, cy = pending.deal, t.players["p2"].name
    assert lines == [
        (False, f"Ben's page added its randomness to shuffle {deal}"),
        (True, f"Ben's and Ana's pages added their randomness to shuffle {deal}"),
        (True, f"Ben's, Ana's and {cy}'s pages added their randomness to shuffle {deal}"),
    ]
    assert sum("randomness" in line for line in t.log) == 1
