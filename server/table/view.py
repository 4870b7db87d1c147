"""Visibility: what one seat may see of the table. The only place faces and ids leave the model.

A card's face is visible to a seat when the card is in that seat's hand, or face up loose on the
table, or face up on top of a pile (a fanned "row" stack shows every face-up card). Anything else
is sent without its face: a face-down card, the inside of a pile.

Another seat's hand is sent as its count alone (``n``, no ``cards``), and the cards inside it are
not sent at all: no other view ever holds the id of a card while it sits in a hand. A card that
enters a hand is deleted from the other views; one that leaves a hand gets a new id (see
``server/table/apply.py``), so nothing seen before can be linked to it. Spectators are seat
``None`` and see only what is public.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from server.table import fairplay
from server.table.objects import Card, Hand, Obj, Stack, Table, kind_of

if TYPE_CHECKING:
    from server.table.change import Change

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


def in_other_hand(table: Table, obj: Obj, seat: int | None) -> bool:
    """Is ``obj`` a card in a hand that is not ``seat``'s? Such a card is not in that view."""
    if not isinstance(obj, Card) or obj.parent is None:
        return False
    parent = table.objects.get(obj.parent)
    return isinstance(parent, Hand) and parent.seat != seat


def view_object(table: Table, obj: Obj, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = _to_builtins(obj)
    out["t"] = out.pop("type", None) or kind_of(obj)
    if isinstance(obj, Card):
        del out["home"]  # which deck a face-down card came from is the server's alone
    elif isinstance(obj, Stack):
        del out["spread"]  # where a spread row came from: only to put the pile back
    if isinstance(obj, Card) and not card_visible(table, obj, seat):
        del out["face"]
    elif isinstance(obj, Hand):
        out["n"] = len(obj.cards)
        if obj.seat != seat:
            del out["cards"]
    return out


def view_objects(table: Table, ids: Iterable[str], seat: int | None) -> list[dict[str, Any]]:
    """The objects among ``ids`` that are in ``seat``'s view, as that seat sees them."""
    objs = table.objects
    return [
        view_object(table, o, seat)
        for i in ids
        if (o := objs.get(i)) is not None and not in_other_hand(table, o, seat)
    ]


def _had(change: Change, oid: str, seat: int | None) -> bool:
    """Was ``oid`` in ``seat``'s view before ``change``?"""
    if oid in change.created:
        return False
    owner = change.held.get(oid, seat)
    return owner == seat


def views_differ(table: Table, change: Change) -> bool:
    """Could two views receive different deltas for ``change``? (Else one delta serves all.)"""
    if change.game_changed or change.held:
        return True
    objs = table.objects
    for oid in change.dirty:
        obj = objs.get(oid)
        if isinstance(obj, Hand) or (
            isinstance(obj, Card)
            and obj.parent is not None
            and isinstance(objs.get(obj.parent), Hand)
        ):
            return True
    return False


def view_delta(
    table: Table, change: Change, seat: int | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """What ``seat`` must replace (``set``) and drop (``del``) to follow ``change``.

    ``del`` names only ids the view held: a card that entered another seat's hand, or a removed
    object it could see. Ids it never held (created and hidden at once, or removed from another
    seat's hand) are never sent to it.
    """
    objs = table.objects
    shown: list[dict[str, Any]] = []
    gone: list[str] = []
    for oid in change.dirty:
        obj = objs[oid]
        if not in_other_hand(table, obj, seat):
            shown.append(view_object(table, obj, seat))
        elif _had(change, oid, seat):
            gone.append(oid)
    gone.extend(oid for oid in change.removed if _had(change, oid, seat))
    return shown, sorted(gone)


def players_view(table: Table) -> list[dict[str, Any]]:
    out = []
    for p in table.players.values():
        view: dict[str, Any] = {
            "id": p.id,
            "name": p.name,
            "seat": p.seat,
            "host": p.host,
            "status": p.status,
            "bot": p.bot,
        }
        if p.bot:
            view["level"] = p.level  # a computer's level: easy, normal or hard
        if p.identity is not None:
            view["identity"] = p.identity  # public: what block/mute/favourite are keyed by
        out.append(view)
    return out


def former_view(table: Table) -> list[dict[str, Any]]:
    """The people who left and may come back, with the seat they had: a page shows a free seat
    that still holds a departed player's cards as theirs ("Ana's seat, 7 cards")."""
    return [{"id": f.id, "name": f.name, "seat": f.seat} for f in table.former]


def snapshot(table: Table, seat: int | None) -> dict[str, Any]:
    """Everything a seat may know about the room, at the room's current version."""
    return {
        "code": table.code,
        "v": table.version,
        "seats": table.seats,
        "template": table.template,
        "players": players_view(table),
        "former": former_view(table),
        "locked": table.locked,
        "public": table.public,
        "fair": fairplay.view(table),
        "objects": view_objects(table, table.objects, seat),
        "game": None,
        "log": list(table.log),
        "log_at": table.log_times(),
        "features": ["drag"],
    }


def visible_faces(table: Table, seat: int | None) -> dict[str, str]:
    """Card id -> face for every card this seat may see (used by undo and by tests)."""
    return {
        o.id: o.face
        for o in table.objects.values()
        if isinstance(o, Card) and card_visible(table, o, seat)
    }
