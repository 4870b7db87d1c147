"""Log lines name a moved card when its face is public after the move, and never otherwise."""

from __future__ import annotations

import pytest

from server.table import ops as O
from server.table.decks import custom_face
from server.table.wording import face_words
from tests.table.helpers import add_card, add_pile, deck, give, ok


def test_a_card_played_face_up_from_a_hand_is_named(t):
    add_card(t, "a", "H7")
    give(t, 1, ["a"])
    _, ch = ok(t, 1, O.Move(id="a", x=300, y=300, up=True))
    assert ch.log == "Ben played the 7 of hearts"
    _, ch = ok(t, 1, O.Move(id="a", to="discard", up=True))
    assert ch.log == "Ben played the 7 of hearts on Discard"


@pytest.mark.parametrize(
    "op",
    [
        O.Move(id="a", x=300, y=300, up=False),  # face down on the table
        O.Move(id="a", to="discard", up=False),  # face down on a pile
        O.Move(id="a", to="p", index=0, up=True),  # face up, but under the pile's top card
        O.Move(id="a", to="hand2"),  # into another hand
    ],
    ids=["face_down", "face_down_on_pile", "under_the_top", "to_another_hand"],
)
def test_a_hidden_card_is_never_named(t, op):
    add_pile(t, "p", ["S1", "S2"], up=True)
    add_card(t, "a", "H7")
    give(t, 1, ["a"])
    _, ch = ok(t, 1, op)
    assert "hearts" not in ch.log and "7" not in ch.log
    assert "a card" in ch.log


def test_drawing_the_top_card_into_your_hand_names_nothing(t):
    top = deck(t).cards[-1]
    t.objects[top].up = True  # type: ignore[union-attr]
    _, ch = ok(t, 0, O.Move(id=top, to="hand0"))
    assert ch.log == "Ana took a card into their hand"


def test_a_face_up_card_moved_on_the_table_is_named_and_a_face_down_one_is_not(t):
    add_card(t, "a", "S12", up=True)
    add_card(t, "b", "S13", up=False)
    _, ch = ok(t, 0, O.Move(id="a", x=10, y=10))
    assert ch.log == "Ana moved the queen of spades"
    _, ch = ok(t, 0, O.Move(id="b", x=10, y=10))
    assert ch.log == "Ana moved a card"


def test_custom_and_picture_cards(t):
    add_card(t, "a", custom_face("Fire\nball", "red"), up=True)
    _, ch = ok(t, 0, O.Move(id="a", x=5, y=5))
    assert ch.log == 'Ana moved "Fire ball"'
    assert face_words(custom_face("x" * 100)) == f'"{"x" * 39}…"'
    assert face_words(custom_face("", image="a" * 64)) is None
    assert face_words("J1") == "the red joker"
