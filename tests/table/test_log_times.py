"""Log lines keep the time they were written, and the snapshot sends it (issue 13: after a reload
every earlier line showed the time of joining)."""

from __future__ import annotations

import random

from server.room.reducer import Env, TableOp, reduce
from server.table import ops as O
from server.table.view import snapshot
from tests.table.helpers import seated_table


def test_each_line_keeps_its_time_in_the_snapshot() -> None:
    t = seated_table(rng=random.Random(1))
    t.log = ["an old line"]  # a table stored before times were kept
    t.log_at = []
    reduce(t, TableOp("p0", O.Shuffle(id="deck")), Env(now=1000.0, rng=random.Random(2)))
    reduce(t, TableOp("p1", O.Shuffle(id="deck")), Env(now=2000.5, rng=random.Random(3)))
    snap = snapshot(t, 0)
    assert len(snap["log"]) == 3 and snap["log"][0] == "an old line"
    assert snap["log_at"] == [0.0, 1000.0, 2000.5]


def test_times_stay_in_step_when_the_log_is_trimmed() -> None:
    t = seated_table(rng=random.Random(1))
    for i in range(60):
        reduce(t, TableOp("p0", O.Shuffle(id="deck")), Env(now=float(i + 1), rng=random.Random(i)))
    snap = snapshot(t, None)
    assert len(snap["log"]) == len(snap["log_at"]) == 50
    assert snap["log_at"] == [float(i + 1) for i in range(10, 60)]
