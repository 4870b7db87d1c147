"""Shuffle: new ids for every card, faces conserved, all face down, and a uniform order.

The statistical tests use bounds so wide that a fair shuffle fails them with probability far
below 1e-9 per run, while a systematic bias fails them with certainty: no shuffle, a cut, a
reversal, "swap two cards", or one fixed permutation applied every time (the last one only by
the test of consecutive shuffles, since its positions look uniform).
"""

from __future__ import annotations

import time
from collections import Counter as Multiset

from server.table import ops as O
from server.table.apply import STANDARD_FACES, Limits, apply_op
from server.table.objects import Card
from server.table.view import snapshot, visible_faces
from tests.table.helpers import (
    actor,
    add_pile,
    card,
    deck,
    face_multiset,
    ok,
    refused,
    seated_table,
    stack,
)


def test_shuffle_rekeys_every_card_and_keeps_the_faces(t):
    d = deck(t)
    for cid in d.cards[-5:]:
        card(t, cid).up = True
    card(t, d.cards[-1]).back = "red"
    old_ids = list(d.cards)
    old_backs = Multiset((card(t, c).face, card(t, c).back) for c in old_ids)
    new, ch = ok(t, 0, O.Shuffle(id="deck"))
    nd = deck(new)
    assert len(nd.cards) == 52 and len(set(nd.cards)) == 52
    assert not set(nd.cards) & set(old_ids)
    assert not any(c in new.objects for c in old_ids)
    assert Multiset((card(new, c).face, card(new, c).back) for c in nd.cards) == old_backs
    for cid in nd.cards:
        c = card(new, cid)
        assert (c.up, c.parent) == (False, "deck")
    assert ch.removed == set(old_ids)
    assert ch.dirty == {"deck", *nd.cards}
    # Free play commits to every shuffle: the line ends with the next one's commitment.
    assert new.fair_shuffle is not None and new.fair_shuffle.deal == 2
    assert ch.log == (
        f"Ana shuffled Deck (fair shuffle 1; next commitment {new.fair_shuffle.commitment})"
    )
    assert face_multiset(new) == face_multiset(t)
    for seat in (0, 1, 2, 3, None):
        assert visible_faces(new, seat) == {}
        seen = {o["id"] for o in snapshot(new, seat)["objects"]}
        assert not seen & set(old_ids)


def test_shuffle_a_face_up_row(t):
    ids = add_pile(t, "r", ["H1", "H2", "H3", "H4"], up=True, layout="row")
    assert len(visible_faces(t, None)) == 4
    new, ch = ok(t, 2, O.Shuffle(id="r"))
    assert len(stack(new, "r").cards) == 4 and not set(stack(new, "r").cards) & set(ids)
    assert visible_faces(new, None) == {}
    assert new.fair_shuffle is not None
    assert (
        ch.log
        == f"Cyd shuffled a pile (fair shuffle 1; next commitment {new.fair_shuffle.commitment})"
    )


def test_shuffle_an_empty_zone(t):
    new, _ = ok(t, 0, O.Shuffle(id="discard"))
    assert stack(new, "discard").cards == []


def test_shuffle_refusals(t):
    refused(t, 0, O.Shuffle(id="nope"), "unknown_object")
    refused(t, 0, O.Shuffle(id="hand0"), "invalid_move")
    refused(t, 0, O.Shuffle(id="k1"), "invalid_move")
    refused(t, None, O.Shuffle(id="deck"), "not_seated")


def test_shuffle_cannot_be_undone(t):
    new, _ = ok(t, 0, O.Shuffle(id="deck"))
    refused(new, 0, O.Undo(), "nothing_to_undo")


def _positions(runs: int, face: str) -> tuple[Multiset[int], Multiset[str], float]:
    """Shuffle the same deck ``runs`` times: where ``face`` lands, and which face is on top."""
    t = seated_table()
    where: Multiset[int] = Multiset()
    tops: Multiset[str] = Multiset()
    me = actor(0)
    start = time.perf_counter()
    for _ in range(runs):
        apply_op(t, me, O.Shuffle(id="deck"), Limits())
        faces = [card(t, c).face for c in deck(t).cards]
        where[faces.index(face)] += 1
        tops[faces[-1]] += 1
    assert sorted(o.face for o in t.objects.values() if isinstance(o, Card)) == sorted(
        STANDARD_FACES
    )
    return where, tops, time.perf_counter() - start


def _chi2(counts: Multiset, cells: int, runs: int) -> float:
    e = runs / cells
    return sum((counts.get(i, 0) - e) ** 2 / e for i in range(cells))


def test_shuffle_is_roughly_uniform():
    """2000 shuffles: each of the 52 positions of H1, and each of the 52 top faces.

    Expected count per cell is 38.5 (sd 6.1). A cell outside [3, 100] has probability < 1e-12
    for a fair shuffle; chi-square with 51 degrees of freedom exceeds 200 with probability
    < 1e-18. A deck that is not shuffled, cut, or reversed puts 2000 in one cell.
    """
    runs = 2000
    where, tops, elapsed = _positions(runs, "H1")
    assert elapsed < 20
    assert set(where) <= set(range(52)) and sum(where.values()) == runs
    assert all(3 <= where.get(i, 0) <= 100 for i in range(52)), where
    assert _chi2(where, 52, runs) < 200
    by_face = Multiset({i: tops.get(f, 0) for i, f in enumerate(STANDARD_FACES)})
    assert all(3 <= n <= 100 for n in by_face.values()), tops
    assert _chi2(by_face, 52, runs) < 200


def test_consecutive_shuffles_are_not_related():
    """The top card after a shuffle does not predict the top card after the next one.

    A shuffle that applied the same permutation every time would make the next top a function
    of the previous top: then there would be at most 52 distinct (previous, next) pairs among
    2000. A fair shuffle gives ~1400 distinct pairs of 2704 possible; we ask for 500.
    """
    t = seated_table()
    me = actor(0)
    pairs = set()
    prev = None
    for _ in range(2000):
        apply_op(t, me, O.Shuffle(id="deck"), Limits())
        top = card(t, deck(t).cards[-1]).face
        if prev is not None:
            pairs.add((prev, top))
        prev = top
    assert len(pairs) > 500
