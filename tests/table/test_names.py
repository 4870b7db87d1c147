"""The ``name`` operation (docs/protocol.md): piles, zones, chips, counters, dice and buttons
take a name that is only shown; a bad name is refused with ``bad_name`` and changes nothing."""

from __future__ import annotations

import json

import msgspec
import pytest

from server.errors import BAD_NAME, INVALID_MOVE
from server.homemade.gamefile import build_table, export_game, load_game
from server.table import ops as O
from server.table.objects import Button, Die, Stack
from server.table.steps import DealStep
from tests.table.helpers import ok, refused


@pytest.mark.parametrize("oid", ["deck", "k1", "n1", "d1"])
def test_an_object_takes_a_name_and_the_log_says_so(t, oid):
    new, ch = ok(t, 0, O.Name(id=oid, name="  Red deck  "))
    assert new.objects[oid].label == "Red deck"  # type: ignore[union-attr]
    assert ch.dirty == {oid}
    assert ch.log is not None and ch.log.startswith("Ana named ") and ch.log.endswith("“Red deck”")


def test_a_button_is_named_and_its_steps_still_name_ids(t):
    t.objects["b1"] = Button(id="b1", label="Deal", steps=[DealStep(id="deck", n=2)])
    new, _ = ok(t, 0, O.Name(id="b1", name="Deal 2 from each"))
    b = new.objects["b1"]
    assert isinstance(b, Button) and b.label == "Deal 2 from each"
    assert b.steps == [DealStep(id="deck", n=2)]


def test_an_empty_name_takes_the_name_away(t):
    new, ch = ok(t, 0, O.Name(id="n1", name=""))
    assert new.objects["n1"].label == ""  # type: ignore[union-attr]
    assert ch.log == "Ana took the name off a counter"


def test_a_named_pile_is_named_in_the_deal_line(t):
    named, _ = ok(t, 0, O.Name(id="deck", name="Red deck"))
    _, ch = ok(named, 0, O.Deal(id="deck", n=3))
    assert ch.log == "Ana dealt 3 cards from Red deck to each player"


def test_a_die_keeps_its_name_through_the_store_codec(t):
    new, _ = ok(t, 0, O.Name(id="d1", name="Big die"))
    die = msgspec.msgpack.decode(msgspec.msgpack.encode(new.objects["d1"]), type=Die)
    assert die.label == "Big die"


@pytest.mark.parametrize(
    "name",
    [
        "x" * 41,  # too long
        "Red\ndeck",  # a line break
        "Red\u2028deck",  # a Unicode line separator
        "Red\tdeck",  # a control character
        "Red\u202edeck",  # a format character (right-to-left override)
        "\x00",
    ],
)
def test_a_bad_name_is_refused_and_nothing_changes(t, name):
    err = refused(t, 0, O.Name(id="deck", name=name), BAD_NAME)
    assert err.message and "name" in err.message


def test_forty_characters_and_any_script_are_fine(t):
    name = "Ünïcode ♠ 红桃 " + "y" * 27
    assert len(name) == 40
    new, _ = ok(t, 0, O.Name(id="deck", name=name))
    s = new.objects["deck"]
    assert isinstance(s, Stack) and s.label == name


@pytest.mark.parametrize("oid", ["hand0", "l1"])
def test_hands_and_text_labels_have_no_name(t, oid):
    refused(t, 0, O.Name(id=oid, name="Mine"), INVALID_MOVE)


def test_naming_is_an_editor_operation():
    assert O.Name in O.EDIT_OPS
    assert "name" in O.OP_NAMES
    assert isinstance(O.parse_op({"op": "name", "id": "deck", "name": "Red"}), O.Name)


def test_names_travel_with_the_game_file(t):
    t.players["p0"].host = True
    for oid, name in (("deck", "Red deck"), ("n1", "Points"), ("k1", "Pot"), ("d1", "Big die")):
        t, _ = ok(t, 0, O.Name(id=oid, name=name))
    saved = export_game(t, {})
    shown = {o["id"]: o.get("label") for o in saved["objects"] if "id" in o}
    assert [shown[i] for i in ("deck", "n1", "k1", "d1")] == [
        "Red deck",
        "Points",
        "Pot",
        "Big die",
    ]
    back = build_table(load_game(json.loads(json.dumps(saved))), "X", 0.0)
    assert [back.objects[i].label for i in ("deck", "n1", "k1", "d1")] == [  # type: ignore[union-attr]
        "Red deck",
        "Points",
        "Pot",
        "Big die",
    ]


def test_a_press_whose_pile_is_gone_says_so_without_an_id(t):
    t.objects["b1"] = Button(id="b1", label="Deal", steps=[DealStep(id="s9x7q", n=2)])
    err = refused(t, 0, O.Press(id="b1"), "unknown_object")
    assert "s9x7q" not in err.message
    assert err.message.startswith("Step 1 (deal) of the button 'Deal' failed: something it uses")
