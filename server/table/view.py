"""Visibility: what one seat may see of the table. The only place card faces leave the model.

A card's face is visible to a seat when the card is in that seat's hand, or face up loose on the
table, or face up on top of a pile (a fanned "row" stack shows every face-up card). Anything else
is sent without its face: another seat's hand, a face-down card, the inside of a pile.
Spectators are seat ``None`` and see only what is public.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from server.table.objects import Card, Hand, Obj, Stack, Table

_to_builtins = msgspec.to_builtins


def card_visible(table: Table, card: Card, seat: int | None) -> bool:
    if card.parent is None:
        return card.up
    parent = table.objects.get(card.parent)
    if isinstance(parent, Hand):
        return seat is not None and parent.seat == seat
    if isinstance(parent, Stack):
        if not card.up:
            return False
        return parent.layout == "row" or (bool(parent.cards) and parent.cards[-1] == card.id)
    return False


def view_object(table: Table, obj: Obj, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = _to_builtins(obj)
    out["t"] = out.pop("type", None) or _kind(obj)
    if isinstance(obj, Card) and not card_visible(table, obj, seat):
        del out["face"]
    return out


def _kind(obj: Obj) -> str:
    return type(obj).__struct_config__.tag  # type: ignore[return-value]


def view_objects(table: Table, ids: Iterable[str], seat: int | None) -> list[dict[str, Any]]:
    objs = table.objects
    return [view_object(table, objs[i], seat) for i in ids if i in objs]


def players_view(table: Table) -> list[dict[str, Any]]:
    return [
        {"id": p.id, "name": p.name, "seat": p.seat, "host": p.host, "status": p.status,
         "bot": p.bot}
        for p in table.players.values()
    ]


def snapshot(table: Table, seat: int | None) -> dict[str, Any]:
    """Everything a seat may know about the room, at the room's current version."""
    return {
        "code": table.code,
        "v": table.version,
        "seats": table.seats,
        "template": table.template,
        "players": players_view(table),
        "locked": table.locked,
        "objects": [view_object(table, o, seat) for o in table.objects.values()],
        "game": None,
        "log": list(table.log),
        "features": ["drag"],
    }


def visible_faces(table: Table, seat: int | None) -> dict[str, str]:
    """Card id -> face for every card this seat may see (used by undo and by tests)."""
    return {
        o.id: o.face
        for o in table.objects.values()
        if isinstance(o, Card) and card_visible(table, o, seat)
    }
