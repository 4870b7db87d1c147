"""Random sequences of operations, valid and not, from random seats, with invariants after each.

A Hypothesis state machine drives a standard 4-seat table (plus chips, a counter, a die, a label,
a face-up pile and a face-up row zone) with operations on random existing ids (and one unknown
id), from the four seats and a spectator; other rules make players meddle with what was just
touched and undo their own last operation, where the interesting refusals are. After every step
it checks:

* every card is in exactly one place and containers agree with their cards' ``parent``;
* card faces are conserved as a multiset (create and delete change them by exactly their cards);
* hands and zones persist; a pile that is not a zone is never empty;
* a rejection leaves the caller's table byte-identical, with a model error code;
* an accepted operation bumps the version by exactly one and stamps what it touched;
* change sets are complete: every seat's and the spectator's view rebuilt from the per-view
  deltas the room service sends equals a fresh snapshot, and faces shown follow the visibility
  rule; no delta names an id its view never held or a card in another seat's hand;
* hands link nothing: a card that was in a hand is, after any operation but an undo, still in
  that hand or gone (it left under a new id), and an id that vanished from a view never comes
  back to it except by an undo.

Ids and the shuffle/roll RNG are made deterministic (a seeded RNG is injected) so that failures
replay and shrink. The
"explain" phase is off: on this machine it spent minutes re-running long failing sequences.
"""

from __future__ import annotations

import random
from collections import Counter as Multiset
from typing import Any

from hypothesis import HealthCheck, Phase, event, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from server.errors import CardtableError
from server.table import ops as O
from server.table.apply import STANDARD_FACES, Limits, apply_op
from server.table.objects import (
    Card,
    Chips,
    Counter,
    Die,
    Hand,
    Label,
    Stack,
    Table,
    encode_table,
)
from server.table.view import snapshot
from tests.table.helpers import (
    ALL_VIEWS,
    MODEL_CODES,
    actor,
    add_misc,
    add_pile,
    check_change,
    copy,
    face_multiset,
    follow,
    seated_table,
)

LIMITS = Limits(max_objects=260, max_deck=60)
FACES = [*STANDARD_FACES[:6], "J1"]
_rng = random.Random(0)  # injected into every operation: ids, shuffles and rolls replay


def rule_visible(t: Table, c: Card, seat: int | None) -> bool:
    """The visibility rule, restated from docs/protocol.md."""
    if c.parent is None:
        return c.up
    p = t.objects[c.parent]
    if isinstance(p, Hand):
        return seat is not None and p.seat == seat
    assert isinstance(p, Stack)
    return c.up and (p.layout == "row" or p.cards[-1] == c.id)


def in_reach(t: Table, c: Card) -> bool:
    """Loose, in a hand (anyone's: other seats give 'forbidden'), top of a pile, or in a row."""
    if c.parent is None:
        return True
    p = t.objects[c.parent]
    return isinstance(p, Hand) or (
        isinstance(p, Stack) and (p.layout == "row" or p.cards[-1] == c.id)
    )


def draw_op(data: st.DataObject, t: Table, recent: list[str]) -> O.Op:
    """A random operation: mostly on an object of the right kind, sometimes on anything.

    ``recent`` (what the last accepted operation touched) is always one of the pools, so other
    players often get in the way of the one who wants to undo.
    """
    objs = t.objects.values()
    ids = [*t.objects, "nope"]
    stacks = [o.id for o in objs if isinstance(o, Stack)]
    reachable = [o.id for o in objs if isinstance(o, Card) and in_reach(t, o)]
    dests = [o.id for o in objs if isinstance(o, Stack | Hand)] + [
        o.id for o in objs if isinstance(o, Card) and o.parent is None
    ]

    def pick(*pools: list[str], label: str = "id") -> str:
        """Usually one of the given kinds (each kind equally likely), sometimes any id."""
        typed = [p for p in (*pools, recent) if p]
        k = data.draw(st.sampled_from([*range(len(typed))] * 4 + [len(typed)]), label="pool")
        return data.draw(st.sampled_from([*typed, ids][k]), label=label)

    def of(*types: type) -> list[str]:
        return [o.id for o in objs if isinstance(o, types)]

    things = of(Chips, Counter, Die, Label)

    def ov(oid: str) -> int | None:
        obj = t.objects.get(oid)
        real = obj.v if obj is not None else 0
        return data.draw(st.sampled_from([None, None, None, real, real + 1]), label="ov")

    xy = st.integers(0, 1600).map(float)
    up = st.sampled_from([None, True, False])
    kind = data.draw(
        st.sampled_from(
            [
                "move_xy",
                "move_xy",
                "move_to",
                "move_to",
                "move_to",
                "flip",
                "rotate",
                "shuffle",
                "deal",
                "take",
                "split",
                "merge",
                "chips_move",
                "chips_add",
                "counter",
                "roll",
                "create",
                "update",
                "delete",
                "undo",
                "undo",
            ]
        ),
        label="kind",
    )
    if kind == "move_xy":
        oid = pick(reachable, stacks, things)
        return O.Move(id=oid, x=data.draw(xy), y=data.draw(xy), up=data.draw(up), ov=ov(oid))
    if kind == "move_to":
        oid = pick(reachable, stacks)
        return O.Move(
            id=oid,
            to=pick(dests, label="to"),
            index=data.draw(st.sampled_from([None, -1, 0, 1, 2, 50])),
            up=data.draw(up),
            ov=ov(oid),
        )
    if kind == "flip":
        oid = pick(reachable, stacks)
        return O.Flip(id=oid, ov=ov(oid))
    if kind == "rotate":
        oid = pick(reachable, stacks, things)
        return O.Rotate(id=oid, rot=data.draw(st.sampled_from([0, 90, -90, 180])), ov=ov(oid))
    if kind == "shuffle":
        oid = pick(stacks)
        return O.Shuffle(id=oid, ov=ov(oid))
    if kind == "deal":
        oid = pick(stacks)
        seats = data.draw(st.one_of(st.none(), st.lists(st.integers(0, 4), max_size=3)))
        return O.Deal(id=oid, n=data.draw(st.integers(1, 6)), seats=seats, ov=ov(oid))
    if kind == "take":
        oid = pick(stacks)
        return O.Take(id=oid, n=data.draw(st.integers(1, 4)), ov=ov(oid))
    if kind == "split":
        oid = pick(stacks)
        return O.Split(
            id=oid, n=data.draw(st.integers(1, 8)), x=data.draw(xy), y=data.draw(xy), ov=ov(oid)
        )
    if kind == "merge":
        oid = pick(stacks)
        return O.Merge(id=oid, into=pick(stacks, label="into"), ov=ov(oid))
    if kind == "chips_move":
        return O.ChipsMove(
            id=pick(of(Chips)), to=pick(of(Chips), label="to"), n=data.draw(st.integers(1, 25))
        )
    if kind == "chips_add":
        return O.ChipsAdd(id=pick(of(Chips)), n=data.draw(st.integers(-25, 25)))
    if kind == "counter":
        value, delta = data.draw(
            st.sampled_from([(5, None), (None, -3), (None, 2), (1, 1), (None, None)])
        )
        return O.CounterSet(id=pick(of(Counter)), value=value, delta=delta)
    if kind == "roll":
        return O.Roll(id=pick(of(Die)))
    if kind == "create":
        what = data.draw(
            st.sampled_from(
                ["card", "card", "deck", "stack", "zone", "chips", "counter", "die", "label"]
            )
        )
        faces = data.draw(st.one_of(st.none(), st.lists(st.sampled_from(FACES), max_size=3)))
        return O.Create(
            kind=what,
            x=data.draw(xy),
            y=data.draw(xy),
            faces=faces,
            up=data.draw(st.booleans()),
            layout=data.draw(st.sampled_from([None, "row"])),
        )
    if kind == "update":
        oid = pick(reachable, stacks, things)
        field: dict[str, Any] = data.draw(
            st.sampled_from(
                [
                    {"layout": "row"},
                    {"layout": "pile"},
                    {"locked": True},
                    {"locked": False},
                    {"label": "Zone"},
                    {"sides": 3},
                    {},
                    {"text": "hi"},
                    {"step": 2},
                ]
            )
        )
        return O.Update(id=oid, ov=ov(oid), **field)
    if kind == "delete":
        oid = pick(reachable, stacks, things)
        return O.Delete(id=oid, ov=ov(oid))
    return O.Undo()


def expected_faces(before: Table, after: Table, op: O.Op, removed: set[str]) -> Multiset[str]:
    """The face multiset an accepted ``op`` must leave."""
    out = face_multiset(before)
    if isinstance(op, O.Create) and op.kind in ("card", "deck", "stack", "zone"):
        faces = op.faces if op.faces is not None else (STANDARD_FACES if op.kind == "deck" else [])
        out.update(faces)
    elif isinstance(op, O.Delete | O.Undo):
        gone = [before.objects[i].face for i in removed if isinstance(before.objects[i], Card)]
        out.subtract(gone)
        made = [
            o.face
            for o in after.objects.values()
            if isinstance(o, Card) and o.id not in before.objects
        ]
        out.update(made)
    return +out


class TableMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        _rng.seed(0)  # ids and the RNG start afresh for every example
        t = seated_table(rng=_rng)
        add_misc(t)
        add_pile(t, "row", ["J1", "J2"], up=True, layout="row", holder=True, label="Row")
        add_pile(t, "pile", ["S5", "S6", "S7"], up=True)
        self.table = t
        self.views = {s: {o["id"]: o for o in snapshot(t, s)["objects"]} for s in ALL_VIEWS}
        self.accepted = 0
        self.recent: list[str] = []
        self.vanished: dict[int | None, set[str]] = {s: set() for s in ALL_VIEWS}

    @rule(data=st.data())
    def step(self, data: st.DataObject) -> None:
        seat = data.draw(st.sampled_from([0, 1, 2, 3, 0, 1, None]), label="seat")
        self.attempt(seat, draw_op(data, self.table, self.recent))

    @precondition(lambda self: bool(self.recent))
    @rule(data=st.data())
    def meddle(self, data: st.DataObject) -> None:
        """Someone at once deletes, moves, flips or takes what the last operation touched."""
        seat = data.draw(st.sampled_from([0, 1, 2, 3]), label="seat")
        oid = data.draw(st.sampled_from(self.recent), label="id")
        make = data.draw(
            st.sampled_from(
                [
                    lambda: O.Delete(id=oid),
                    lambda: O.Move(id=oid, x=1.0, y=1.0),
                    lambda: O.Flip(id=oid),
                    lambda: O.Take(id=oid),
                ]
            ),
            label="op",
        )
        self.attempt(seat, make())

    @precondition(lambda self: bool(self.table.undo))
    @rule(data=st.data())
    def undo(self, data: st.DataObject) -> None:
        """Undo by a player who has something to undo: most undos would be refused otherwise."""
        pid = data.draw(st.sampled_from(sorted(self.table.undo)), label="undo by")
        self.attempt(self.table.players[pid].seat, O.Undo())

    def attempt(self, seat: int | None, op: O.Op) -> None:
        before = self.table
        blob = encode_table(before)
        work = copy(before)
        note(f"seat {seat}: {op!r}")
        try:
            change = apply_op(work, actor(seat), op, LIMITS, _rng)
        except CardtableError as exc:
            note(f"  -> {exc.code}")
            event(f"{type(op).__name__}: {exc.code}")
            assert encode_table(before) == blob
            assert exc.code in MODEL_CODES
            if seat is None:
                assert exc.code == "not_seated"
            elif getattr(op, "id", None) == "nope":
                assert exc.code == "unknown_object"
            return
        note(f"  -> v{work.version} {change.log!r}")
        event(f"{type(op).__name__}: accepted")
        assert seat is not None, "a spectator changed the table"
        assert encode_table(before) == blob
        check_change(before, work, change, views_too=False)  # views: see the invariant
        assert face_multiset(work) == expected_faces(before, work, op, change.removed)
        for oid in change.removed:
            gone = before.objects[oid]
            assert not isinstance(gone, Hand)
            if isinstance(gone, Stack) and gone.holder:
                assert isinstance(op, O.Delete | O.Undo), f"zone {oid} vanished"
        undo = isinstance(op, O.Undo)
        if not undo:
            for oid, seat_ in change.held.items():
                c = work.objects.get(oid)
                assert c is None or c.parent == f"hand{seat_}", f"{oid} left a hand, same id"
        for s in ALL_VIEWS:
            new_view = follow(self.views[s], work, change, s)
            back = self.vanished[s] & set(new_view)
            assert undo or not back, f"seat {s} sees {back} again"
            self.vanished[s] = (self.vanished[s] | (set(self.views[s]) - set(new_view))) - back
            self.views[s] = new_view
        self.table = work
        self.accepted += 1
        self.recent = sorted(change.dirty)

    @invariant()
    def cards_are_in_exactly_one_place(self) -> None:
        t = self.table
        where: dict[str, str] = {}
        for o in t.objects.values():
            if isinstance(o, Stack | Hand):
                for cid in o.cards:
                    assert cid not in where, f"{cid} in {where[cid]} and {o.id}"
                    where[cid] = o.id
                    c = t.objects.get(cid)
                    assert isinstance(c, Card), f"{o.id} holds missing/non-card {cid}"
                    assert c.parent == o.id
                if isinstance(o, Stack) and not o.holder:
                    assert o.cards, f"pile {o.id} is empty"
        for o in t.objects.values():
            if isinstance(o, Card):
                assert where.get(o.id) == o.parent, f"{o.id}: parent {o.parent}"

    @invariant()
    def hands_persist(self) -> None:
        for s in range(4):
            h = self.table.objects.get(f"hand{s}")
            assert isinstance(h, Hand) and h.seat == s

    @invariant()
    def versions_and_z(self) -> None:
        t = self.table
        assert t.version == self.accepted
        assert all(o.v <= t.version for o in t.objects.values())
        assert all(o.z <= t.zmax for o in t.objects.values())

    @invariant()
    def incremental_views_equal_fresh_snapshots(self) -> None:
        t = self.table
        for s in ALL_VIEWS:
            fresh = {o["id"]: o for o in snapshot(t, s)["objects"]}
            assert self.views[s] == fresh, f"view of seat {s} went stale"
            for oid, o in fresh.items():
                obj = t.objects[oid]
                if isinstance(obj, Card):
                    assert ("face" in o) == rule_visible(t, obj, s), f"{oid} for seat {s}"


TableMachine.TestCase.settings = settings(
    max_examples=settings.default.max_examples,  # the profile's (tests/conftest.py): 100 in ci
    stateful_step_count=30,
    deadline=None,
    report_multiple_bugs=False,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_random_operations_keep_the_table_consistent() -> None:
    run_state_machine_as_test(TableMachine, settings=TableMachine.TestCase.settings)
