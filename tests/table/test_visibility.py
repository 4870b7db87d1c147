"""What each seat sees ("What you see" in docs/protocol.md).

A card's face goes to a seat only if the card is in that seat's hand, or face up loose, or face up
on top of a pile (any face-up card of a row). Spectators (seat None) see only public faces.
"""

from __future__ import annotations

import json

from server.table import ops as O
from server.table.objects import Card
from server.table.view import card_visible, snapshot, view_object, visible_faces
from tests.table.helpers import (
    ALL_VIEWS,
    add_card,
    add_pile,
    card,
    give,
    ok,
    seated_table,
)


def faces_in_snapshot(t, seat) -> dict[str, str]:
    return {o["id"]: o["face"] for o in snapshot(t, seat)["objects"] if "face" in o}


def test_a_hand_is_seen_only_by_its_owner(t):
    add_card(t, "a", "Secret-A")
    add_card(t, "b", "Secret-B", up=True)
    give(t, 1, ["a", "b"])
    assert visible_faces(t, 1) == {"a": "Secret-A", "b": "Secret-B"}
    for seat in (0, 2, 3, None):
        assert visible_faces(t, seat) == {}
        text = json.dumps(snapshot(t, seat))
        assert "Secret-A" not in text and "Secret-B" not in text
    # everyone sees the hand itself and how many cards it holds; only its owner its cards
    for seat in ALL_VIEWS:
        objs = {o["id"]: o for o in snapshot(t, seat)["objects"]}
        h = objs["hand1"]
        assert h["n"] == 2 and h["seat"] == 1
        if seat == 1:
            assert h["cards"] == ["a", "b"] and {"a", "b"} <= set(objs)
        else:
            assert "cards" not in h and not {"a", "b"} & set(objs)
            assert '"a"' not in json.dumps(snapshot(t, seat))


def test_face_down_cards_are_never_seen(t):
    add_card(t, "a", "Secret-A")
    add_pile(t, "p", ["Secret-P1", "Secret-P2"])
    add_pile(t, "r", ["Secret-R1", "Secret-R2"], layout="row")
    for seat in ALL_VIEWS:
        assert visible_faces(t, seat) == {}
        assert "Secret" not in json.dumps(snapshot(t, seat))


def test_face_up_loose_cards_are_public(t):
    add_card(t, "a", "H9", up=True)
    for seat in ALL_VIEWS:
        assert visible_faces(t, seat) == {"a": "H9"}


def test_only_the_top_of_a_pile_shows(t):
    ids = add_pile(t, "p", ["Under-1", "Under-2", "S9"], up=True)
    for seat in ALL_VIEWS:
        assert visible_faces(t, seat) == {ids[2]: "S9"}
        assert "Under" not in json.dumps(snapshot(t, seat))
    card(t, ids[2]).up = False
    for seat in ALL_VIEWS:
        assert visible_faces(t, seat) == {}


def test_every_face_up_card_of_a_row_shows(t):
    ids = add_pile(t, "r", ["H1", "Hidden-2", "H3"], up=True, layout="row")
    card(t, ids[1]).up = False
    for seat in ALL_VIEWS:
        assert visible_faces(t, seat) == {ids[0]: "H1", ids[2]: "H3"}
        assert "Hidden-2" not in json.dumps(snapshot(t, seat))


def test_views_differ_only_in_faces_and_other_seats_hands(t):
    add_card(t, "a", "H1")
    add_card(t, "c", "H3")
    give(t, 0, ["a"])
    give(t, 2, ["c"])
    add_card(t, "b", "H2", up=True)
    add_pile(t, "p", ["S1", "S2"], up=True)
    ok(t, 0, O.Flip(id="deck"))

    def bare(o: dict) -> dict:
        return {k: v for k, v in o.items() if k not in ("face", "cards")}

    base = {oid: bare(view_object(t, o, None)) for oid, o in t.objects.items()}
    for seat in ALL_VIEWS:
        snap = snapshot(t, seat)
        assert (snap["code"], snap["v"], snap["seats"], snap["template"], snap["game"]) == (
            "ABCDEFGH",
            t.version,
            4,
            "standard",
            None,
        )
        assert {p["id"]: p["seat"] for p in snap["players"]} == {
            "p0": 0,
            "p1": 1,
            "p2": 2,
            "p3": 3,
            "p9": None,
        }
        objs = {o["id"]: o for o in snap["objects"]}
        hidden = {cid for s, cid in ((0, "a"), (2, "c")) if s != seat}
        assert set(objs) == set(t.objects) - hidden
        assert {i: bare(o) for i, o in objs.items()} == {
            i: o for i, o in base.items() if i not in hidden
        }
        for oid, o in objs.items():
            assert o["t"] == type(t.objects[oid]).__name__.lower()
            assert o["v"] == t.objects[oid].v


def test_snapshot_faces_follow_the_rule_for_every_card(t):
    """Cross-check snapshot, visible_faces and card_visible against the rule, card by card."""
    add_card(t, "l1c", "H1", up=True)
    add_card(t, "l2c", "H2")
    for cid, face in (("a", "H3"), ("b", "H4")):
        add_card(t, cid, face)
    give(t, 2, ["a", "b"])
    card(t, "b").up = True
    add_pile(t, "p", ["S1", "S2", "S3"], up=True)
    add_pile(t, "r", ["D1", "D2", "D3"], up=True, layout="row")
    card(t, "r_1").up = False
    expected_public = {"l1c": "H1", "p_2": "S3", "r_0": "D1", "r_2": "D3"}
    assert visible_faces(t, None) == expected_public
    for seat in ALL_VIEWS:
        expected = dict(expected_public)
        if seat == 2:
            expected.update({"a": "H3", "b": "H4"})
        assert visible_faces(t, seat) == expected
        assert faces_in_snapshot(t, seat) == expected
        for o in t.objects.values():
            if isinstance(o, Card):
                assert card_visible(t, o, seat) == (o.id in expected)
                assert ("face" in view_object(t, o, seat)) == (o.id in expected)


def test_after_a_deal_each_seat_sees_exactly_its_own_hand(t):
    new, _ = ok(t, 0, O.Deal(id="deck", n=5))
    hands = [set(new.objects[f"hand{s}"].cards) for s in range(4)]  # type: ignore[union-attr]
    for s in range(4):
        assert set(visible_faces(new, s)) == hands[s]
    assert visible_faces(new, None) == {}


def test_an_empty_seat_hand_and_spectator_see_the_same_public_faces():
    t = seated_table(seated=2)
    t2, _ = ok(t, 0, O.Deal(id="deck", n=3, seats=[0, 3]))
    t3, _ = ok(t2, 0, O.Flip(id="deck"))
    public = visible_faces(t3, None)
    assert len(public) == 1
    for seat in (0, 1, 2, 3):
        mine = set(t3.objects[f"hand{seat}"].cards)  # type: ignore[union-attr]
        assert set(visible_faces(t3, seat)) == set(public) | mine
