"""The room blob spliced from cached pieces (server.table.encoding) is byte for byte the whole
table's encoding, whatever happened before: random runs through the room's reducer, with the
pieces carried from commit to commit as the room service carries them, and the check mode that
catches a change nobody marked dirty."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from server.errors import CardtableError
from server.room.reducer import Env, Intent, Join, Presence, TableOp, TakeSeat, reduce
from server.table import ops as O
from server.table.encoding import EncodeMismatch, Pieces, encode_room
from server.table.objects import Table, decode_table, encode_table
from tests.table.helpers import add_misc, add_pile, seated_table
from tests.table.test_properties import LIMITS, draw_op


def _table(rng: random.Random) -> Table:
    t = seated_table(rng=rng)
    add_misc(t)
    add_pile(t, "row", ["J1", "J2"], up=True, layout="row", holder=True, label="Row")
    add_pile(t, "pile", ["S5", "S6", "S7"], up=True)
    t.players["p0"].host = True  # may create and delete
    return t


def _intent(data: st.DataObject, t: Table, recent: list[str], n: int) -> Intent:
    """A random intent: mostly a table operation (undo often), sometimes a join, a seat
    change, or a player going away and then leaving."""
    seated = sorted(p.id for p in t.players.values() if p.seat is not None)
    kind = data.draw(
        st.sampled_from(["op"] * 6 + ["undo"] * 3 + ["join", "seat", "away"]), label="intent"
    )
    if kind == "join":
        return Join(f"n{n}", f"New {n}", "h", "auto")
    if kind == "seat" and t.players:
        pid = data.draw(st.sampled_from(sorted(t.players)), label="who")
        return TakeSeat(pid, data.draw(st.sampled_from([0, 1, 2, 3, None]), label="seat"))
    if kind == "away" and t.players:
        gone = data.draw(st.sampled_from(sorted(t.players)), label="away")
        return Presence(frozenset(t.players) - {gone}, 0.0, float(n))
    if not seated:
        return Join(f"n{n}", f"New {n}", "h", "auto")
    if kind == "undo" and t.undo:
        return TableOp(data.draw(st.sampled_from(sorted(t.undo)), label="undo by"), O.Undo())
    pid = data.draw(st.sampled_from(seated), label="player")
    return TableOp(pid, draw_op(data, t, recent))


@settings(
    max_examples=settings.default.max_examples,  # the profile's (tests/conftest.py)
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)
@given(data=st.data())
def test_spliced_blob_is_the_whole_encoding_after_every_step(data: st.DataObject) -> None:
    """As the room service does: the committed table and its pieces are carried to the next
    step, or (another process committed, a refusal, a lost race) the last blob is decoded and
    new pieces started; pieces are kept only for commits that land."""
    rng = random.Random(0)
    table = _table(rng)
    blob = encode_table(table)
    pieces = Pieces(check=False)
    recent: list[str] = []
    for n in range(data.draw(st.integers(1, 60), label="steps")):
        if data.draw(st.integers(0, 9), label="decode") == 0:
            note("  a fresh decode")  # another process's commit, a restart
            table, pieces = decode_table(blob), Pieces(check=False)
        intent = _intent(data, table, recent, n)
        note(f"{n}: {intent!r}")
        try:
            change = reduce(table, intent, Env(now=float(n), rng=rng, limits=LIMITS))
        except CardtableError as err:
            note(f"  refused: {err.code}")
            table, pieces = decode_table(blob), Pieces(check=False)  # the copy is dropped
            continue
        if change is None:
            continue
        spliced = encode_room(pieces, table, change)
        assert spliced.blob == encode_table(table), f"step {n}: {intent!r}"
        if data.draw(st.integers(0, 9), label="lost") == 0:
            note("  the commit lost the version race")
            # Nothing kept: the next attempt decodes the blob.
            table, pieces = decode_table(blob), Pieces(check=False)
            continue
        pieces.keep(spliced)
        blob = spliced.blob
        recent = sorted(change.dirty)


def _moved(t: Table, pieces: Pieces, oid: str, x: float) -> bytes:
    """Move ``oid`` for p0 through the reducer and encode the result with ``pieces``; keep
    them, as a commit that landed does."""
    change = reduce(
        t, TableOp("p0", O.Move(id=oid, x=x, y=1.0)), Env(now=0.0, rng=random.Random(0))
    )
    assert change is not None
    spliced = encode_room(pieces, t, change)
    pieces.keep(spliced)
    return spliced.blob


def test_check_mode_catches_an_object_changed_without_being_marked_dirty() -> None:
    t = _table(random.Random(0))
    a, b = "k1", "l1"
    pieces = Pieces(check=True)
    _moved(t, pieces, a, 10.0)
    _moved(t, pieces, a, 20.0)
    t.objects[b].x += 1  # changed behind the reducer's back: same v, new content
    with pytest.raises(EncodeMismatch, match=f"object {b}"):
        _moved(t, pieces, a, 30.0)


def test_an_undo_entry_changed_in_place_is_caught_too() -> None:
    t = _table(random.Random(0))
    a = "k1"
    pieces = Pieces(check=True)
    _moved(t, pieces, a, 10.0)
    _moved(t, pieces, a, 20.0)
    t.undo["p0"].older[0].expect["x"] = 3  # entries are fixed once made
    with pytest.raises(EncodeMismatch, match="undo of p0"):
        _moved(t, pieces, "l1", 30.0)


def test_an_undo_that_re_dates_an_older_entry() -> None:
    """Undoing a move of a row re-stamps the row's top cards, so the player's first entry
    (which moved one of them there) now expects the new version: that entry is replaced, not
    changed in place under the bytes kept for it."""
    t = _table(random.Random(0))
    pieces = Pieces(check=True)
    card = t.objects["pile"].cards[-1]  # type: ignore[union-attr]
    for op in (
        O.Move(id="l1", x=9.0, y=9.0),  # an entry the undo leaves as it is
        O.Move(id=card, to="row"),
        O.Move(id="k1", x=3.0, y=3.0),
        O.Move(id="row", x=500.0, y=500.0),
        O.Undo(),
        O.Move(id="k1", x=4.0, y=3.0),
    ):
        change = reduce(t, TableOp("p0", op), Env(now=0.0, rng=random.Random(0)))
        assert change is not None
        pieces.keep(encode_room(pieces, t, change))
    assert t.undo["p0"].older[1].expect.get(card) == 5


def test_deep_stacks_that_drop_their_oldest_entries() -> None:
    """A stack keeps 20 entries and 200 objects: an operation on a full one drops the oldest
    (one, or several when it made a deck), and undos pop them again."""
    t = _table(random.Random(0))
    pieces = Pieces(check=True)
    ops: list[O.Op] = [O.Move(id="k1", x=float(i), y=1.0) for i in range(25)]
    ops += [O.Undo(), O.Undo(), O.Move(id="l1", x=2.0, y=2.0)]
    ops += [O.Create(kind="deck", x=float(i), y=5.0) for i in range(5)]
    ops += [O.Move(id="k1", x=3.0, y=3.0), O.Undo(), O.Move(id="k1", x=4.0, y=3.0)]
    depths = []
    for op in ops:
        change = reduce(t, TableOp("p0", op), Env(now=0.0, rng=random.Random(0)))
        assert change is not None
        pieces.keep(encode_room(pieces, t, change))
        depths.append(len(t.undo["p0"].older))
    assert max(depths) == 19 and min(depths[-8:]) < 5, depths  # full, then trimmed by decks
