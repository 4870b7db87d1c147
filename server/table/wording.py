"""Words for the room log: a card named by its face, only when everyone may see that face.

A log line is public (every seat and every spectator reads it), so a card is named only when its
face is public after the operation: face up loose on the table or showing on a pile (the top
card, or any face-up card of a row). Anything else stays "a card".
"""

from __future__ import annotations

from plugins import cards
from server.table.decks import read_face
from server.table.objects import Card, Table
from server.table.view import card_visible


def face_words(face: str) -> str | None:
    """``"the 7 of hearts"``, ``"the red joker"``, ``'"Fireball"'`` for a custom card with text;
    ``None`` for a face that has no words (a picture-only card)."""
    if face in cards.STANDARD or face in ("J1", "J2"):
        return f"the {cards.card_name(face)}"
    spec = read_face(face)
    if spec is not None and spec.text:
        text = " ".join(spec.text.split())
        return f'"{text if len(text) <= 40 else text[:39] + "…"}"'
    return None


def public_card(table: Table, card: Card) -> str:
    """How the log names ``card`` as it lies now: its face if everyone sees it, else "a card"."""
    if card_visible(table, card, None):
        return face_words(card.face) or "a card"
    return "a card"
