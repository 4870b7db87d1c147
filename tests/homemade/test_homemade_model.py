"""Homemade games in the pure model: edit permission, custom decks, buttons, game files."""

from __future__ import annotations

import base64
import copy as pycopy
import hashlib
import json
import random

import pytest

from server.errors import CardtableError
from server.homemade.gamefile import FilePile, build_table, export_game, load_game
from server.homemade.library import entry, names
from server.room.reducer import Env, Host, TableOp, reduce
from server.table import ops as O
from server.table.decks import parse_csv, parse_list, read_face
from server.table.objects import Button, Card, Stack, Table, decode_table, encode_table
from server.table.steps import ChipsStep, CounterStep, DealStep, Gather, ShuffleStep
from server.table.view import snapshot, visible_faces
from tests.table.helpers import add_misc, seated_table

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


def room() -> Table:
    t = seated_table()
    t.players["p0"].host = True
    add_misc(t)
    return t


def run(t: Table, intent: object, seed: int = 1) -> Table:
    """Reduce on a private copy like the room service; the stored table is never touched."""
    work = decode_table(encode_table(t))
    reduce(work, intent, Env(now=0.0, rng=random.Random(seed)))  # type: ignore[arg-type]
    return work


def refused(t: Table, intent: object, code: str) -> CardtableError:
    before = encode_table(t)
    with pytest.raises(CardtableError) as info:
        run(t, intent)
    assert info.value.code == code, info.value.message
    assert encode_table(t) == before
    return info.value


# --- 1. edit permission --------------------------------------------------------------------


def test_only_the_host_edits_until_the_host_lets_everyone():
    t = room()
    label = O.Create(kind="label", text="hi")
    refused(t, TableOp("p1", label), "forbidden")
    refused(t, TableOp("p1", O.Delete(id="l1")), "forbidden")
    refused(t, TableOp("p1", O.Background(value="navy")), "forbidden")
    assert run(t, TableOp("p1", O.Roll(id="d1"))).version == 1  # play is unchanged
    t = run(t, TableOp("p0", label))
    refused(t, Host("p1", "edit", {"who": "all"}), "forbidden")
    t = run(t, Host("p0", "edit", {"who": "all"}))
    assert t.objects["board"].edit == "all"  # type: ignore[union-attr]
    t = run(t, TableOp("p1", O.Background(value="a" * 64)))
    assert t.objects["board"].background == "a" * 64  # type: ignore[union-attr]
    undone = run(t, TableOp("p1", O.Undo()))
    assert undone.objects["board"].background == ""  # type: ignore[union-attr]
    refused(run(t, Host("p0", "edit", {"who": "host"})), TableOp("p1", label), "forbidden")
    refused(t, Host("p0", "edit", {"who": "nobody"}), "bad_request")


def test_the_board_cannot_be_moved_or_deleted():
    t = run(room(), TableOp("p0", O.Background(value="green")))
    refused(t, TableOp("p0", O.Delete(id="board")), "invalid_move")
    refused(t, TableOp("p0", O.Move(id="board", x=1, y=1)), "invalid_move")


# --- 2. custom decks -------------------------------------------------------------------------


def test_custom_deck_faces_are_hidden_like_any_card():
    t = room()
    op = O.parse_op(
        {
            "op": "create",
            "kind": "deck",
            "x": 5,
            "y": 5,
            "back": "b" * 64,
            "cards": [
                {"text": "Draw 2, then skip", "color": "red", "count": 3},
                {"text": "", "image": "c" * 64},
            ],
        }
    )
    t = run(t, TableOp("p0", op))
    deck = next(o for o in t.objects.values() if isinstance(o, Stack) and len(o.cards) == 4)
    cards = [t.objects[c] for c in deck.cards]
    assert [read_face(c.face).text for c in cards[:3]] == ["Draw 2, then skip"] * 3  # type: ignore[union-attr]
    assert all(c.back == "b" * 64 for c in cards)  # type: ignore[union-attr]
    for seat in (0, 1, None):
        assert not any(k in visible_faces(t, seat) for k in deck.cards)
        shown = json.dumps(snapshot(t, seat))
        assert "Draw 2" not in shown and "c" * 64 not in shown


def test_custom_deck_caps_and_validation():
    t = room()
    refused(
        t,
        TableOp(
            "p0",
            O.Create(
                kind="deck",
                cards=[O.CardSpec(text="x", count=300), O.CardSpec(text="y", count=201)],
            ),
        ),
        "limit",
    )
    with pytest.raises(CardtableError):
        O.parse_op({"op": "create", "kind": "deck", "cards": [{"text": "x", "evil": 1}]})
    with pytest.raises(CardtableError):
        O.parse_op({"op": "create", "kind": "deck", "back": "<svg>"})


def test_list_and_csv_parsers():
    cards = parse_list('"Draw 2, then skip", red, 2\n# a comment\n\nWild\nSkip, blue')
    assert [(c.text, c.color, c.count) for c in cards] == [
        ("Draw 2, then skip", "red", 2),
        ("Wild", "", 1),
        ("Skip", "blue", 1),
    ]
    csv_cards = parse_csv('count,text,colour\n3,"He said ""hi"", twice",green\n')
    assert [(c.text, c.color, c.count) for c in csv_cards] == [('He said "hi", twice', "green", 3)]
    for bad, what in [
        ("a, red, many", "count"),
        ("a, Red!, 2", "colour"),
        ("a,b,1,2", "quote"),
        ("x, red, 501", "count"),
    ]:
        with pytest.raises(CardtableError, match=what):
            parse_list(bad)
    with pytest.raises(CardtableError, match="at most 500"):
        parse_list("a, red, 400\nb, red, 101")


# --- 4. buttons ------------------------------------------------------------------------------


def with_button(t: Table, steps: list[object]) -> Table:
    t.objects["btn"] = Button(id="btn", label="Reset", steps=steps)  # type: ignore[arg-type]
    return t


def test_a_press_runs_every_step_in_one_version():
    t = run(room(), TableOp("p0", O.Deal(id="deck", n=2)))
    t = with_button(
        t,
        [
            Gather(to="deck", hands=True, loose=True),
            ShuffleStep(id="deck"),
            DealStep(id="deck", n=5),
            DealStep(id="deck", n=1, to="discard", up=True),
            CounterStep(id="n1", delta=1),
            ChipsStep(id="k1", to="k2", all=True),
        ],
    )
    v = t.version
    done = run(t, TableOp("p3", O.Press(id="btn")))
    assert done.version == v + 1
    hands = [done.objects[f"hand{s}"].cards for s in range(4)]  # type: ignore[union-attr]
    assert [len(h) for h in hands] == [5, 5, 5, 5]
    assert len(done.objects["deck"].cards) == 52 - 21  # type: ignore[union-attr]
    top = done.objects[done.objects["discard"].cards[-1]]  # type: ignore[union-attr]
    assert isinstance(top, Card) and top.up
    assert done.objects["n1"].value == 5 and done.objects["k2"].count == 25  # type: ignore[union-attr]
    assert sorted(c.face for c in done.objects.values() if isinstance(c, Card)) == sorted(
        c.face for c in t.objects.values() if isinstance(c, Card)
    )


def test_a_press_whose_third_step_fails_changes_nothing():
    t = with_button(
        room(), [ShuffleStep(id="deck"), DealStep(id="deck", n=5), DealStep(id="deck", n=40)]
    )  # 20 dealt, 32 left: step 3 fails
    err = refused(t, TableOp("p1", O.Press(id="btn")), "invalid_move")
    assert err.message.startswith("Step 3 (deal) of the button 'Reset' failed")
    assert t.version == 0
    missing = with_button(
        room(), [ShuffleStep(id="deck"), CounterStep(id="n1", delta=1), ShuffleStep(id="nope")]
    )
    assert (
        "Step 3 (shuffle)"
        in refused(missing, TableOp("p1", O.Press(id="btn")), "unknown_object").message
    )
    refused(t, TableOp("p9", O.Press(id="btn")), "not_seated")


def test_buttons_are_created_and_edited_by_editors_only():
    t = room()
    payload = {
        "op": "create",
        "kind": "button",
        "label": "Go",
        "steps": [{"do": "shuffle", "id": "deck"}],
    }
    refused(t, TableOp("p1", O.parse_op(payload)), "forbidden")
    t = run(t, TableOp("p0", O.parse_op(payload)))
    bid = next(o.id for o in t.objects.values() if isinstance(o, Button))
    t = run(
        t,
        TableOp(
            "p0",
            O.parse_op(
                {"op": "update", "id": bid, "steps": [{"do": "counter", "id": "n1", "value": 9}]}
            ),
        ),
    )
    assert run(t, TableOp("p2", O.Press(id=bid))).objects["n1"].value == 9  # type: ignore[union-attr]
    with pytest.raises(CardtableError):  # steps are data: unknown kinds are refused
        O.parse_op({**payload, "steps": [{"do": "exec", "code": "rm -rf /"}]})


# --- 5. game files ---------------------------------------------------------------------------


def test_export_import_export_is_equal_and_hides_hands():
    t = with_button(room(), [ShuffleStep(id="deck")])
    t = run(t, TableOp("p0", O.Background(value="navy")))
    t = run(t, TableOp("p0", O.Deal(id="deck", n=3)))
    first = export_game(t, {})
    assert all(not o.get("cards") for o in first["objects"] if o["kind"] == "hand")
    again = export_game(build_table(load_game(json.loads(json.dumps(first))), "X", 0.0), {})
    assert again == first
    with_pos = export_game(t, {}, positions=True)
    rebuilt = build_table(load_game(with_pos), "Y", 0.0)
    assert len(rebuilt.objects["hand1"].cards) == 3  # type: ignore[union-attr]
    assert export_game(rebuilt, {}, positions=True) == with_pos


def test_images_travel_with_the_file():
    digest = hashlib.sha256(PNG).hexdigest()
    t = room()
    t = run(
        t,
        TableOp(
            "p0", O.Create(kind="deck", back=digest, cards=[O.CardSpec(text="A", image=digest)])
        ),
    )
    f = export_game(t, {digest: PNG})
    assert f["images"] == {digest: base64.b64encode(PNG).decode()}
    assert load_game(f).images == {digest: PNG}
    assert "images" not in export_game(t, {}) or not export_game(t, {})["images"]


def test_a_v0_file_is_upgraded():
    v0 = {
        "version": 0,
        "name": "Old",
        "seats": 2,
        "decks": [{"x": 1, "y": 2, "label": "Draw", "faces": ["H1", "S13"]}],
        "counters": [{"label": "Score", "value": 4}],
        "labels": [{"text": "hi"}],
    }
    t = build_table(load_game(v0), "Z", 0.0)
    assert t.seats == 2 and t.objects["board"].title == "Old"  # type: ignore[union-attr]
    assert sorted(t.objects[c].face for c in t.objects["deck1"].cards) == ["H1", "S13"]  # type: ignore[union-attr]
    assert t.objects["counter1"].value == 4  # type: ignore[union-attr]
    with pytest.raises(CardtableError, match="unknown field"):
        load_game({**v0, "extra": 1})


def _file(**over: object) -> dict[str, object]:
    base = pycopy.deepcopy(entry("standard"))
    base.update(over)
    return base


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("not a dict", "JSON object"),
        (_file(version=7), "version 7"),
        (_file(version="1"), "whole number"),
        (_file(seats="four"), "seats"),
        (
            _file(objects=[{"kind": "pile", "id": "p", "cards": [{"face": "H1", "count": 10**9}]}]),
            "count",
        ),
        (
            _file(
                objects=[
                    {"kind": "pile", "id": f"p{i}", "cards": [{"face": "H1", "count": 500}]}
                    for i in range(4)
                ]
            ),
            "at most 1500",
        ),
        (_file(objects=[{"kind": "label", "id": f"l{i}"} for i in range(1600)]), "at most 1500"),
        (_file(objects=[{"kind": "label", "id": "x", "evil": True}]), "unknown field `evil`"),
        (_file(surprise=1), "unknown field `surprise`"),
        (_file(objects=[{"kind": "pile", "id": "a"}, {"kind": "label", "id": "a"}]), "used twice"),
        (
            _file(
                objects=[{"kind": "button", "id": "b", "steps": [{"do": "shuffle", "id": "gone"}]}]
            ),
            "'gone'",
        ),
        (_file(objects=[{"kind": "card", "image": "d" * 64}]), "not in 'images'"),
    ],
)
def test_hostile_files_are_refused_naming_the_problem(bad, says):
    with pytest.raises(CardtableError) as info:
        load_game(bad)
    assert says in info.value.message


def _with_image(data: bytes) -> dict[str, object]:
    digest = hashlib.sha256(data).hexdigest()
    return _file(
        images={digest: base64.b64encode(data).decode()},
        objects=[{"kind": "card", "image": digest}],
    )


def test_hostile_images_in_files():
    svg = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'
    with pytest.raises(CardtableError, match="SVG"):
        load_game(_with_image(svg))  # an SVG renamed .png is still an SVG
    with pytest.raises(CardtableError, match="larger than 2 MB"):
        load_game(_with_image(PNG + b"\x00" * (10 * 1024 * 1024)))
    with pytest.raises(CardtableError, match="does not match"):
        good = _with_image(PNG)
        good["images"] = {"e" * 64: base64.b64encode(PNG).decode()}
        good["objects"] = [{"kind": "card", "image": "e" * 64}]
        load_game(good)
    assert load_game(_with_image(PNG)).images


# --- 6. library ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", names())
def test_each_library_game_loads_and_its_buttons_work(name):
    t = build_table(load_game(entry(name)), "LIB", 0.0, random.Random(3))
    assert t.objects["board"].title  # type: ignore[union-attr]
    t.players["p0"] = seated_table().players["p0"]
    t.players["p1"] = seated_table().players["p1"]
    for b in [o for o in t.objects.values() if isinstance(o, Button)]:
        t = run(t, TableOp("p0", O.Press(id=b.id)))
    assert export_game(build_table(load_game(export_game(t, {})), "X", 0.0), {}) == export_game(
        t, {}
    )


def test_library_has_the_promised_games():
    assert {"blank", "standard", "poker", "gin-rummy", "spades", "rummy", "pennies"} <= set(names())


# --- 5. every card back to its own deck ------------------------------------------------------


def _two_decks() -> Table:
    """Seats 0-1 seated; decks "animals" and "birds" of cards that look alike (same texts,
    same back), so only where a card was made tells them apart; 2 each dealt, one loose."""
    t = seated_table("blank", seats=2, seated=2)
    t.players["p0"].host = True
    for seed, (label, x) in enumerate((("Animals", 100.0), ("Birds", 400.0))):
        spec = [O.CardSpec(text="Red", count=4), O.CardSpec(text=label, count=2)]
        create = O.Create(kind="deck", x=x, y=100, label=label, cards=spec)
        t = run(t, TableOp("p0", create), seed=10 + seed)
    decks = {s.label: s.id for s in t.objects.values() if isinstance(s, Stack) and s.label}
    assert len(decks) == 2
    for seed, sid in enumerate(decks.values()):
        t = run(t, TableOp("p0", O.Shuffle(id=sid)), seed=20 + seed)
        t = run(t, TableOp("p0", O.Deal(id=sid, n=2)), seed=30 + seed)
    birds = t.objects[decks["Birds"]]
    assert isinstance(birds, Stack)
    t = run(t, TableOp("p0", O.Move(id=birds.cards[-1], x=800, y=600)), seed=40)  # one loose
    return t


def _by_deck(t: Table) -> dict[str, list[str]]:
    """Each labelled pile's cards (as texts, sorted) and the loose cards' under ""."""
    out: dict[str, list[str]] = {}
    for o in t.objects.values():
        if isinstance(o, Stack):
            out[o.label] = sorted(read_face(t.objects[c].face).text for c in o.cards)  # type: ignore[union-attr,arg-type]
        elif isinstance(o, Card) and o.parent is None:
            out.setdefault("", []).append(read_face(o.face).text)  # type: ignore[union-attr]
    return out


def test_a_saved_layout_puts_every_card_back_in_its_own_deck():
    t = _two_decks()
    assert sum(len(t.objects[f"hand{s}"].cards) for s in (0, 1)) == 8  # type: ignore[union-attr]
    loaded = build_table(load_game(json.loads(json.dumps(export_game(t, {})))), "NEW", 0.0)
    assert _by_deck(loaded) == {
        "Animals": ["Animals", "Animals", "Red", "Red", "Red", "Red"],
        "Birds": sorted(_without(["Birds", "Birds", "Red", "Red", "Red", "Red"], _loose(t))),
        "": sorted(_loose(t)),
    }
    assert all(not loaded.objects[f"hand{s}"].cards for s in (0, 1))  # type: ignore[union-attr]
    # With positions the hands stay dealt, and a layout saved from that room still knows.
    again = build_table(load_game(export_game(t, {}, positions=True)), "POS", 0.0)
    assert sum(len(again.objects[f"hand{s}"].cards) for s in (0, 1)) == 8  # type: ignore[union-attr]
    assert _by_deck(build_table(load_game(export_game(again, {})), "LAY", 0.0)) == _by_deck(loaded)


def _loose(t: Table) -> list[str]:
    loose = [o for o in t.objects.values() if isinstance(o, Card) and o.parent is None]
    return [read_face(o.face).text for o in loose]  # type: ignore[union-attr]


def _without(cards: list[str], gone: list[str]) -> list[str]:
    left = list(cards)
    for g in gone:
        left.remove(g)
    return left


def test_a_deck_dealt_out_completely_is_made_again_on_save():
    t = seated_table("blank", seats=2, seated=2)
    t.players["p0"].host = True
    for seed, (label, text, n) in enumerate((("A", "a", 3), ("B", "b", 2))):
        spec = [O.CardSpec(text=text, count=n)]
        create = O.Create(kind="deck", x=100 + 300 * seed, y=100, label=label, cards=spec)
        t = run(t, TableOp("p0", create), seed=10 + seed)
    b = next(s.id for s in t.objects.values() if isinstance(s, Stack) and s.label == "B")
    t = run(t, TableOp("p0", O.Deal(id=b, n=1)))
    assert b not in t.objects  # an emptied deck goes away
    f = load_game(export_game(t, {})).file
    piles = [o for o in f.objects if isinstance(o, FilePile)]
    assert sorted(sorted(c.text for c in p.cards for _ in range(c.count)) for p in piles) == [
        ["a", "a", "a"],
        ["b", "b"],
    ]


def test_a_card_naming_a_deck_the_file_lacks_is_refused():
    loose = {"kind": "card", "text": "x", "deck": "nope"}
    f = {"format": "cardtable-game", "version": 1, "objects": [loose]}
    with pytest.raises(CardtableError) as info:
        load_game(f)
    assert "'nope' is not a pile" in info.value.message
