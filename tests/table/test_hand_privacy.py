"""Hands link nothing: other views learn only a hand's count, never the ids inside it, and a card
that leaves a hand comes out under a new id (docs/protocol.md, "What you see").

Every accepted operation here also goes through ``ok``, whose view check rebuilds each seat's
view from the exact delta the room service sends it and fails if a ``del`` names an id the view
never held or a ``set`` carries a card in another seat's hand.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.room.service import ALL, build_deltas
from server.table import ops as O
from server.table.apply import Change
from server.table.objects import Card, Table
from server.table.view import view_delta, visible_faces
from tests.table.helpers import (
    ALL_VIEWS,
    add_card,
    card,
    deck,
    give,
    hand,
    ok,
    refused,
    stack,
    views,
)

OTHERS: list[int | None] = [1, 2, 3, None]  # every view but seat 0's


def _hand_of_three(t: Table) -> None:
    for cid, face in (("a", "H1"), ("b", "H2"), ("c", "H3")):
        add_card(t, cid, face)
    give(t, 0, ["a", "b", "c"])


def test_a_card_taken_into_a_hand_is_deleted_from_every_other_view(t):
    top = deck(t).cards[-1]
    new, ch = ok(t, 0, O.Take(id="deck"))
    shown, gone = view_delta(new, ch, 0)
    assert gone == [] and {o["id"] for o in shown} >= {top, "hand0"}
    assert next(o for o in shown if o["id"] == "hand0")["cards"] == [top]
    for seat in OTHERS:
        shown, gone = view_delta(new, ch, seat)
        assert gone == [top]
        assert top not in {o["id"] for o in shown}
        (h,) = [o for o in shown if o["t"] == "hand"]
        assert h["id"] == "hand0" and h["n"] == 1 and "cards" not in h


def test_a_deal_tells_other_seats_only_counts(t):
    before = set(deck(t).cards)
    new, ch = ok(t, 0, O.Deal(id="deck", n=3))
    for seat in ALL_VIEWS:
        shown, gone = view_delta(new, ch, seat)
        mine = set(hand(new, seat).cards) if seat is not None else set()
        dealt = before - set(deck(new).cards)
        assert set(gone) == dealt - mine
        ids = {o["id"] for o in shown}
        assert not (dealt - mine) & ids
        assert {o["n"] for o in shown if o["t"] == "hand"} == {3}


def test_reordering_a_hand_sends_others_nothing_but_the_count(t):
    _hand_of_three(t)
    new, ch = ok(t, 0, O.Move(id="c", to="hand0", index=0))
    assert hand(new, 0).cards == ["c", "a", "b"]  # the same ids: nobody else holds them
    for seat in OTHERS:
        shown, gone = view_delta(new, ch, seat)
        assert gone == [] and [(o["id"], o["n"]) for o in shown] == [("hand0", 3)]
        assert "cards" not in shown[0]


def _play_to_table(t: Table) -> O.Op:
    return O.Move(id="b", x=700, y=300)


def _play_face_up(t: Table) -> O.Op:
    return O.Move(id="b", x=700, y=300, up=True)


def _to_discard(t: Table) -> O.Op:
    return O.Move(id="b", to="discard", up=True)


def _into_a_pile(t: Table) -> O.Op:
    return O.Move(id="b", to="deck", index=3, up=False)


def _onto_a_loose_card(t: Table) -> O.Op:
    add_card(t, "z", "S9", up=True, x=900, y=100)
    return O.Move(id="b", to="z")


def _to_another_hand(t: Table) -> O.Op:
    return O.Move(id="b", to="hand2", index=0)


WAYS_OUT: list[Callable[[Table], O.Op]] = [
    _play_to_table,
    _play_face_up,
    _to_discard,
    _into_a_pile,
    _onto_a_loose_card,
    _to_another_hand,
]


@pytest.mark.parametrize("setup", WAYS_OUT, ids=lambda f: f.__name__.strip("_"))
def test_a_card_leaving_a_hand_gets_a_new_id(t, setup):
    _hand_of_three(t)
    op = setup(t)
    seen_before = {oid for view in views(t).values() for oid in view} | set(t.objects)
    new, ch = ok(t, 0, op)
    assert "b" not in new.objects and "b" in ch.removed
    (out,) = [
        o
        for o in new.objects.values()
        if isinstance(o, Card) and o.id not in t.objects and o.face == "H2"
    ]
    assert out.id not in seen_before
    assert hand(new, 0).cards == ["a", "c"]
    for seat in OTHERS:  # they never held "b": nothing about it reaches them
        shown, gone = view_delta(new, ch, seat)
        assert "b" not in gone and "b" not in {o["id"] for o in shown}
    shown, gone = view_delta(new, ch, 0)
    assert "b" in gone


def test_nothing_seen_of_a_card_before_it_went_into_a_hand_comes_out_with_it(t):
    add_card(t, "a", "H1", up=True, x=123, y=456)
    turned, _ = ok(t, 1, O.Rotate(id="a", rot=90))
    z = card(turned, "a").z
    taken, _ = ok(turned, 1, O.Move(id="a", to="hand1"))
    for op in (
        O.Move(id="a", to="deck", up=True),
        O.Move(id="a", to="hand2"),
        O.Move(id="a", x=5, y=6, up=True),
    ):
        new, _ = ok(taken, 1, op)
        (out,) = [
            o for o in new.objects.values() if isinstance(o, Card) and o.id not in taken.objects
        ]
        assert out.face == "H1" and out.rot == 0 and out.z != z and not out.locked


def test_a_card_given_to_another_hand_reaches_only_that_seat(t):
    _hand_of_three(t)
    new, ch = ok(t, 0, O.Move(id="b", to="hand2"))
    (given,) = hand(new, 2).cards
    assert visible_faces(new, 2) == {given: "H2"}
    for seat in ALL_VIEWS:
        shown, gone = view_delta(new, ch, seat)
        assert (given in {o["id"] for o in shown}) == (seat == 2)
        assert gone == (["b"] if seat == 0 else [])


def test_deleting_a_card_from_your_hand_tells_others_only_the_count(t):
    _hand_of_three(t)
    new, ch = ok(t, 0, O.Delete(id="a"))
    assert ch.removed == {"a"}
    for seat in OTHERS:
        shown, gone = view_delta(new, ch, seat)
        assert gone == [] and [(o["id"], o["n"]) for o in shown] == [("hand0", 2)]


def test_flipping_a_card_in_your_hand_is_private(t):
    _hand_of_three(t)
    new, ch = ok(t, 0, O.Flip(id="a"))
    assert card(new, "a").up
    for seat in OTHERS:
        assert visible_faces(new, seat) == {}
        shown, gone = view_delta(new, ch, seat)
        assert gone == [] and {o["id"] for o in shown} <= {"hand0"}


def test_one_shared_delta_unless_a_hand_is_involved(t):
    add_card(t, "a", "H1", up=True)
    new, ch = ok(t, 0, O.Move(id="a", x=5, y=5))
    deltas = build_deltas(new, ch, "p0")
    assert list(deltas) == [ALL] and deltas[ALL]["del"] == []
    new, ch = ok(new, 0, O.Move(id="a", to="hand0"))
    deltas = build_deltas(new, ch, "p0")
    assert sorted(deltas) == ["s0", "s1", "s2", "s3", "spec"]
    assert deltas["s0"]["del"] == [] and "a" in {o["id"] for o in deltas["s0"]["set"]}
    for key in ("s1", "s2", "s3", "spec"):
        assert deltas[key]["del"] == ["a"]
        assert [o["id"] for o in deltas[key]["set"]] == ["hand0"]
        assert deltas[key]["set"][0]["n"] == 1 and "cards" not in deltas[key]["set"][0]


def test_a_change_that_removes_cards_from_a_hand_without_touching_others_sends_no_ids(t):
    """A Change built by hand (as the game binding does): held cards vanish silently."""
    _hand_of_three(t)
    h = hand(t, 0)
    h.cards = ["a"]
    for cid in ("b", "c"):
        del t.objects[cid]
    t.version += 1
    h.v = t.version
    ch = Change(dirty={"hand0"}, removed={"b", "c"}, held={"b": 0, "c": 0})
    for seat in OTHERS:
        assert view_delta(t, ch, seat)[1] == []
    assert view_delta(t, ch, 0)[1] == ["b", "c"]


# --- undo across a new id ----------------------------------------------------------------------


def test_undoing_a_face_up_play_from_the_hand_brings_back_the_old_id(t):
    _hand_of_three(t)
    played, ch = ok(t, 0, O.Move(id="b", to="discard", up=True))
    (new_id,) = stack(played, "discard").cards
    back, uch = ok(played, 0, O.Undo())
    assert hand(back, 0).cards == ["a", "b", "c"] and card(back, "b").face == "H2"
    assert new_id not in back.objects and stack(back, "discard").cards == []
    for seat in OTHERS:  # they saw the new id go; the old one stays out of their view
        shown, gone = view_delta(back, uch, seat)
        assert gone == [new_id] and "b" not in {o["id"] for o in shown}


@pytest.mark.parametrize(
    "op",
    [
        O.Move(id="b", x=700, y=300, up=False),
        O.Move(id="b", to="deck", up=False),
        O.Move(id="b", to="hand1"),
    ],
    ids=["face_down_on_table", "into_a_pile", "to_another_hand"],
)
def test_undo_that_would_show_a_card_now_hidden_from_its_old_owner_is_refused(t, op):
    """Face down (or in another hand) the card is hidden from seat 0 under its new id; putting
    it back would show seat 0 a face it cannot see now. Refused, as it was before new ids."""
    _hand_of_three(t)
    done, _ = ok(t, 0, op)
    refused(done, 0, O.Undo(), "undo_refused")


def test_undo_of_a_take_returns_the_card_it_took(t):
    """Undo needs the hand untouched since, so which card comes back out is no secret: it
    keeps the id everyone saw before it went in."""
    top = deck(t).cards[-1]
    took, _ = ok(t, 1, O.Take(id="deck"))
    back, uch = ok(took, 1, O.Undo())
    assert deck(back).cards[-1] == top
    for seat in (0, 2, 3, None):
        shown, gone = view_delta(back, uch, seat)
        assert top in {o["id"] for o in shown} and gone == []


def test_undo_of_a_take_is_refused_once_the_hand_changed(t):
    add_card(t, "g", "S4")
    took, _ = ok(t, 1, O.Take(id="deck"))
    given, _ = ok(took, 0, O.Move(id="g", to="hand1"))
    refused(given, 1, O.Undo(), "undo_refused")
