"""Every table operation: its effect, its log line, and its refusals (docs/protocol.md).

Each accepted operation also goes through ``ok``, which checks the delta contract: the version
goes up by exactly one, every dirty object carries the new version, every changed object is in
the change set, the log names no face, and every seat's view rebuilt from the delta is right.
"""

from __future__ import annotations

import math

import msgspec
import pytest

from plugins.cards import card_name
from server.errors import CardtableError
from server.table import ops as O
from server.table.apply import STANDARD_FACES, Limits
from server.table.objects import Button, Card, Chips, Counter, Die, Label, Stack, Table
from server.table.steps import ShuffleStep
from server.table.view import visible_faces
from tests.table.helpers import (
    add_card,
    add_pile,
    card,
    deck,
    give,
    hand,
    ok,
    refused,
    seated_table,
    stack,
)


def new_objects(before: Table, after: Table) -> list:
    return [o for oid, o in after.objects.items() if oid not in before.objects]


# --- move: cards ----------------------------------------------------------------------------


def test_move_loose_card_to_xy_puts_it_on_top(t):
    add_card(t, "c1", "H5", up=True)
    zmax = t.zmax
    new, ch = ok(t, 0, O.Move(id="c1", x=400, y=500))
    c = card(new, "c1")
    assert (c.x, c.y, c.up, c.parent) == (400, 500, True, None)
    assert c.z == zmax + 1 == new.zmax
    assert all(o.z < c.z for o in new.objects.values() if o.id != "c1")
    assert ch.dirty == {"c1"} and not ch.removed
    assert ch.log == "Ana moved the 5 of hearts"  # face up: everyone sees which card


def test_move_with_up_sets_the_face_as_it_lands(t):
    add_card(t, "c1", "H5", up=False)
    new, _ = ok(t, 1, O.Move(id="c1", x=1, y=2, up=True))
    assert card(new, "c1").up
    assert visible_faces(new, None) == {"c1": "H5"}
    new, _ = ok(new, 1, O.Move(id="c1", x=1, y=2, up=False))
    assert not card(new, "c1").up
    assert "c1" not in visible_faces(new, 1)


def test_move_top_card_of_deck_to_the_table(t):
    d = list(deck(t).cards)
    new, ch = ok(t, 0, O.Move(id=d[-1], x=700, y=100, up=True))
    assert deck(new).cards == d[:-1]
    c = card(new, d[-1])
    assert (c.parent, c.up, c.x, c.y) == (None, True, 700, 100)
    assert {d[-1], d[-2], "deck"} <= ch.dirty
    assert ch.log == f"Ana moved the {card_name(c.face)}"


def test_only_the_top_card_of_a_pile_can_be_touched(t):
    d = deck(t).cards
    for op in (
        O.Move(id=d[0], x=1, y=1),
        O.Move(id=d[-2], to="hand0"),
        O.Flip(id=d[-2]),
        O.Rotate(id=d[-2], rot=90),
        O.Delete(id=d[-2]),
        O.Update(id=d[-2], locked=True),
    ):
        refused(t, 0, op, "invalid_move")


def test_any_card_of_a_row_can_be_taken(t):
    ids = add_pile(t, "row", ["H1", "H2", "H3"], up=True, layout="row")
    new, _ = ok(t, 2, O.Move(id=ids[0], x=5, y=5))
    assert stack(new, "row").cards == ids[1:]
    assert card(new, ids[0]).parent is None
    new, _ = ok(t, 2, O.Move(id=ids[1], to="hand2"))
    assert stack(new, "row").cards == [ids[0], ids[2]] and hand(new, 2).cards == [ids[1]]


def test_play_a_card_from_your_own_hand(t):
    for cid, face in (("a", "H1"), ("b", "H2"), ("c", "H3")):
        add_card(t, cid, face)
    give(t, 0, ["a", "b", "c"])
    new, ch = ok(t, 0, O.Move(id="a", x=10, y=20, up=True))
    assert hand(new, 0).cards == ["b", "c"]
    (played,) = new_objects(t, new)  # leaving the hand, the card got a new id
    assert "a" not in new.objects and ch.removed == {"a"}
    assert isinstance(played, Card) and played.parent is None and played.up
    assert (played.face, played.x, played.y) == ("H1", 10, 20)
    assert visible_faces(new, None) == {played.id: "H1"}
    assert ch.log == "Ana played the ace of hearts"


@pytest.mark.parametrize(
    "op",
    [
        O.Move(id="a", x=1, y=1),
        O.Move(id="a", to="hand1"),
        O.Move(id="a", to="discard"),
        O.Flip(id="a"),
        O.Rotate(id="a", rot=90),
        O.Delete(id="a"),
        O.Update(id="a", locked=True),
    ],
    ids=lambda op: type(op).__name__,
)
def test_another_seats_hand_is_out_of_reach_and_out_of_sight(t, op):
    """Another seat's card is answered exactly like an id that doesn't exist: probing an old id
    must not tell whether that card is still in the hand."""
    add_card(t, "a", "H1")
    give(t, 0, ["a"])
    err = refused(t, 1, op, "unknown_object")
    missing = refused(t, 1, msgspec.structs.replace(op, id="nope"), "unknown_object")
    assert err.message == missing.message.replace("nope", "a")
    ok(t, 0, op)  # the owner may


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (None, ["p_0", "p_1", "p_2", "x"]),
        (-1, ["p_0", "p_1", "p_2", "x"]),
        (0, ["x", "p_0", "p_1", "p_2"]),
        (1, ["p_0", "x", "p_1", "p_2"]),
        (3, ["p_0", "p_1", "p_2", "x"]),
        (99, ["p_0", "p_1", "p_2", "x"]),
    ],
)
def test_move_card_into_a_pile_at_index(t, index, expected):
    add_pile(t, "p", ["S1", "S2", "S3"], up=True, x=333, y=444)
    add_card(t, "x", "D9", up=True)
    new, ch = ok(t, 0, O.Move(id="x", to="p", index=index))
    assert stack(new, "p").cards == expected
    assert card(new, "x").parent == "p"
    on_top = expected[-1] == "x"  # only then is its face public
    assert ch.log == (
        "Ana put the 9 of diamonds on a pile" if on_top else "Ana put a card on a pile"
    )


def test_put_a_card_on_a_labelled_zone(t):
    add_card(t, "x", "D9")
    new, ch = ok(t, 3, O.Move(id="x", to="discard", up=True))
    assert stack(new, "discard").cards == ["x"] and card(new, "x").up
    assert visible_faces(new, None) == {"x": "D9"}
    assert ch.log == "Dot put the 9 of diamonds on Discard"


def test_take_a_loose_card_into_your_hand(t):
    add_card(t, "x", "D9", up=True)
    new, ch = ok(t, 2, O.Move(id="x", to="hand2"))
    assert hand(new, 2).cards == ["x"] and card(new, "x").parent == "hand2"
    assert "x" in visible_faces(new, 2)
    assert all("x" not in visible_faces(new, s) for s in (0, 1, 3, None))
    assert ch.log == "Cyd took a card into their hand"


def test_give_a_card_into_the_middle_of_another_hand(t):
    for cid in ("a", "b", "c", "u", "w"):
        add_card(t, cid, "H" + str(len(t.objects) % 13 + 1))
    give(t, 0, ["a", "b", "c"])
    give(t, 1, ["u", "w"])
    new, ch = ok(t, 0, O.Move(id="a", to="hand1", index=1))
    (given,) = new_objects(t, new)  # a new id: seat 2 can't tell where it sat in Ana's hand
    assert "a" not in new.objects
    assert hand(new, 0).cards == ["b", "c"] and hand(new, 1).cards == ["u", given.id, "w"]
    assert given.parent == "hand1"
    assert given.id in visible_faces(new, 1) and given.id not in visible_faces(new, 0)
    assert ch.log == "Ana gave a card to seat 2"


def test_reordering_your_own_hand_is_silent(t):
    for cid, face in (("a", "H1"), ("b", "H2"), ("c", "H3")):
        add_card(t, cid, face)
    give(t, 0, ["a", "b", "c"])
    new, ch = ok(t, 0, O.Move(id="c", to="hand0", index=0))
    assert hand(new, 0).cards == ["c", "a", "b"]
    assert ch.log == ""


def test_card_onto_a_loose_card_forms_a_pile_where_that_card_lies(t):
    add_card(t, "a", "H1", up=True, x=500, y=400)
    add_card(t, "b", "H2", up=True)
    zmax = t.zmax
    new, ch = ok(t, 0, O.Move(id="b", to="a"))
    (pile,) = new_objects(t, new)
    assert isinstance(pile, Stack) and not pile.holder
    assert pile.cards == ["a", "b"] and (pile.x, pile.y) == (500, 400) and pile.z == zmax + 1
    assert card(new, "a").parent == card(new, "b").parent == pile.id
    assert visible_faces(new, None) == {"b": "H2"}  # a is covered now
    assert ch.log == "Ana put the 2 of hearts on a pile"


def test_card_onto_itself_or_onto_a_card_in_a_pile_is_invalid(t):
    add_card(t, "a", "H1")
    refused(t, 0, O.Move(id="a", to="a"), "invalid_move")
    refused(t, 0, O.Move(id="a", to=deck(t).cards[-1]), "invalid_move")


def test_last_card_of_a_pile_cannot_go_back_into_it(t):
    (only,) = add_pile(t, "p", ["S1"])
    refused(t, 0, O.Move(id=only, to="p"), "invalid_move")
    # a holder stays when emptied, so putting its only card back is fine
    add_card(t, "x", "D2")
    t2, _ = ok(t, 0, O.Move(id="x", to="discard"))
    new, _ = ok(t2, 0, O.Move(id="x", to="discard", index=0))
    assert stack(new, "discard").cards == ["x"]


def test_move_needs_a_destination_or_both_coordinates(t):
    add_card(t, "a", "H1")
    refused(t, 0, O.Move(id="a"), "invalid_move")
    refused(t, 0, O.Move(id="a", x=5), "invalid_move")
    refused(t, 0, O.Move(id="deck", y=5), "invalid_move")
    refused(t, 0, O.Move(id="k1"), "invalid_move")


def test_cards_only_go_into_piles_and_hands(t):
    add_card(t, "a", "H1")
    for dest in ("k1", "n1", "d1", "l1"):
        refused(t, 0, O.Move(id="a", to=dest), "invalid_move")
    refused(t, 0, O.Move(id="a", to="nope"), "unknown_object")


def test_locked_loose_card_cannot_move(t):
    add_card(t, "a", "H1", locked=True)
    refused(t, 0, O.Move(id="a", x=1, y=1), "forbidden")
    refused(t, 0, O.Move(id="a", to="discard"), "forbidden")


def test_a_locked_card_cannot_be_swept_into_a_new_pile(t):
    """Dropping a card on a locked loose card would make a pile of it, and piles move freely:
    the locked card would move (and, in a pile, its lock is no longer checked at all)."""
    add_card(t, "L", "H4", up=True, locked=True)
    add_card(t, "m", "H5")
    refused(t, 0, O.Move(id="m", to="L"), "forbidden")


# --- move: other objects ----------------------------------------------------------------------


def test_move_a_pile_takes_its_cards_along(t):
    """The cards stay in the pile; whatever the model stores for them, the delta says so."""
    ids = add_pile(t, "p", ["S1", "S2"], up=True)
    new, ch = ok(t, 0, O.Move(id="p", x=800, y=90))
    p = stack(new, "p")
    assert (p.x, p.y, p.z) == (800, 90, new.zmax)
    assert p.cards == ids and all(card(new, c).parent == "p" for c in ids)
    assert visible_faces(new, None) == {ids[1]: "S2"}
    assert ch.log == "Ana moved a pile"


def test_move_an_empty_zone_by_its_label(t):
    new, ch = ok(t, 1, O.Move(id="discard", x=10, y=10))
    assert (stack(new, "discard").x, stack(new, "discard").y) == (10, 10)
    assert ch.log == "Ben moved Discard"


def test_locked_pile_cannot_move(t):
    deck(t).locked = True
    refused(t, 0, O.Move(id="deck", x=1, y=1), "forbidden")


def test_pile_onto_pile_merges(t):
    a = add_pile(t, "p", ["S1", "S2"])
    b = add_pile(t, "q", ["S3"])
    new, ch = ok(t, 0, O.Move(id="p", to="q"))
    assert stack(new, "q").cards == b + a
    assert "p" not in new.objects and "p" in ch.removed
    assert ch.log == "Ana put 2 cards on a pile"


def test_pile_onto_your_hand_picks_it_up(t):
    ids = add_pile(t, "p", ["S1", "S2", "S3"])
    new, ch = ok(t, 1, O.Move(id="p", to="hand1"))
    assert sorted(hand(new, 1).cards) == sorted(ids)
    assert all(card(new, c).parent == "hand1" for c in ids)
    assert "p" not in new.objects and ch.removed == {"p"}
    assert set(visible_faces(new, 1)) == set(ids)
    assert ch.log == "Ben picked up 3 cards"


def test_picking_up_a_zone_leaves_it_empty(t):
    n = len(deck(t).cards)
    new, ch = ok(t, 0, O.Move(id="deck", to="hand0"))
    assert deck(new).cards == [] and len(hand(new, 0).cards) == n
    assert ch.log == "Ana picked up 52 cards"


def test_pile_onto_another_seats_hand_is_forbidden(t):
    add_pile(t, "p", ["S1"])
    refused(t, 0, O.Move(id="p", to="hand1"), "forbidden")


def test_pile_onto_a_card_or_a_counter_is_invalid(t):
    add_pile(t, "p", ["S1"])
    add_card(t, "a", "H1")
    refused(t, 0, O.Move(id="p", to="a"), "invalid_move")
    refused(t, 0, O.Move(id="p", to="n1"), "invalid_move")


def test_hands_stay_with_their_seat(t):
    refused(t, 0, O.Move(id="hand0", x=1, y=1), "invalid_move")


@pytest.mark.parametrize(
    ("oid", "name"),
    [
        ("k1", "chips"),
        ("n1", "a counter"),
        ("d1", "a die"),
        ("l1", "a label"),
    ],
)
def test_move_other_objects(t, oid, name):
    new, ch = ok(t, 2, O.Move(id=oid, x=123, y=321))
    o = new.objects[oid]
    assert (o.x, o.y, o.z) == (123, 321, new.zmax)
    assert ch.dirty == {oid}
    assert ch.log == f"Cyd moved {name}"
    refused(t, 2, O.Move(id=oid, to="discard"), "invalid_move")
    t.objects[oid].locked = True
    refused(t, 2, O.Move(id=oid, x=1, y=1), "forbidden")


# --- flip -------------------------------------------------------------------------------------


def test_flip_a_loose_card(t):
    add_card(t, "a", "H1")
    new, ch = ok(t, 0, O.Flip(id="a"))
    assert card(new, "a").up and ch.dirty == {"a"}
    assert visible_faces(new, None) == {"a": "H1"}
    assert ch.log == "Ana flipped a card"
    new, _ = ok(new, 0, O.Flip(id="a"))
    assert not card(new, "a").up and visible_faces(new, 0) == {}


def test_flip_the_top_of_the_deck_shows_it_to_everyone(t):
    top = deck(t).cards[-1]
    face = card(t, top).face
    new, ch = ok(t, 3, O.Flip(id=top))
    assert card(new, top).up and {"deck", top} <= ch.dirty
    for seat in (0, 1, 2, 3, None):
        assert visible_faces(new, seat) == {top: face}


def test_flip_a_card_in_your_hand_keeps_it_private(t):
    add_card(t, "a", "H1")
    give(t, 2, ["a"])
    new, _ = ok(t, 2, O.Flip(id="a"))
    assert card(new, "a").up
    assert visible_faces(new, 2) == {"a": "H1"} and visible_faces(new, None) == {}


def test_flip_a_pile_reverses_it_and_turns_every_card(t):
    ids = add_pile(t, "p", ["S1", "S2", "S3"])
    card(t, ids[1]).up = True
    new, ch = ok(t, 0, O.Flip(id="p"))
    assert stack(new, "p").cards == ids[::-1]
    assert [card(new, c).up for c in ids] == [True, False, True]
    assert visible_faces(new, None) == {ids[0]: "S1"}
    assert {"p", *ids} <= ch.dirty
    assert ch.log == "Ana flipped a pile"


def test_only_cards_and_piles_flip(t):
    for oid in ("k1", "n1", "d1", "l1", "hand0"):
        refused(t, 0, O.Flip(id=oid), "invalid_move")


# --- rotate -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("rot", "expected"), [(90, 90), (-90, 270), (360, 0), (-360, 0)])
def test_rotate_a_card(t, rot, expected):
    add_card(t, "a", "H1")
    new, ch = ok(t, 0, O.Rotate(id="a", rot=rot))
    assert card(new, "a").rot == expected and ch.dirty == {"a"}
    assert ch.log == "Ana rotated a card"


def test_rotate_piles_and_things_but_not_hands(t):
    new, ch = ok(t, 1, O.Rotate(id="deck", rot=45))
    assert deck(new).rot == 45 and ch.log == "Ben rotated Deck"
    new, ch = ok(t, 1, O.Rotate(id="d1", rot=180))
    assert new.objects["d1"].rot == 180 and ch.log == "Ben rotated a die"
    refused(t, 1, O.Rotate(id="hand1", rot=90), "invalid_move")
    t.objects["d1"].locked = True
    refused(t, 1, O.Rotate(id="d1", rot=90), "forbidden")


# --- deal -------------------------------------------------------------------------------------


def test_deal_round_robin_from_the_top(t):
    d = list(deck(t).cards)
    new, ch = ok(t, 0, O.Deal(id="deck", n=2))
    for s in range(4):
        assert hand(new, s).cards == [d[-1 - s], d[-5 - s]]
        assert all(card(new, c).parent == f"hand{s}" for c in hand(new, s).cards)
    assert deck(new).cards == d[:-8]
    assert ch.log == "Ana dealt 2 cards from Deck to each player"
    for s in range(4):
        mine = {c: card(new, c).face for c in hand(new, s).cards}
        assert visible_faces(new, s) == mine
    assert visible_faces(new, None) == {}


def test_deal_turns_cards_face_down(t):
    add_pile(t, "p", ["S1", "S2", "S3", "S4"], up=True)
    new, _ = ok(t, 0, O.Deal(id="p", n=1))
    assert all(not card(new, hand(new, s).cards[0]).up for s in range(4))
    assert "p" not in new.objects


def test_deal_only_to_seated_players_by_default():
    t = seated_table(seated=2)
    d = list(deck(t).cards)
    new, _ = ok(t, 0, O.Deal(id="deck", n=3))
    assert len(hand(new, 0).cards) == len(hand(new, 1).cards) == 3
    assert hand(new, 2).cards == hand(new, 3).cards == []
    assert deck(new).cards == d[:-6]


def test_deal_to_listed_seats_in_seat_order(t):
    d = list(deck(t).cards)
    new, _ = ok(t, 0, O.Deal(id="deck", n=1, seats=[2, 0, 2]))
    assert hand(new, 0).cards == [d[-1]] and hand(new, 2).cards == [d[-2]]
    assert hand(new, 1).cards == hand(new, 3).cards == []


def test_deal_refusals(t):
    refused(t, 0, O.Deal(id="deck", n=14), "invalid_move")  # 56 > 52
    refused(t, 0, O.Deal(id="deck", n=1, seats=[4]), "invalid_move")  # no seat 5
    refused(t, 0, O.Deal(id="k1", n=1), "invalid_move")
    refused(t, 0, O.Deal(id="nope", n=1), "unknown_object")
    new, _ = ok(t, 0, O.Deal(id="deck", n=13))  # exactly enough; the deck zone stays
    assert deck(new).cards == [] and all(len(hand(new, s).cards) == 13 for s in range(4))


def test_deal_with_nobody_seated_is_invalid():
    t = seated_table(seated=0)
    refused(t, 0, O.Deal(id="deck", n=1), "invalid_move")


# --- take -------------------------------------------------------------------------------------


def test_take_the_top_cards_into_your_hand(t):
    d = list(deck(t).cards)
    new, ch = ok(t, 1, O.Take(id="deck", n=3))
    assert hand(new, 1).cards == [d[-1], d[-2], d[-3]]
    assert deck(new).cards == d[:-3]
    assert set(visible_faces(new, 1)) == set(d[-3:]) and visible_faces(new, 0) == {}
    assert ch.log == "Ben took 3 cards from Deck"
    _, ch = ok(t, 1, O.Take(id="deck"))
    assert ch.log == "Ben took 1 card from Deck"


def test_take_the_whole_pile_removes_it(t):
    ids = add_pile(t, "p", ["S1", "S2"])
    new, ch = ok(t, 0, O.Take(id="p", n=2))
    assert hand(new, 0).cards == ids[::-1] and ch.removed == {"p"}
    assert ch.log == "Ana took 2 cards from a pile"


def test_take_refusals(t):
    add_pile(t, "p", ["S1", "S2"])
    refused(t, 0, O.Take(id="p", n=3), "invalid_move")
    refused(t, 0, O.Take(id="k1"), "invalid_move")
    refused(t, 0, O.Take(id="hand1"), "invalid_move")
    refused(t, 0, O.Take(id="nope"), "unknown_object")


# --- split ------------------------------------------------------------------------------------


def test_split_lifts_the_top_cards_into_a_new_pile(t):
    d = list(deck(t).cards)
    zmax = t.zmax
    new, ch = ok(t, 0, O.Split(id="deck", n=5, x=900, y=600))
    (pile,) = new_objects(t, new)
    assert isinstance(pile, Stack)
    assert pile.cards == d[-5:] and (pile.x, pile.y, pile.z) == (900, 600, zmax + 1)
    assert all(card(new, c).parent == pile.id for c in d[-5:])
    assert deck(new).cards == d[:-5]
    assert pile.id in ch.dirty
    assert ch.log == "Ana split 5 cards off Deck"


def test_split_refusals(t):
    add_pile(t, "p", ["S1", "S2"])
    refused(t, 0, O.Split(id="p", n=2, x=0, y=0), "invalid_move")  # would empty the pile
    refused(t, 0, O.Split(id="p", n=3, x=0, y=0), "invalid_move")
    refused(t, 0, O.Split(id="deck", n=53, x=0, y=0), "invalid_move")
    refused(t, 0, O.Split(id="k1", n=1, x=0, y=0), "invalid_move")


def test_split_all_of_a_zone_leaves_it_empty(t):
    new, _ = ok(t, 0, O.Split(id="deck", n=52, x=0, y=0))
    assert deck(new).cards == [] and "deck" in new.objects


# --- merge ------------------------------------------------------------------------------------


def test_merge_puts_a_pile_on_top_of_another(t):
    a = add_pile(t, "p", ["S1", "S2"])
    b = add_pile(t, "q", ["S3"], up=True)
    new, ch = ok(t, 0, O.Merge(id="p", into="q"))
    assert stack(new, "q").cards == b + a and "p" in ch.removed
    assert all(card(new, c).parent == "q" for c in a)
    assert ch.log == "Ana put 2 cards on a pile"


def test_merge_a_zone_leaves_it_empty(t):
    a = add_pile(t, "p", ["S1"])
    d = list(deck(t).cards)
    new, ch = ok(t, 0, O.Merge(id="deck", into="p"))
    assert deck(new).cards == [] and stack(new, "p").cards == a + d
    assert ch.log == "Ana put 52 cards on a pile"


def test_merge_refusals(t):
    add_pile(t, "p", ["S1"])
    refused(t, 0, O.Merge(id="p", into="p"), "invalid_move")
    refused(t, 0, O.Merge(id="p", into="k1"), "invalid_move")
    refused(t, 0, O.Merge(id="p", into="hand0"), "invalid_move")
    refused(t, 0, O.Merge(id="p", into="nope"), "unknown_object")


# --- chips, counters, dice --------------------------------------------------------------------


def test_chips_move(t):
    new, ch = ok(t, 0, O.ChipsMove(id="k1", to="k2", n=7))
    k1, k2 = new.objects["k1"], new.objects["k2"]
    assert isinstance(k1, Chips) and isinstance(k2, Chips)
    assert (k1.count, k2.count) == (13, 12) and ch.dirty == {"k1", "k2"}
    assert ch.log == "Ana moved 7 chips"
    refused(t, 0, O.ChipsMove(id="k1", to="k2", n=21), "invalid_move")
    refused(t, 0, O.ChipsMove(id="k1", to="k1", n=1), "invalid_move")
    refused(t, 0, O.ChipsMove(id="k1", to="n1", n=1), "invalid_move")
    refused(t, 0, O.ChipsMove(id="k1", to="nope", n=1), "unknown_object")


def test_chips_add_and_remove(t):
    new, ch = ok(t, 0, O.ChipsAdd(id="k1", n=5))
    assert new.objects["k1"].count == 25 and ch.log == "Ana added 5 chips"  # type: ignore[union-attr]
    new, ch = ok(t, 0, O.ChipsAdd(id="k1", n=-1))
    assert new.objects["k1"].count == 19 and ch.log == "Ana removed 1 chip"  # type: ignore[union-attr]
    refused(t, 0, O.ChipsAdd(id="k1", n=-21), "invalid_move")
    refused(t, 0, O.ChipsAdd(id="d1", n=1), "invalid_move")
    t.objects["k1"].count = 99_999  # type: ignore[union-attr]
    refused(t, 0, O.ChipsAdd(id="k1", n=2), "invalid_move")


def test_counter_set_and_step(t):
    new, ch = ok(t, 1, O.CounterSet(id="n1", value=7))
    assert new.objects["n1"].value == 7 and ch.log == "Ben set Score to 7"  # type: ignore[union-attr]
    new, ch = ok(t, 1, O.CounterSet(id="n1", delta=-2))  # 3 + (-2 * step 2)
    assert new.objects["n1"].value == -1 and ch.log == "Ben set Score to -1"  # type: ignore[union-attr]
    refused(t, 1, O.CounterSet(id="n1", value=1, delta=1), "invalid_move")
    refused(t, 1, O.CounterSet(id="n1"), "invalid_move")
    refused(t, 1, O.CounterSet(id="d1", value=1), "invalid_move")
    t.objects["n1"].value = 999_999  # type: ignore[union-attr]
    refused(t, 1, O.CounterSet(id="n1", delta=1), "invalid_move")


def test_roll_gives_every_face_of_the_die(t):
    seen = set()
    cur = t
    for _ in range(300):  # P(some face of six never shows) < 6 * (5/6)**300 ~ 1e-23
        cur, ch = ok(cur, 0, O.Roll(id="d1"))
        die = cur.objects["d1"]
        assert isinstance(die, Die) and 1 <= die.value <= 6
        assert ch.dirty == {"d1"} and ch.log == f"Ana rolled a {die.value}"
        seen.add(die.value)
    assert seen == {1, 2, 3, 4, 5, 6}
    refused(t, 0, O.Roll(id="n1"), "invalid_move")


# --- create -----------------------------------------------------------------------------------


def test_create_a_card(t):
    zmax = t.zmax
    new, ch = ok(t, 0, O.Create(kind="card", x=10, y=20, faces=["H7"], up=True, back="red"))
    (c,) = new_objects(t, new)
    assert isinstance(c, Card)
    assert (c.face, c.up, c.back, c.x, c.y, c.z, c.parent) == (
        "H7",
        True,
        "red",
        10,
        20,
        zmax + 1,
        None,
    )
    assert ch.dirty == {c.id} and ch.log == "Ana added a card"
    refused(t, 0, O.Create(kind="card", faces=["H7", "H8"]), "invalid_move")
    refused(t, 0, O.Create(kind="card"), "invalid_move")


def test_create_a_standard_deck(t):
    new, ch = ok(t, 0, O.Create(kind="deck", x=5, y=6))
    made = new_objects(t, new)
    (pile,) = [o for o in made if isinstance(o, Stack)]
    assert len(made) == 53 and not pile.holder
    assert [card(new, c).face for c in pile.cards] == STANDARD_FACES
    assert all(not card(new, c).up and card(new, c).parent == pile.id for c in pile.cards)
    assert ch.dirty == {o.id for o in made}
    assert ch.log == "Ana added a pile of 52 cards"


def test_create_homemade_piles_and_zones(t):
    new, ch = ok(
        t, 0, O.Create(kind="stack", faces=["Ace of cups", "Two of cups"], up=True, layout="row")
    )
    (pile,) = [o for o in new_objects(t, new) if isinstance(o, Stack)]
    assert pile.layout == "row" and len(visible_faces(new, None)) == 2
    assert ch.log == "Ana added a pile of 2 cards"
    refused(t, 0, O.Create(kind="stack"), "invalid_move")
    refused(t, 0, O.Create(kind="deck", faces=[]), "invalid_move")
    new, ch = ok(t, 0, O.Create(kind="zone", label="Trick", w=200, h=100))
    (zone,) = new_objects(t, new)
    assert isinstance(zone, Stack)
    assert (zone.holder, zone.label, zone.w, zone.h, zone.cards) == (True, "Trick", 200, 100, [])
    assert ch.log == "Ana added a zone"


@pytest.mark.parametrize(
    ("op", "cls", "fields", "log"),
    [
        (O.Create(kind="chips"), Chips, {"count": 10, "color": "red", "value": 1}, "chips"),
        (
            O.Create(kind="chips", count=0, color="green", value=5, label="Pot"),
            Chips,
            {"count": 0, "color": "green", "value": 5, "label": "Pot"},
            "chips",
        ),
        (
            O.Create(kind="counter", value=-4, step=5, label="Pts"),
            Counter,
            {"value": -4, "step": 5, "label": "Pts"},
            "a counter",
        ),
        (O.Create(kind="die", sides=20), Die, {"sides": 20, "value": 1}, "a die"),
        (O.Create(kind="label", text="Trumps"), Label, {"text": "Trumps"}, "a label"),
    ],
)
def test_create_things(t, op, cls, fields, log):
    new, ch = ok(t, 2, op)
    (obj,) = new_objects(t, new)
    assert isinstance(obj, cls) and obj.z == new.zmax
    assert {k: getattr(obj, k) for k in fields} == fields
    assert ch.log == f"Cyd added {log}"


def test_create_limits(t):
    refused(t, 0, O.Create(kind="deck", faces=["a", "b", "c", "d"]), "limit", Limits(max_deck=3))
    room = len(t.objects)
    refused(t, 0, O.Create(kind="deck"), "limit", Limits(max_objects=room + 52))
    ok(t, 0, O.Create(kind="deck"), Limits(max_objects=room + 53))
    refused(t, 0, O.Create(kind="die"), "limit", Limits(max_objects=room))


def test_split_and_card_on_card_respect_the_object_limit(t):
    add_card(t, "a", "H1")
    add_card(t, "b", "H2")
    room = Limits(max_objects=len(t.objects))
    refused(t, 0, O.Split(id="deck", n=1, x=0, y=0), "limit", room)
    refused(t, 0, O.Move(id="a", to="b"), "limit", room)


# --- update -----------------------------------------------------------------------------------


def test_update_a_pile(t):
    new, ch = ok(t, 0, O.Update(id="discard", label="Tricks", w=300, h=200, locked=True))
    s = stack(new, "discard")
    assert (s.label, s.w, s.h, s.locked) == ("Tricks", 300, 200, True)
    assert ch.log == "Ana edited Tricks"


def test_layout_row_shows_every_face_up_card(t):
    ids = add_pile(t, "p", ["S1", "S2", "S3"], up=True)
    card(t, ids[1]).up = False
    assert visible_faces(t, None) == {ids[2]: "S3"}
    new, ch = ok(t, 0, O.Update(id="p", layout="row"))
    assert visible_faces(new, None) == {ids[0]: "S1", ids[2]: "S3"}
    assert set(ids) <= ch.dirty
    back, _ = ok(new, 0, O.Update(id="p", layout="pile"))
    assert visible_faces(back, None) == {ids[2]: "S3"}


def test_update_other_things(t):
    t.objects["d1"].value = 6  # type: ignore[union-attr]
    new, _ = ok(t, 0, O.Update(id="d1", sides=4))
    assert (new.objects["d1"].sides, new.objects["d1"].value) == (4, 4)  # type: ignore[union-attr]
    new, _ = ok(t, 0, O.Update(id="n1", step=10, label="Runs"))
    assert (new.objects["n1"].step, new.objects["n1"].label) == (10, "Runs")  # type: ignore[union-attr]
    new, _ = ok(t, 0, O.Update(id="k1", color="gold"))
    assert new.objects["k1"].color == "gold"  # type: ignore[union-attr]
    new, ch = ok(t, 0, O.Update(id="l1", text="Bye"))
    assert new.objects["l1"].text == "Bye" and ch.log == "Ana edited a label"  # type: ignore[union-attr]


def test_update_refusals(t):
    add_card(t, "a", "H1")
    refused(t, 0, O.Update(id="a", label="x"), "invalid_move")
    refused(t, 0, O.Update(id="deck"), "invalid_move")
    refused(t, 0, O.Update(id="hand0", locked=True), "invalid_move")
    refused(t, 0, O.Update(id="d1", text="x"), "invalid_move")
    refused(t, 0, O.Update(id="nope", locked=True), "unknown_object")
    with pytest.raises(CardtableError) as info:
        O.parse_op({"op": "update", "id": "a", "face": "S1"})
    assert info.value.code == "bad_request"


def test_lock_then_unlock(t):
    add_card(t, "a", "H1")
    locked, _ = ok(t, 0, O.Update(id="a", locked=True))
    refused(locked, 1, O.Move(id="a", x=1, y=1), "forbidden")
    refused(locked, 1, O.Delete(id="a"), "forbidden")
    unlocked, _ = ok(locked, 1, O.Update(id="a", locked=False))
    ok(unlocked, 1, O.Move(id="a", x=1, y=1))


# --- delete -----------------------------------------------------------------------------------


def test_delete_a_loose_card(t):
    add_card(t, "a", "H1", up=True)
    new, ch = ok(t, 0, O.Delete(id="a"))
    assert "a" not in new.objects and ch.removed == {"a"}
    assert ch.log == "Ana removed a card"


def test_delete_a_pile_with_its_cards(t):
    ids = add_pile(t, "p", ["S1", "S2"])
    new, ch = ok(t, 0, O.Delete(id="p"))
    assert ch.removed == {"p", *ids}
    assert ch.log == "Ana removed a pile"
    d = list(deck(t).cards)
    new, ch = ok(t, 0, O.Delete(id="deck"))
    assert ch.removed == {"deck", *d} and "deck" not in new.objects


def test_delete_the_top_card_of_a_pile(t):
    ids = add_pile(t, "p", ["S1", "S2"], up=True)
    new, ch = ok(t, 0, O.Delete(id=ids[1]))
    assert stack(new, "p").cards == ids[:1] and ch.removed == {ids[1]}
    assert visible_faces(new, None) == {ids[0]: "S1"}
    new, ch = ok(new, 0, O.Delete(id=ids[0]))
    assert ch.removed == {"p", ids[0]}


def test_delete_a_card_from_your_own_hand(t):
    add_card(t, "a", "H1")
    give(t, 0, ["a"])
    new, _ = ok(t, 0, O.Delete(id="a"))
    assert hand(new, 0).cards == []


def test_delete_refusals(t):
    refused(t, 0, O.Delete(id="hand0"), "invalid_move")
    refused(t, 0, O.Delete(id="nope"), "unknown_object")
    t.objects["k1"].locked = True
    refused(t, 0, O.Delete(id="k1"), "forbidden")
    deck(t).locked = True
    refused(t, 0, O.Delete(id="deck"), "forbidden")


def test_move_many_puts_the_selected_cards_on_a_pile_in_order(t):
    ids = add_pile(t, "row", ["S1", "S2", "S3"], up=True, layout="row")
    done, ch = ok(t, 0, O.MoveMany(ids=[ids[2], ids[0]], to="discard"))
    assert [done.objects[c].face for c in done.objects["discard"].cards] == ["S3", "S1"]
    assert done.objects["row"].cards == [ids[1]]
    assert ch.log == "Ana put 2 cards on Discard"


def test_move_many_refusals(t):
    ids = add_pile(t, "row", ["S1", "S2", "S3"], up=True, layout="row")
    refused(t, 0, O.MoveMany(ids=[ids[0], ids[0]], to="discard"), "invalid_move")
    refused(t, 0, O.MoveMany(ids=[ids[0], "row"], to="discard"), "invalid_move")
    refused(t, 0, O.MoveMany(ids=[ids[0]], to=ids[1]), "invalid_move")
    refused(t, 0, O.MoveMany(ids=[ids[0], "nope"], to="discard"), "unknown_object")
    inside = deck(t).cards[0]  # not the top of a pile
    refused(t, 0, O.MoveMany(ids=[ids[0], inside], to="discard"), "invalid_move")


# --- refusals common to every operation -------------------------------------------------------


def _one_of_each(t: Table) -> list[O.Op]:
    top = deck(t).cards[-1]
    add_pile(t, "p", ["S1", "S2"])
    t.objects["b1"] = Button(id="b1", label="Shuffle", steps=[ShuffleStep(id="deck")])
    return [
        O.Move(id=top, x=1, y=1),
        O.MoveMany(ids=[top], to="discard"),
        O.Flip(id=top),
        O.Rotate(id="deck", rot=90),
        O.Background(value="navy"),
        O.Press(id="b1"),
        O.Shuffle(id="deck"),
        O.Deal(id="deck", n=1),
        O.Take(id="deck"),
        O.Split(id="deck", n=1, x=0, y=0),
        O.Merge(id="p", into="deck"),
        O.ChipsMove(id="k1", to="k2", n=1),
        O.ChipsAdd(id="k1", n=1),
        O.CounterSet(id="n1", value=1),
        O.Roll(id="d1"),
        O.Create(kind="die"),
        O.Update(id="deck", label="x"),
        O.Name(id="deck", name="x"),
        O.Delete(id="l1"),
        O.Undo(),
    ]


def test_the_list_covers_every_operation(t):
    assert sorted({type(op).__struct_config__.tag for op in _one_of_each(t)}) == O.OP_NAMES


def test_spectators_cannot_operate(t):
    ops = _one_of_each(t)
    t.undo.clear()
    ok(t, 0, O.Roll(id="d1"))  # the table works for a seated player
    for op in ops:
        refused(t, None, op, "not_seated")


def test_seated_players_can_do_each_of_them(t):
    for op in _one_of_each(t):
        if isinstance(op, O.Undo):
            refused(t, 0, op, "nothing_to_undo")
        else:
            ok(t, 0, op)


@pytest.mark.parametrize(
    "op",
    [
        O.Move(id="nope", x=1, y=1),
        O.Flip(id="nope"),
        O.Rotate(id="nope", rot=1),
        O.Shuffle(id="nope"),
        O.Deal(id="nope", n=1),
        O.Take(id="nope"),
        O.Split(id="nope", n=1, x=0, y=0),
        O.Merge(id="nope", into="deck"),
        O.ChipsMove(id="nope", to="k1", n=1),
        O.ChipsAdd(id="nope", n=1),
        O.CounterSet(id="nope", value=1),
        O.Roll(id="nope"),
        O.Update(id="nope", locked=True),
        O.Delete(id="nope"),
    ],
    ids=lambda op: type(op).__name__,
)
def test_unknown_ids(t, op):
    refused(t, 0, op, "unknown_object")


def _with_ov(t: Table, ov: int) -> list[O.Op]:
    top = deck(t).cards[-1]
    return [
        O.Move(id="deck", to="discard", ov=ov),
        O.Move(id=top, x=1, y=1, ov=ov),
        O.Flip(id="deck", ov=ov),
        O.Rotate(id="deck", rot=9, ov=ov),
        O.Shuffle(id="deck", ov=ov),
        O.Deal(id="deck", n=1, ov=ov),
        O.Take(id="deck", ov=ov),
        O.Split(id="deck", n=1, x=0, y=0, ov=ov),
        O.Merge(id="deck", into="discard", ov=ov),
        O.Update(id="deck", label="x", ov=ov),
        O.Delete(id="deck", ov=ov),
    ]


def test_stale_ov_is_a_conflict(t):
    t.version = 7
    deck(t).v = 7
    card(t, deck(t).cards[-1]).v = 7
    for op in _with_ov(t, 6):
        refused(t, 0, op, "conflict")
    for op in _with_ov(t, 8):
        refused(t, 0, op, "conflict")
    for op in _with_ov(t, 7):
        new, _ = ok(t, 0, op)
        assert new.version == 8


def test_versions_count_every_commit(t):
    cur = t
    for i, op in enumerate(
        [
            O.Roll(id="d1"),
            O.ChipsAdd(id="k1", n=1),
            O.Take(id="deck"),
            O.Flip(id="deck"),
            O.Shuffle(id="deck"),
        ]
    ):
        cur, ch = ok(cur, 0, op)
        assert cur.version == i + 1
        assert all(cur.objects[o].v == i + 1 for o in ch.dirty)


# --- parse_op: the schema in front of the model -----------------------------------------------


def test_parse_op_accepts_each_operation(t):
    import msgspec

    for op in _one_of_each(t):
        payload = msgspec.to_builtins(op)
        payload["ref"] = 12
        assert O.parse_op(payload) == op


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "move",
        {"op": "teleport", "id": "a"},
        {"id": "a"},
        {"op": "move", "id": "a", "x": math.nan, "y": 1},
        {"op": "move", "id": "a", "x": math.inf},
        {"op": "move", "id": "a", "speed": 3},
        {"op": "move", "id": "a b"},
        {"op": "move", "id": ""},
        {"op": "move", "id": "a" * 41},
        {"op": "deal", "id": "deck", "n": 0},
        {"op": "create", "kind": "label", "text": "x" * 201},
        {"op": "flip", "id": 7},
        {"op": "deal", "id": "deck", "n": 1, "seats": [16]},
    ],
)
def test_parse_op_rejects_bad_payloads(payload):
    with pytest.raises(CardtableError) as info:
        O.parse_op(payload)
    assert info.value.code == "bad_request"
