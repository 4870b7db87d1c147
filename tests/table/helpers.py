"""Helpers for the pure table model tests: seated tables, applying on a copy, generic checks.

``ok`` applies an operation the way the room service does (on a decoded copy) and checks what
every accepted operation must satisfy; ``refused`` checks a rejection's code and that the
caller's table is untouched.
"""

from __future__ import annotations

import random
import re
from collections import Counter as Multiset
from collections.abc import Iterable
from typing import Any

import msgspec
import pytest

from server.errors import CardtableError
from server.table import ops as O
from server.table.apply import Actor, Change, Limits, apply_op
from server.table.objects import (
    Card,
    Chips,
    Counter,
    Die,
    Hand,
    Label,
    Obj,
    Player,
    Stack,
    Table,
    decode_table,
    encode_table,
)
from server.table.templates import new_table
from server.table.view import snapshot, view_delta, visible_faces
from server.table.wording import face_words

NAMES = ["Ana", "Ben", "Cyd", "Dot"]
SPECTATOR = Actor("p9", "Eve", None)
ALL_VIEWS: list[int | None] = [0, 1, 2, 3, None]
MODEL_CODES = {
    "not_seated",
    "unknown_object",
    "forbidden",
    "conflict",
    "invalid_move",
    "limit",
    "nothing_to_undo",
    "undo_refused",
}


def actor(seat: int | None) -> Actor:
    if seat is None:
        return SPECTATOR
    return Actor(f"p{seat}", NAMES[seat], seat)


def seated_table(
    template: str = "standard", seats: int = 4, seated: int = 4, rng: random.Random | None = None
) -> Table:
    """A fresh table with players p0..p{seated-1} in seats 0.. and spectator p9."""
    t = new_table("ABCDEFGH", template, seats, 0.0, rng)
    for s in range(seated):
        t.players[f"p{s}"] = Player(id=f"p{s}", name=NAMES[s], token_hash="h", seat=s)
    t.players["p9"] = Player(id="p9", name="Eve", token_hash="h", seat=None)
    return t


def copy(t: Table) -> Table:
    return decode_table(encode_table(t))


def bump_z(t: Table) -> int:
    t.zmax += 1
    return t.zmax


def add_pile(
    t: Table,
    sid: str,
    faces: Iterable[str],
    *,
    up: bool = False,
    layout: str = "pile",
    holder: bool = False,
    x: float = 300.0,
    y: float = 300.0,
    label: str = "",
) -> list[str]:
    """Put a stack ``sid`` (bottom first) on the table directly; return its card ids."""
    s = Stack(id=sid, layout=layout, holder=holder, label=label, x=x, y=y, z=bump_z(t))
    for i, face in enumerate(faces):
        cid = f"{sid}_{i}"
        t.objects[cid] = Card(id=cid, face=face, up=up, parent=sid, x=x, y=y)
        s.cards.append(cid)
    t.objects[sid] = s
    return list(s.cards)


def add_card(
    t: Table,
    cid: str,
    face: str,
    *,
    up: bool = False,
    x: float = 50.0,
    y: float = 60.0,
    locked: bool = False,
) -> Card:
    card = Card(id=cid, face=face, up=up, x=x, y=y, z=bump_z(t), locked=locked)
    t.objects[cid] = card
    return card


def give(t: Table, seat: int, cards: Iterable[str]) -> None:
    """Move existing loose/new card ids straight into a hand (test setup, no op)."""
    hand = t.objects[f"hand{seat}"]
    assert isinstance(hand, Hand)
    for cid in cards:
        card = t.objects[cid]
        assert isinstance(card, Card) and card.parent is None
        card.parent = hand.id
        hand.cards.append(cid)


def add_misc(t: Table) -> None:
    """Chips k1 (20) and k2 (5), counter n1 (step 2, 'Score'), die d1, label l1."""
    t.objects["k1"] = Chips(id="k1", count=20, x=10, y=10, z=bump_z(t))
    t.objects["k2"] = Chips(id="k2", count=5, color="blue", x=60, y=10, z=bump_z(t))
    t.objects["n1"] = Counter(id="n1", value=3, step=2, label="Score", x=110, y=10, z=bump_z(t))
    t.objects["d1"] = Die(id="d1", sides=6, value=1, x=160, y=10, z=bump_z(t))
    t.objects["l1"] = Label(id="l1", text="Hello", x=210, y=10, z=bump_z(t))


def deck(t: Table) -> Stack:
    s = t.objects["deck"]
    assert isinstance(s, Stack)
    return s


def stack(t: Table, sid: str) -> Stack:
    s = t.objects[sid]
    assert isinstance(s, Stack)
    return s


def hand(t: Table, seat: int) -> Hand:
    h = t.objects[f"hand{seat}"]
    assert isinstance(h, Hand)
    return h


def card(t: Table, cid: str) -> Card:
    c = t.objects[cid]
    assert isinstance(c, Card)
    return c


def all_faces(*tables: Table) -> set[str]:
    return {o.face for t in tables for o in t.objects.values() if isinstance(o, Card)}


def face_multiset(t: Table) -> Multiset[str]:
    return Multiset(o.face for o in t.objects.values() if isinstance(o, Card))


def assert_no_face_in_log(log: str, faces: Iterable[str]) -> None:
    for face in faces:
        pat = rf"(?<![A-Za-z0-9]){re.escape(face)}(?![A-Za-z0-9])"
        assert not re.search(pat, log), f"log line {log!r} names the face {face!r}"


def assert_no_hidden_card_named(log: str, before: Table, after: Table) -> None:
    """A log line names a card ("the 7 of hearts") only if that face is public after the
    operation: no card that only some seat (or nobody) sees is ever named."""
    public = {face_words(f) for f in visible_faces(after, None).values()}
    for face in all_faces(before, after):
        words = face_words(face)
        if words and words not in public:
            pat = rf"(?<![A-Za-z0-9]){re.escape(words)}(?![A-Za-z0-9])"
            assert not re.search(pat, log), f"log line {log!r} names the hidden {words!r}"


def without_v(obj: Obj) -> Obj:
    return msgspec.structs.replace(obj, v=0)


def state(t: Table) -> dict[str, dict[str, Any]]:
    """Every object's stored state as plain data, ignoring its version stamp."""
    return {oid: msgspec.to_builtins(without_v(o)) for oid, o in t.objects.items()}


def views(t: Table) -> dict[int | None, dict[str, dict[str, Any]]]:
    return {s: {o["id"]: o for o in snapshot(t, s)["objects"]} for s in ALL_VIEWS}


def hidden_from(t: Table, seat: int | None) -> set[str]:
    """Ids of the cards in other seats' hands: ids this view must never receive."""
    return {
        cid for o in t.objects.values() if isinstance(o, Hand) and o.seat != seat for cid in o.cards
    }


def follow(
    view: dict[str, dict[str, Any]], t: Table, change: Change, seat: int | None
) -> dict[str, dict[str, Any]]:
    """A client's view after the delta the room service sends ``seat`` for ``change``.

    Checks the delta on the way: ``del`` names only ids the view holds (no id of a card this
    view never had leaks through it), ``set`` no card in another seat's hand, and another
    seat's hand comes as a count without ``cards``.
    """
    shown, gone = view_delta(t, change, seat)
    secret = hidden_from(t, seat)
    out = dict(view)
    for oid in gone:
        assert oid in out, f"seat {seat} told to delete {oid}, which it never held"
        out.pop(oid)
    for obj in shown:
        assert obj["id"] not in secret, f"seat {seat} sent {obj['id']} in another hand"
        if obj["t"] == "hand" and obj["seat"] != seat:
            assert "cards" not in obj and obj["n"] == len(hand(t, obj["seat"]).cards)
        out[obj["id"]] = obj
    return out


def check_change(before: Table, after: Table, change: Change, *, views_too: bool = True) -> None:
    """What every accepted operation must satisfy (the delta contract of docs/protocol.md)."""
    assert after.version == before.version + 1
    assert not change.dirty & change.removed
    for oid in change.dirty:
        assert oid in after.objects, f"dirty id {oid} does not exist"
        assert after.objects[oid].v == after.version, f"dirty {oid} not stamped"
    for oid in change.removed:
        assert oid not in after.objects, f"removed id {oid} still exists"
    for oid, obj in after.objects.items():
        if oid not in change.dirty:
            assert oid in before.objects, f"new object {oid} is not in the change set"
            assert obj.v == before.objects[oid].v
    for oid in before.objects:
        if oid not in after.objects:
            assert oid in change.removed, f"{oid} vanished without being in 'removed'"
    old, new = state(before), state(after)
    for oid, blob in new.items():
        if old.get(oid) != blob:
            assert oid in change.dirty, f"{oid} changed but is not in the change set"
    assert_no_face_in_log(change.log, all_faces(before, after))
    assert_no_hidden_card_named(change.log, before, after)
    if not views_too:
        return
    # Change sets are complete: every seat's view rebuilt from the delta is the fresh view.
    for seat, view in views(before).items():
        rebuilt = follow(view, after, change, seat)
        fresh = {o["id"]: o for o in snapshot(after, seat)["objects"]}
        assert rebuilt == fresh, f"seat {seat}: the delta leaves a stale view"


def ok(t: Table, seat: int | None, op: O.Op, limits: Limits | None = None) -> tuple[Table, Change]:
    """Apply ``op`` for ``seat`` on a copy of ``t``; check the generic contract; return both."""
    blob = encode_table(t)
    new = copy(t)
    change = apply_op(new, actor(seat), op, limits or Limits())
    assert encode_table(t) == blob
    check_change(t, new, change)
    return new, change


def refused(
    t: Table, seat: int | None, op: O.Op, code: str, limits: Limits | None = None
) -> CardtableError:
    blob = encode_table(t)
    work = copy(t)
    with pytest.raises(CardtableError) as info:
        apply_op(work, actor(seat), op, limits or Limits())
    assert info.value.code == code, info.value.message
    assert encode_table(t) == blob
    return info.value
