"""Room templates: the starting tables ``blank``, ``standard`` (52) and ``standard-jokers`` (54).

A template's deck starts shuffled (by the injected random source), as a deck on a real table
would be after the first shuffle: a new player's first draw should not be the ace of clubs."""

from __future__ import annotations

import random

from plugins.cards import JOKERS
from server.errors import BAD_REQUEST, CardtableError
from server.table import fairplay
from server.table.apply import STANDARD_FACES, new_id
from server.table.objects import TABLE_H, TABLE_W, Card, Hand, Stack, Table, hand_id

TEMPLATES = ("blank", "standard", "standard-jokers")


def _deck(table: Table, faces: list[str], x: float, y: float, rng: random.Random | None) -> None:
    deck = Stack(id="deck", holder=True, label="Deck", x=x, y=y, w=110.0, h=150.0, z=1)
    faces = list(faces)
    (rng or random.SystemRandom()).shuffle(faces)
    for face in faces:
        card = Card(id=new_id("c", rng), face=face, parent=deck.id, x=x, y=y, home=deck.id)
        table.objects[card.id] = card
        deck.cards.append(card.id)
    table.objects[deck.id] = deck
    table.objects["discard"] = Stack(
        id="discard", holder=True, label="Discard", x=x + 160, y=y, w=110.0, h=150.0, z=2
    )
    table.zmax = 2


def new_table(
    code: str, template: str, seats: int, now: float, rng: random.Random | None = None
) -> Table:
    """A room's first table; ``rng`` makes the card ids (the system's secure source by default)."""
    if template not in TEMPLATES:
        raise CardtableError(
            BAD_REQUEST, f"Unknown template {template!r}; use one of " + ", ".join(TEMPLATES) + "."
        )
    table = Table(code=code, seats=seats, template=template, created_at=now)
    for s in range(seats):
        table.objects[hand_id(s)] = Hand(id=hand_id(s), seat=s)
    cx, cy = TABLE_W / 2 - 135, TABLE_H / 2 - 75
    if template == "standard":
        _deck(table, list(STANDARD_FACES), cx, cy, rng)
    elif template == "standard-jokers":
        _deck(table, [*STANDARD_FACES, *JOKERS], cx, cy, rng)
    fairplay.commit_to(table, 1, rng or random.SystemRandom())  # shuffle 1's seed, fixed now
    return table
