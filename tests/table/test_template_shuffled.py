"""A template's deck starts shuffled by the room's random source (issue 13: free play began in
suit order, so a first draw was always the same card)."""

from __future__ import annotations

import random

from server.table.apply import STANDARD_FACES
from server.table.objects import Card, Stack
from server.table.templates import new_table


def deck_faces(seed: int, template: str = "standard") -> list[str]:
    t = new_table("ABCDEFGH", template, 4, 0.0, random.Random(seed))
    deck = t.objects["deck"]
    assert isinstance(deck, Stack)
    faces = []
    for cid in deck.cards:
        c = t.objects[cid]
        assert isinstance(c, Card) and c.face is not None
        faces.append(c.face)
    return faces


def test_standard_deck_starts_shuffled_and_complete() -> None:
    faces = deck_faces(1)
    assert sorted(faces) == sorted(STANDARD_FACES)
    assert faces != list(STANDARD_FACES)


def test_the_shuffle_follows_the_injected_source() -> None:
    assert deck_faces(7) == deck_faces(7)
    assert deck_faces(7) != deck_faces(8)
    jokers = deck_faces(3, "standard-jokers")
    assert sorted(jokers) == sorted([*STANDARD_FACES, "J1", "J2"])
