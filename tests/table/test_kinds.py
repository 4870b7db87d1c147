"""Object kinds are listed once, by the msgspec tags of the table's structs: the wire's ``t``, the
rule bindings' markers and the generated TypeScript read them from there."""

from __future__ import annotations

from typing import get_args

from server.game.rules import MARKERS
from server.table.objects import KINDS, Card, Chips, Counter, Label, Obj, Table, kind_of
from server.table.view import view_object


def test_every_object_struct_has_one_kind() -> None:
    assert list(KINDS.values()) == list(get_args(Obj))
    assert all(kind_of(cls) == kind for kind, cls in KINDS.items())


def test_the_wire_tag_is_the_kind() -> None:
    table = Table(code="ABCDEF")
    for obj in (Card(id="c1", face="H1", up=True), Chips(id="p1"), Label(id="l1")):
        table.objects[obj.id] = obj
        assert view_object(table, obj, None)["t"] == kind_of(obj)


def test_markers_are_table_kinds() -> None:
    assert {"chips": Chips, "counter": Counter, "label": Label} == MARKERS
    assert all(KINDS[kind] is cls for kind, cls in MARKERS.items())
