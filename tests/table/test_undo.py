"""Undo: each undoable operation is put back exactly; refusals follow docs/protocol.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

import pytest

from server.table import ops as O
from server.table.objects import Table
from tests.table.helpers import (
    add_card,
    add_misc,
    add_pile,
    card,
    deck,
    give,
    hand,
    ok,
    refused,
    seated_table,
    stack,
    state,
)

Setup = Callable[[Table], O.Op]


def _loose(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    return O.Move(id="a", x=700, y=700)


def _top_to_table(t: Table) -> O.Op:
    return O.Move(id=deck(t).cards[-1], x=10, y=10)


def _play_face_up(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    add_card(t, "b", "H2")
    give(t, 0, ["a", "b"])
    return O.Move(id="a", to="discard", up=True)


def _card_on_card(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    add_card(t, "b", "H2", x=400, y=400)
    return O.Move(id="a", to="b")


def _card_into_pile_middle(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2", "S3"])
    add_card(t, "a", "H1")
    return O.Move(id="a", to="p", index=1)


def _reorder_hand(t: Table) -> O.Op:
    for cid in ("a", "b", "c"):
        add_card(t, cid, "H1")
    give(t, 0, ["a", "b", "c"])
    return O.Move(id="c", to="hand0", index=0)


def _move_pile(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2", "S3"])
    return O.Move(id="p", x=900, y=100)


def _pile_to_hand(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2", "S3"])
    return O.Move(id="p", to="hand0")


def _pile_on_pile(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2"])
    add_pile(t, "q", ["S3"])
    return O.Move(id="p", to="q")


def _flip_up(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    return O.Flip(id="a")


def _flip_pile(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2", "S3"])
    return O.Flip(id="p")


def _rotate_card(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    return O.Rotate(id="a", rot=90)


def _rotate_pile(t: Table) -> O.Op:
    return O.Rotate(id="deck", rot=90)


def _take(t: Table) -> O.Op:
    return O.Take(id="deck", n=3)


def _move_many(t: Table) -> O.Op:
    ids = add_pile(t, "p", ["S1", "S2", "S3"], layout="row")  # face down: undo reveals nothing
    return O.MoveMany(ids=[ids[2], ids[0]], to="deck")


def _background(t: Table) -> O.Op:
    return O.Background(value="navy")


def _split(t: Table) -> O.Op:
    return O.Split(id="deck", n=10, x=5, y=5)


def _merge(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2"])
    return O.Merge(id="p", into="deck")


def _chips_move(t: Table) -> O.Op:
    return O.ChipsMove(id="k1", to="k2", n=4)


def _chips_add(t: Table) -> O.Op:
    return O.ChipsAdd(id="k1", n=-4)


def _counter(t: Table) -> O.Op:
    return O.CounterSet(id="n1", delta=3)


def _create_deck(t: Table) -> O.Op:
    return O.Create(kind="deck", x=1, y=1)


def _create_die(t: Table) -> O.Op:
    return O.Create(kind="die")


def _update_pile(t: Table) -> O.Op:
    return O.Update(id="deck", label="Stock", locked=True)


def _update_layout(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2"])
    return O.Update(id="p", layout="row")


def _update_die(t: Table) -> O.Op:
    t.objects["d1"].value = 6  # type: ignore[union-attr]
    return O.Update(id="d1", sides=4)


def _name_die(t: Table) -> O.Op:
    return O.Name(id="d1", name="Big die")


def _delete_card(t: Table) -> O.Op:
    add_card(t, "a", "H1")
    return O.Delete(id="a")


def _delete_top_of_pile(t: Table) -> O.Op:
    return O.Delete(id=deck(t).cards[-1])


def _delete_pile(t: Table) -> O.Op:
    add_pile(t, "p", ["S1", "S2"])
    return O.Delete(id="p")


UNDOABLE: list[Setup] = [
    _loose,
    _top_to_table,
    _play_face_up,
    _card_on_card,
    _card_into_pile_middle,
    _reorder_hand,
    _move_pile,
    _pile_to_hand,
    _pile_on_pile,
    _flip_up,
    _flip_pile,
    _rotate_card,
    _rotate_pile,
    _take,
    _move_many,
    _background,
    _split,
    _merge,
    _chips_move,
    _chips_add,
    _counter,
    _create_deck,
    _create_die,
    _update_pile,
    _update_layout,
    _update_die,
    _name_die,
    _delete_card,
    _delete_top_of_pile,
    _delete_pile,
]


@pytest.mark.parametrize("setup", UNDOABLE, ids=lambda f: f.__name__.strip("_"))
def test_undo_restores_the_exact_prior_state(t, setup):
    op = setup(t)
    before = state(t)
    done, _ = ok(t, 0, op)
    assert state(done) != before
    undone, ch = ok(done, 0, O.Undo())
    assert state(undone) == before
    assert ch.log == "Ana undid their last move"
    refused(undone, 0, O.Undo(), "nothing_to_undo")


def test_undoable_operations_are_all_covered():
    kinds = set()
    for setup in UNDOABLE:
        table = seated_table()
        add_misc(table)
        kinds.add(type(setup(table)))
    not_undoable = {O.Shuffle, O.Deal, O.Roll, O.Undo, O.Press}
    assert kinds == set(get_args(O.Op)) - not_undoable


def test_undo_goes_back_one_operation_at_a_time(t):
    add_card(t, "a", "H1")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 0, O.Move(id="a", x=2, y=2))
    three, _ = ok(two, 0, O.Flip(id="a"))
    back, _ = ok(three, 0, O.Undo())
    assert state(back) == state(two)
    back, _ = ok(back, 0, O.Undo())
    assert (card(back, "a").x, card(back, "a").y, card(back, "a").up) == (1, 1, False)
    back, _ = ok(back, 0, O.Undo())
    assert state(back) == state(t)
    refused(back, 0, O.Undo(), "nothing_to_undo")


def test_undo_steps_back_through_a_draw_and_a_play(t):
    """Take the top card, play it face up from the hand (a new id), move the deck: three undos
    put everything back as it was, the card under its old id."""
    one, _ = ok(t, 0, O.Take(id="deck"))
    (cid,) = hand(one, 0).cards
    two, _ = ok(one, 0, O.Move(id=cid, x=300, y=300, up=True))
    three, _ = ok(two, 0, O.Move(id="deck", x=900, y=100))
    back = three
    for _ in range(3):
        back, _ = ok(back, 0, O.Undo())
    assert state(back) == state(t)


def test_undo_keeps_the_last_twenty_operations(t):
    add_card(t, "a", "H1")
    for i in range(25):
        t, _ = ok(t, 0, O.Move(id="a", x=i, y=i))
    for _ in range(20):
        t, _ = ok(t, 0, O.Undo())
    assert card(t, "a").x == 4
    refused(t, 0, O.Undo(), "nothing_to_undo")


def test_the_undo_stack_keeps_at_most_200_objects(t):
    """Each spread or gather of the 52-card deck keeps 53 objects: three fit, a fourth not."""
    for i in range(10):
        t, _ = ok(t, 0, O.Update(id="deck", layout="row" if i % 2 == 0 else "pile"))
    for _ in range(3):
        t, _ = ok(t, 0, O.Undo())
    refused(t, 0, O.Undo(), "nothing_to_undo")


def test_an_older_undo_is_refused_once_someone_else_touched_its_objects(t):
    add_card(t, "a", "H1")
    add_card(t, "b", "H2")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 0, O.Move(id="b", x=2, y=2))
    three, _ = ok(two, 1, O.Move(id="a", x=3, y=3))
    back, _ = ok(three, 0, O.Undo())  # b: nobody else touched it
    assert card(back, "b").x == 50
    refused(back, 0, O.Undo(), "undo_refused")  # a: Ben moved it since
    assert card(back, "a").x == 3


def test_an_older_undo_is_refused_if_someone_else_touched_it_between_my_two_moves(t):
    add_card(t, "a", "H1")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 1, O.Move(id="a", x=2, y=2))
    three, _ = ok(two, 0, O.Move(id="a", x=3, y=3))
    back, _ = ok(three, 0, O.Undo())
    assert card(back, "a").x == 2  # back where Ben left it
    refused(back, 0, O.Undo(), "undo_refused")


def test_other_players_undo_stacks_stay_apart(t):
    add_card(t, "a", "H1")
    add_card(t, "b", "H2")
    t1, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    t2, _ = ok(t1, 1, O.Move(id="b", x=2, y=2))
    t3, _ = ok(t2, 0, O.Move(id="a", x=3, y=3))
    back, _ = ok(t3, 0, O.Undo())
    back, _ = ok(back, 0, O.Undo())
    assert (card(back, "a").x, card(back, "b").x) == (50, 2)
    refused(back, 0, O.Undo(), "nothing_to_undo")
    back, _ = ok(back, 1, O.Undo())
    assert state(back) == state(t)


def test_each_player_undoes_their_own(t):
    add_card(t, "a", "H1")
    add_card(t, "b", "H2")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 1, O.Move(id="b", x=2, y=2))
    back, _ = ok(two, 0, O.Undo())
    assert (card(back, "a").x, card(back, "b").x) == (50, 2)
    back, _ = ok(back, 1, O.Undo())
    assert (card(back, "a").x, card(back, "b").x) == (50, 50)


def test_undo_refused_when_someone_else_moved_the_card(t):
    add_card(t, "a", "H1")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 1, O.Move(id="a", x=2, y=2))
    refused(two, 0, O.Undo(), "undo_refused")


def test_undo_refused_when_someone_else_used_the_same_pile(t):
    one, _ = ok(t, 0, O.Take(id="deck"))
    two, _ = ok(one, 1, O.Take(id="deck"))
    refused(two, 0, O.Undo(), "undo_refused")


def test_undo_refused_when_someone_else_changed_what_it_created(t):
    one, ch = ok(t, 0, O.Create(kind="die"))
    (die,) = ch.dirty
    two, _ = ok(one, 1, O.Roll(id=die))
    refused(two, 0, O.Undo(), "undo_refused")


def test_undo_refused_when_someone_else_deleted_the_card(t):
    add_card(t, "a", "H1")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 1, O.Delete(id="a"))
    refused(two, 0, O.Undo(), "undo_refused")


def test_undo_refused_when_someone_else_deleted_the_pile(t):
    """Undoing would restore the deck's old card list, but its other 50 cards are gone."""
    one, _ = ok(t, 0, O.Take(id="deck"))
    two, _ = ok(one, 1, O.Delete(id="deck"))
    refused(two, 0, O.Undo(), "undo_refused")


def test_undo_allowed_after_others_touch_other_things(t):
    add_card(t, "a", "H1")
    one, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    two, _ = ok(one, 1, O.Take(id="deck"))
    three, _ = ok(two, 2, O.Roll(id="d1"))
    back, _ = ok(three, 0, O.Undo())
    assert card(back, "a").x == 50 and len(hand(back, 1).cards) == 1


def test_undo_refused_when_it_would_reveal_a_hidden_card(t):
    add_card(t, "a", "H1", up=True)
    down, _ = ok(t, 0, O.Flip(id="a"))
    refused(down, 0, O.Undo(), "undo_refused")
    # and the top of a pile that was covered by a face-down card
    add_pile(t, "p", ["S1"], up=True)
    add_card(t, "b", "H2")
    covered, _ = ok(t, 0, O.Move(id="b", to="p"))
    refused(covered, 0, O.Undo(), "undo_refused")


@pytest.mark.parametrize(
    "op",
    [O.Shuffle(id="deck"), O.Deal(id="deck", n=2), O.Roll(id="d1")],
    ids=lambda op: type(op).__name__,
)
def test_shuffle_deal_and_roll_cannot_be_undone(t, op):
    refused(t, 0, O.Undo(), "nothing_to_undo")
    add_card(t, "a", "H1")
    moved, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    after, _ = ok(moved, 0, op)  # also replaces the undoable move before it
    refused(after, 0, O.Undo(), "nothing_to_undo")


def test_nothing_to_undo_after_an_undo_and_for_spectators(t):
    add_card(t, "a", "H1")
    moved, _ = ok(t, 0, O.Move(id="a", x=1, y=1))
    refused(moved, None, O.Undo(), "not_seated")
    refused(moved, 1, O.Undo(), "nothing_to_undo")
    back, _ = ok(moved, 0, O.Undo())
    refused(back, 0, O.Undo(), "nothing_to_undo")


def test_undo_of_a_take_puts_the_cards_back_in_order(t):
    d = list(deck(t).cards)
    took, _ = ok(t, 2, O.Take(id="deck", n=5))
    back, ch = ok(took, 2, O.Undo())
    assert deck(back).cards == d and hand(back, 2).cards == []
    assert all(card(back, c).parent == "deck" for c in d)
    assert set(d[-5:]) <= ch.dirty


def test_undo_of_a_create_removes_what_it_made(t):
    made, ch = ok(t, 0, O.Create(kind="deck"))
    back, uch = ok(made, 0, O.Undo())
    assert uch.removed == ch.dirty and not uch.dirty
    assert set(back.objects) == set(t.objects)
    assert stack(back, "deck").cards == deck(t).cards
