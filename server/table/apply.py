"""Applying one validated operation to a table: permissions, the change itself, undo records.

``apply_op`` mutates the table it is given (the room service hands it a fresh copy, so a
rejection part-way leaves the stored state untouched) and returns a :class:`Change` naming every
object whose per-seat view may differ, every removed id, and a log line with no hidden faces.

A card that leaves a hand for anywhere but the same hand is replaced by a copy with a new id, as
a shuffle does: other seats never held the id it had in the hand, and the new one links it to
nothing they saw before it went in.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Any

import msgspec

from server.errors import (
    CONFLICT,
    FORBIDDEN,
    INVALID_MOVE,
    LIMIT,
    NOT_SEATED,
    NOTHING_TO_UNDO,
    UNDO_REFUSED,
    UNKNOWN_OBJECT,
    CardtableError,
)
from server.table import ops as O
from server.table.decks import faces_of
from server.table.objects import (
    BOARD_ID,
    TABLE_W,
    Board,
    Button,
    Card,
    Chips,
    Counter,
    Die,
    Hand,
    Label,
    Obj,
    Stack,
    Table,
    UndoEntry,
)
from server.table.view import in_other_hand, visible_faces

SYSTEM_RNG: random.Random = secrets.SystemRandom()
UNDOABLE = (
    O.Move,
    O.MoveMany,
    O.Flip,
    O.Rotate,
    O.Split,
    O.Merge,
    O.ChipsMove,
    O.ChipsAdd,
    O.CounterSet,
    O.Create,
    O.Update,
    O.Delete,
    O.Take,
    O.Background,
)


LOG_LINES = 50  # public log lines kept in the room, sent with every snapshot


@dataclass(frozen=True)
class Limits:
    """Per-room limits; documented in docs/protocol.md and configurable from the CLI."""

    max_objects: int = 1500
    max_players: int = 16
    max_seats: int = 8
    max_deck: int = 500


@dataclass(frozen=True)
class Actor:
    player_id: str
    name: str
    seat: int | None


@dataclass
class Change:
    """What an operation did: objects to re-send per seat, ids removed, a public log line.

    ``held`` and ``created`` say which views held an id before the change (for per-view
    ``del`` lists): ``held`` maps each changed or removed card that sat in a hand before the
    change to that hand's seat, ``created`` names the ids the change made.
    """

    dirty: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    held: dict[str, int] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    log: str = ""
    players_changed: bool = False
    game_changed: bool = False


def new_id(prefix: str = "o", rng: random.Random | None = None) -> str:
    """64 random bits from ``rng`` (the system's secure source by default): collisions within a
    room are negligible (about 1e-16 for a shuffle)."""
    return f"{prefix}{(rng or SYSTEM_RNG).getrandbits(64):016x}"


class _Ctx:
    """Tracks one operation's touched objects, for the change set and the undo record."""

    def __init__(self, table: Table, seat: int | None, rng: random.Random) -> None:
        self.table = table
        self.seat = seat
        self.rng = rng
        self.change = Change()
        self.before: dict[str, Obj] = {}
        self.created: list[str] = []
        self.renamed: dict[str, str] = {}

    def touch(self, obj: Obj) -> None:
        if obj.id not in self.before and obj.id not in self.created:
            self.before[obj.id] = msgspec.structs.replace(obj)
            if isinstance(obj, Stack | Hand):
                self.before[obj.id].cards = list(obj.cards)  # type: ignore[union-attr]
            elif isinstance(obj, Card) and obj.parent is not None:
                holder = self.table.objects.get(obj.parent)
                if isinstance(holder, Hand):
                    self.change.held[obj.id] = holder.seat
        self.change.dirty.add(obj.id)

    def touch_container(self, c: Stack | Hand) -> None:
        """A container's order changed: its top two cards may have changed visibility."""
        self.touch(c)
        for cid in c.cards[-2:]:
            self.touch(self.table.objects[cid])

    def add(self, obj: Obj) -> None:
        self.table.objects[obj.id] = obj
        self.created.append(obj.id)
        self.change.created.add(obj.id)
        self.change.dirty.add(obj.id)

    def remove(self, obj: Obj) -> None:
        self.touch(obj)
        del self.table.objects[obj.id]
        self.change.dirty.discard(obj.id)
        self.change.removed.add(obj.id)

    def top_z(self) -> int:
        self.table.zmax += 1
        return self.table.zmax


def _get(ctx: _Ctx, oid: str) -> Obj:
    """The object ``oid`` as the acting seat knows it. A card in another seat's hand is not in
    that seat's view: the answer must be the same as for an id that does not exist, or probing
    an old id would tell whether that card is still in the hand."""
    obj = ctx.table.objects.get(oid)
    if obj is None or in_other_hand(ctx.table, obj, ctx.seat):
        raise CardtableError(UNKNOWN_OBJECT, f"There is no object {oid!r} on this table.")
    return obj


def check_ov(obj: Obj, ov: int | None) -> None:
    if ov is not None and ov != obj.v:
        raise CardtableError(CONFLICT, "Someone else changed that first; your table is updated.")


def _check_unlocked(obj: Obj) -> None:
    if obj.locked:
        raise CardtableError(FORBIDDEN, "That object is locked in place. Unlock it first.")


def _container(table: Table, card: Card) -> Stack | Hand | None:
    if card.parent is None:
        return None
    c = table.objects[card.parent]
    assert isinstance(c, Stack | Hand)
    return c


def _check_card_reachable(
    table: Table, card: Card, actor: Actor, *, any_in_stack: bool = False
) -> None:
    """Only your own hand's cards, loose cards, and the top of a pile (any card of a row)."""
    c = _container(table, card)
    if isinstance(c, Hand):
        if c.seat != actor.seat:
            raise CardtableError(FORBIDDEN, "That card is in another player's hand.")
    elif isinstance(c, Stack) and not any_in_stack and c.layout != "row" and c.cards[-1] != card.id:
        raise CardtableError(INVALID_MOVE, "Only the top card of a pile can be taken.")


def _detach(ctx: _Ctx, card: Card) -> None:
    ctx.touch(card)
    c = _container(ctx.table, card)
    if c is None:
        return
    ctx.touch_container(c)
    c.cards.remove(card.id)
    card.parent = None
    if isinstance(c, Stack) and not c.cards and not c.holder:
        ctx.remove(c)


def _reissue(ctx: _Ctx, card: Card) -> Card:
    """Replace a card that has just left a hand (detached) by a new card of the same face.

    Only what anyone can see of it carries over: its face, back and which way up it is. The
    rotation and z-order it had on the table before it went into the hand would link it.
    """
    ctx.remove(card)
    fresh = Card(
        id=new_id("c", ctx.rng), face=card.face, back=card.back, up=card.up, x=card.x, y=card.y
    )
    ctx.add(fresh)
    ctx.renamed[fresh.id] = card.id
    return fresh


def _attach(ctx: _Ctx, card: Card, c: Stack | Hand, index: int | None) -> None:
    ctx.touch(card)
    ctx.touch_container(c)
    if index is None or index < 0 or index > len(c.cards):
        c.cards.append(card.id)
    else:
        c.cards.insert(index, card.id)
    card.parent = c.id
    card.x, card.y = c.x, c.y
    ctx.touch_container(c)


def _flip_card(ctx: _Ctx, card: Card, up: bool) -> None:
    ctx.touch(card)
    card.up = up
    c = _container(ctx.table, card)
    if c is not None:
        ctx.touch_container(c)


def _name(obj: Obj) -> str:
    if isinstance(obj, Stack):
        return obj.label or "a pile"
    if isinstance(obj, Hand):
        return f"seat {obj.seat + 1}'s hand"
    if isinstance(obj, Button):
        return f"the button {obj.label!r}" if obj.label else "a button"
    return {
        Card: "a card",
        Chips: "chips",
        Counter: "a counter",
        Die: "a die",
        Label: "a label",
        Board: "the table",
    }.get(type(obj), "an object")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def stamp(table: Table, change: Change, now: float = 0.0) -> Change:
    """Commit ``change`` to ``table``: the one place a room's version goes up. Every changed
    object is stamped with the new version, and the log line joins the room's log, written at
    ``now`` (epoch seconds; 0: unknown)."""
    version = table.version + 1
    for oid in change.dirty:
        obj = table.objects.get(oid)
        if obj is not None:
            obj.v = version
    table.version = version
    if change.log:
        # Tables stored before log_at existed have lines of unknown time (0).
        at = table.log_times()
        table.log = [*table.log[-(LOG_LINES - 1) :], change.log]
        table.log_at = [*at, now][-len(table.log) :]
    return change


def table_change(
    table: Table,
    actor: Actor,
    op: O.Op,
    limits: Limits = Limits(),
    rng: random.Random | None = None,
) -> Change:
    """Apply ``op`` for ``actor`` to ``table`` (the version is not bumped: see :func:`stamp`);
    raise ``CardtableError`` if it is not allowed. ``rng`` drives shuffles, dice and new ids."""
    if actor.seat is None:
        raise CardtableError(NOT_SEATED, "Spectators can watch but not touch: take a seat to play.")
    if isinstance(op, O.Undo):
        return _undo(table, actor)
    ctx = _Ctx(table, actor.seat, rng or SYSTEM_RNG)
    handler = _HANDLERS[type(op)]
    ctx.change.log = handler(ctx, actor, op, limits)
    if len(table.objects) > limits.max_objects:
        raise CardtableError(LIMIT, f"A room holds at most {limits.max_objects} objects.")
    if isinstance(op, UNDOABLE):
        table.undo[actor.player_id] = UndoEntry(
            version=table.version + 1,
            before=list(ctx.before.values()),
            created=list(ctx.created),
            removed=sorted(ctx.change.removed),
            renamed=dict(ctx.renamed),
        )
    else:
        table.undo.pop(actor.player_id, None)
    return ctx.change


def apply_op(
    table: Table,
    actor: Actor,
    op: O.Op,
    limits: Limits = Limits(),
    rng: random.Random | None = None,
) -> Change:
    """:func:`table_change` and :func:`stamp` in one: for callers outside a room service."""
    return stamp(table, table_change(table, actor, op, limits, rng))


# --- handlers: each returns the log line ------------------------------------------------------


def _move(ctx: _Ctx, actor: Actor, op: O.Move, limits: Limits) -> str:
    t = ctx.table
    obj = _get(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        return _move_card(ctx, actor, obj, op)
    if isinstance(obj, Hand):
        raise CardtableError(INVALID_MOVE, "Hands stay with their seat.")
    if isinstance(obj, Board):
        raise CardtableError(INVALID_MOVE, "The table itself does not move.")
    if op.to is not None:
        if not isinstance(obj, Stack):
            raise CardtableError(INVALID_MOVE, "Only cards and piles can go into a pile or hand.")
        dest = _get(ctx, op.to)
        if isinstance(dest, Stack):
            return _merge(ctx, actor, O.Merge(id=obj.id, into=dest.id), limits)
        if isinstance(dest, Hand):
            if dest.seat != actor.seat:
                raise CardtableError(FORBIDDEN, "You can only pick up a pile into your own hand.")
            n = len(obj.cards)
            for cid in reversed(list(obj.cards)):
                card = t.objects[cid]
                assert isinstance(card, Card)
                _detach(ctx, card)
                _attach(ctx, card, dest, None)
            return f"{actor.name} picked up {_plural(n, 'card')}"
        raise CardtableError(INVALID_MOVE, "A pile can only be dropped on a pile or a hand.")
    _check_unlocked(obj)
    if op.x is None or op.y is None:
        raise CardtableError(INVALID_MOVE, "A move needs either a destination or x and y.")
    ctx.touch(obj)
    obj.x, obj.y, obj.z = op.x, op.y, ctx.top_z()  # a pile's cards lie where the pile is
    return f"{actor.name} moved {_name(obj)}"


def _move_card(ctx: _Ctx, actor: Actor, card: Card, op: O.Move) -> str:
    t = ctx.table
    _check_card_reachable(t, card, actor)
    if card.parent is None:
        _check_unlocked(card)
    src = _container(t, card)
    if op.to is not None:
        dest = _get(ctx, op.to)
        if isinstance(dest, Card):
            if dest.parent is not None or dest.id == card.id:
                raise CardtableError(INVALID_MOVE, "Drop onto a loose card to make a pile.")
            _check_unlocked(dest)
            ctx.touch(dest)
            pile = Stack(id=new_id("s", ctx.rng), x=dest.x, y=dest.y, z=ctx.top_z(), rot=dest.rot)
            ctx.add(pile)
            _attach(ctx, dest, pile, None)
            dest = pile
        if not isinstance(dest, Stack | Hand):
            raise CardtableError(INVALID_MOVE, "Cards can only go into a pile or a hand.")
        if op.up is not None:
            ctx.touch(card)
            card.up = op.up
        same = dest is src
        _detach(ctx, card)
        if isinstance(src, Hand) and not same:
            card = _reissue(ctx, card)
        if dest.id not in t.objects:  # the source pile vanished when emptied: it was the target
            raise CardtableError(INVALID_MOVE, "A card can't be put back into the pile it leaves.")
        _attach(ctx, card, dest, op.index)
        if isinstance(dest, Hand):
            if same:
                return ""  # reordering your own hand is private and cosmetic
            if dest.seat == actor.seat:
                return f"{actor.name} took a card into their hand"
            return f"{actor.name} gave a card to seat {dest.seat + 1}"
        return f"{actor.name} put a card on {_name(dest)}"
    if op.x is None or op.y is None:
        raise CardtableError(INVALID_MOVE, "A move needs either a destination or x and y.")
    ctx.touch(card)
    _detach(ctx, card)
    if isinstance(src, Hand):
        card = _reissue(ctx, card)
    if op.up is not None:
        card.up = op.up
    card.x, card.y, card.z = op.x, op.y, ctx.top_z()
    if isinstance(src, Hand):
        return f"{actor.name} played a card from their hand"
    return f"{actor.name} moved a card"


def _move_many(ctx: _Ctx, actor: Actor, op: O.MoveMany, limits: Limits) -> str:
    if len(set(op.ids)) != len(op.ids):
        raise CardtableError(INVALID_MOVE, "Each card can be moved only once.")
    dest = _get(ctx, op.to)
    if not isinstance(dest, Stack | Hand):
        raise CardtableError(INVALID_MOVE, "Cards can only go into a pile or a hand.")
    for cid in op.ids:
        card = _get(ctx, cid)
        if not isinstance(card, Card):
            raise CardtableError(INVALID_MOVE, "Only cards can be moved together.")
        _move_card(ctx, actor, card, O.Move(id=cid, to=op.to))
    return f"{actor.name} put {_plural(len(op.ids), 'card')} on {_name(dest)}"


def _flip(ctx: _Ctx, actor: Actor, op: O.Flip, limits: Limits) -> str:
    t = ctx.table
    obj = _get(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        _check_card_reachable(t, obj, actor)
        ctx.touch(obj)
        obj.up = not obj.up
        c = _container(t, obj)
        if c is not None:
            ctx.touch_container(c)
        return f"{actor.name} flipped a card"
    if isinstance(obj, Stack):
        ctx.touch(obj)
        obj.cards.reverse()
        for cid in obj.cards:
            card = t.objects[cid]
            assert isinstance(card, Card)
            ctx.touch(card)
            card.up = not card.up
        return f"{actor.name} flipped {_name(obj)}"
    raise CardtableError(INVALID_MOVE, "Only cards and piles can be flipped.")


def _rotate(ctx: _Ctx, actor: Actor, op: O.Rotate, limits: Limits) -> str:
    obj = _get(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Hand | Board):
        raise CardtableError(INVALID_MOVE, "Hands and the table can't be rotated.")
    if isinstance(obj, Card):
        _check_card_reachable(ctx.table, obj, actor)
    _check_unlocked(obj)
    ctx.touch(obj)
    obj.rot = op.rot % 360
    return f"{actor.name} rotated {_name(obj)}"


def _stack(ctx: _Ctx, oid: str) -> Stack:
    obj = _get(ctx, oid)
    if not isinstance(obj, Stack):
        raise CardtableError(INVALID_MOVE, "That is not a pile of cards.")
    return obj


def _shuffle(ctx: _Ctx, actor: Actor, op: O.Shuffle, limits: Limits) -> str:
    t = ctx.table
    s = _stack(ctx, op.id)
    check_ov(s, op.ov)
    ctx.touch(s)
    old = list(s.cards)
    faces = []
    for cid in old:
        card = t.objects[cid]
        assert isinstance(card, Card)
        faces.append((card.face, card.back))
        ctx.remove(card)
    ctx.rng.shuffle(faces)
    # New ids for every card: nothing a client saw before can be linked to the new order.
    s.cards = []
    for face, back in faces:
        card = Card(
            id=new_id("c", ctx.rng), face=face, back=back, up=False, parent=s.id, x=s.x, y=s.y
        )
        ctx.add(card)
        s.cards.append(card.id)
    return f"{actor.name} shuffled {_name(s)}"


def _seated_order(t: Table, seats: list[int] | None) -> list[int]:
    taken = sorted(t.seated())
    if seats is None:
        return taken
    bad = [s for s in seats if s >= t.seats]
    if bad:
        raise CardtableError(INVALID_MOVE, f"This table has no seat {bad[0] + 1}.")
    return sorted(set(seats))


def _deal(ctx: _Ctx, actor: Actor, op: O.Deal, limits: Limits) -> str:
    t = ctx.table
    s = _stack(ctx, op.id)
    check_ov(s, op.ov)
    order = _seated_order(t, op.seats)
    if not order:
        raise CardtableError(INVALID_MOVE, "Nobody is seated to deal to.")
    need = op.n * len(order)
    if need > len(s.cards):
        raise CardtableError(
            INVALID_MOVE,
            f"Dealing {op.n} to {_plural(len(order), 'player')} needs {need} cards; "
            f"the pile has {len(s.cards)}.",
        )
    for _ in range(op.n):
        for seat in order:
            hand = t.objects[f"hand{seat}"]
            assert isinstance(hand, Hand)
            card = t.objects[s.cards[-1]]
            assert isinstance(card, Card)
            _detach(ctx, card)
            card.up = False
            _attach(ctx, card, hand, None)
    return f"{actor.name} dealt {_plural(op.n, 'card')} to each player"


def _take(ctx: _Ctx, actor: Actor, op: O.Take, limits: Limits) -> str:
    t = ctx.table
    s = _stack(ctx, op.id)
    check_ov(s, op.ov)
    if op.n > len(s.cards):
        raise CardtableError(INVALID_MOVE, f"The pile has only {_plural(len(s.cards), 'card')}.")
    hand = t.objects[f"hand{actor.seat}"]
    assert isinstance(hand, Hand)
    for _ in range(op.n):
        card = t.objects[s.cards[-1]]
        assert isinstance(card, Card)
        _detach(ctx, card)
        _attach(ctx, card, hand, None)
    return f"{actor.name} took {_plural(op.n, 'card')} from {_name(s)}"


def _split(ctx: _Ctx, actor: Actor, op: O.Split, limits: Limits) -> str:
    t = ctx.table
    s = _stack(ctx, op.id)
    check_ov(s, op.ov)
    if op.n >= len(s.cards) and not s.holder:
        raise CardtableError(INVALID_MOVE, "Split off fewer cards than the pile holds.")
    if op.n > len(s.cards):
        raise CardtableError(INVALID_MOVE, f"The pile has only {_plural(len(s.cards), 'card')}.")
    new = Stack(id=new_id("s", ctx.rng), x=op.x, y=op.y, z=ctx.top_z(), rot=s.rot)
    ctx.add(new)
    moving = s.cards[-op.n :]
    for cid in moving:
        card = t.objects[cid]
        assert isinstance(card, Card)
        _detach(ctx, card)
        _attach(ctx, card, new, None)
    return f"{actor.name} split {_plural(op.n, 'card')} off {_name(s)}"


def _merge(ctx: _Ctx, actor: Actor, op: O.Merge, limits: Limits) -> str:
    t = ctx.table
    src = _stack(ctx, op.id)
    dest = _stack(ctx, op.into)
    check_ov(src, op.ov)
    if src.id == dest.id:
        raise CardtableError(INVALID_MOVE, "A pile can't be put on itself.")
    n = len(src.cards)
    for cid in list(src.cards):
        card = t.objects[cid]
        assert isinstance(card, Card)
        _detach(ctx, card)
        _attach(ctx, card, dest, None)
    if src.id in t.objects and src.holder:
        ctx.touch(src)
    return f"{actor.name} put {_plural(n, 'card')} on {_name(dest)}"


def _chips(ctx: _Ctx, oid: str) -> Chips:
    obj = _get(ctx, oid)
    if not isinstance(obj, Chips):
        raise CardtableError(INVALID_MOVE, "That is not a chip stack.")
    return obj


def _chips_move(ctx: _Ctx, actor: Actor, op: O.ChipsMove, limits: Limits) -> str:
    src, dest = _chips(ctx, op.id), _chips(ctx, op.to)
    if src.id == dest.id:
        raise CardtableError(INVALID_MOVE, "Chips must move to another stack.")
    if op.n > src.count:
        raise CardtableError(INVALID_MOVE, f"That stack has only {_plural(src.count, 'chip')}.")
    ctx.touch(src)
    ctx.touch(dest)
    src.count -= op.n
    dest.count += op.n
    return f"{actor.name} moved {_plural(op.n, 'chip')}"


def _chips_add(ctx: _Ctx, actor: Actor, op: O.ChipsAdd, limits: Limits) -> str:
    c = _chips(ctx, op.id)
    if c.count + op.n < 0 or c.count + op.n > 100_000:
        raise CardtableError(INVALID_MOVE, f"That stack has {_plural(c.count, 'chip')}.")
    ctx.touch(c)
    c.count += op.n
    verb = "added" if op.n >= 0 else "removed"
    return f"{actor.name} {verb} {_plural(abs(op.n), 'chip')}"


def _counter(ctx: _Ctx, actor: Actor, op: O.CounterSet, limits: Limits) -> str:
    c = _get(ctx, op.id)
    if not isinstance(c, Counter):
        raise CardtableError(INVALID_MOVE, "That is not a counter.")
    if (op.value is None) == (op.delta is None):
        raise CardtableError(INVALID_MOVE, "Give a counter either a value or a delta.")
    ctx.touch(c)
    value = op.value if op.value is not None else c.value + (op.delta or 0) * c.step
    if abs(value) > 1_000_000:
        raise CardtableError(INVALID_MOVE, "Counters stay within ±1,000,000.")
    c.value = value
    return f"{actor.name} set {c.label or 'a counter'} to {value}"


def _roll(ctx: _Ctx, actor: Actor, op: O.Roll, limits: Limits) -> str:
    d = _get(ctx, op.id)
    if not isinstance(d, Die):
        raise CardtableError(INVALID_MOVE, "That is not a die.")
    ctx.touch(d)
    d.value = ctx.rng.randrange(d.sides) + 1
    return f"{actor.name} rolled a {d.value}"


STANDARD_FACES = [f"{s}{r}" for s in "CDHS" for r in range(1, 14)]


def _create(ctx: _Ctx, actor: Actor, op: O.Create, limits: Limits) -> str:
    z = ctx.top_z()
    base: dict[str, Any] = {"x": op.x, "y": op.y, "z": z}
    obj: Obj
    if op.kind == "card":
        one = faces_of(op.cards, 1) if op.cards is not None and op.faces is None else op.faces
        if not one or len(one) != 1:
            raise CardtableError(INVALID_MOVE, "A card needs exactly one face.")
        obj = Card(id=new_id("c", ctx.rng), face=one[0], back=op.back or "blue", up=op.up, **base)
        ctx.add(obj)
        return f"{actor.name} added a card"
    if op.kind in ("deck", "stack", "zone"):
        if op.faces is not None and op.cards is not None:
            raise CardtableError(INVALID_MOVE, "Give a deck either faces or cards, not both.")
        if op.cards is not None:
            faces = faces_of(op.cards, limits.max_deck)
        else:
            faces = (
                op.faces if op.faces is not None else (STANDARD_FACES if op.kind == "deck" else [])
            )
        if len(faces) > limits.max_deck:
            raise CardtableError(LIMIT, f"A deck holds at most {limits.max_deck} cards.")
        holder = op.kind == "zone"
        if not faces and not holder:
            raise CardtableError(INVALID_MOVE, "A pile needs at least one card.")
        s = Stack(
            id=new_id("s", ctx.rng),
            holder=holder,
            label=op.label or "",
            w=op.w or 0.0,
            h=op.h or 0.0,
            layout=op.layout or "pile",
            **base,
        )
        ctx.add(s)
        for face in faces:
            card = Card(
                id=new_id("c", ctx.rng),
                face=face,
                back=op.back or "blue",
                up=op.up,
                parent=s.id,
                x=op.x,
                y=op.y,
            )
            ctx.add(card)
            s.cards.append(card.id)
        what = "a zone" if holder else f"a pile of {_plural(len(faces), 'card')}"
        return f"{actor.name} added {what}"
    if op.kind == "chips":
        obj = Chips(
            id=new_id("k", ctx.rng),
            count=op.count if op.count is not None else 10,
            color=op.color or "red",
            value=op.value or 1,
            label=op.label or "",
            **base,
        )
    elif op.kind == "counter":
        obj = Counter(
            id=new_id("n", ctx.rng),
            value=op.value or 0,
            step=op.step or 1,
            label=op.label or "",
            **base,
        )
    elif op.kind == "die":
        obj = Die(id=new_id("d", ctx.rng), sides=op.sides or 6, value=1, **base)
    elif op.kind == "button":
        obj = Button(
            id=new_id("b", ctx.rng),
            label=op.label or "",
            steps=list(op.steps or []),
            w=op.w or 120.0,
            h=op.h or 48.0,
            **base,
        )
    else:
        obj = Label(id=new_id("l", ctx.rng), text=op.text or op.label or "", **base)
    ctx.add(obj)
    return f"{actor.name} added {_name(obj)}"


_EDITABLE: dict[type, tuple[str, ...]] = {
    Card: ("locked",),
    Stack: ("label", "w", "h", "locked", "layout"),
    Chips: ("label", "color", "locked"),
    Counter: ("label", "step", "locked"),
    Die: ("sides", "locked"),
    Label: ("text", "locked"),
    Hand: (),
    Button: ("label", "w", "h", "locked", "steps"),
    Board: (),
}


def _update(ctx: _Ctx, actor: Actor, op: O.Update, limits: Limits) -> str:
    obj = _get(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        _check_card_reachable(ctx.table, obj, actor)
    allowed = _EDITABLE[type(obj)]
    fields = {
        k: v
        for k in ("label", "text", "w", "h", "step", "sides", "color", "locked", "layout", "steps")
        if (v := getattr(op, k)) is not None
    }
    bad = [k for k in fields if k not in allowed]
    if bad:
        raise CardtableError(INVALID_MOVE, f"{_name(obj).capitalize()} has no editable {bad[0]}.")
    if not fields:
        raise CardtableError(INVALID_MOVE, "Nothing to change.")
    ctx.touch(obj)
    for k, v in fields.items():
        setattr(obj, k, list(v) if k == "steps" else v)
    if isinstance(obj, Stack) and "layout" in fields:
        for cid in obj.cards:
            ctx.touch(ctx.table.objects[cid])
    if isinstance(obj, Die) and obj.value > obj.sides:
        obj.value = obj.sides
    return f"{actor.name} edited {_name(obj)}"


def _delete(ctx: _Ctx, actor: Actor, op: O.Delete, limits: Limits) -> str:
    t = ctx.table
    obj = _get(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Hand):
        raise CardtableError(INVALID_MOVE, "Hands belong to their seat and can't be deleted.")
    if isinstance(obj, Board):
        raise CardtableError(INVALID_MOVE, "The table itself can't be deleted.")
    _check_unlocked(obj)
    if isinstance(obj, Card):
        _check_card_reachable(t, obj, actor)
        _detach(ctx, obj)
    if isinstance(obj, Stack):
        for cid in list(obj.cards):
            ctx.remove(t.objects[cid])
    if obj.id in t.objects:
        ctx.remove(obj)
    return f"{actor.name} removed {_name(obj)}"


def board(table: Table) -> Board | None:
    found = table.objects.get(BOARD_ID)
    return found if isinstance(found, Board) else None


def ensure_board(ctx: _Ctx) -> Board:
    """The room's board, made (at its defaults) the first time a setting changes."""
    found = board(ctx.table)
    if found is None:
        found = Board()
        ctx.add(found)
    else:
        ctx.touch(found)
    return found


def _background(ctx: _Ctx, actor: Actor, op: O.Background, limits: Limits) -> str:
    b = ensure_board(ctx)
    b.background = op.value
    return f"{actor.name} changed the table's background"


def _press(ctx: _Ctx, actor: Actor, op: O.Press, limits: Limits) -> str:
    from server.table.buttons import press  # the executor builds on this module's helpers

    return press(ctx, actor, op, limits)


_CHANGED_SINCE = "Someone has changed that since; it can't be undone."


def _undo(table: Table, actor: Actor) -> Change:
    entry = table.undo.get(actor.player_id)
    if entry is None:
        raise CardtableError(NOTHING_TO_UNDO, "You have nothing to undo.")
    objs = table.objects
    for old in entry.before:
        cur = objs.get(old.id)
        gone_by_us = old.id in entry.removed
        if (cur is None) != gone_by_us or (cur is not None and cur.v != entry.version):
            raise CardtableError(UNDO_REFUSED, _CHANGED_SINCE)
    for oid in entry.created:
        cur = objs.get(oid)
        if cur is None or cur.v != entry.version:
            raise CardtableError(UNDO_REFUSED, _CHANGED_SINCE)
    seen_now = {s: visible_faces(table, s) for s in [None, *range(table.seats)]}
    existed = set(objs)
    held = {cid: h.seat for h in objs.values() if isinstance(h, Hand) for cid in h.cards}
    change = Change()
    for oid in entry.created:
        del objs[oid]
        change.removed.add(oid)
    for old in entry.before:
        objs[old.id] = old
        change.dirty.add(old.id)
        change.removed.discard(old.id)
    # A card the operation took out of a hand comes back under its old id: whoever could see
    # it under the new id may see it again.
    was = {old: new for new, old in entry.renamed.items()}
    for s, before in seen_now.items():
        after = visible_faces(table, s)
        if any(cid not in before and was.get(cid) not in before for cid in after):
            raise CardtableError(UNDO_REFUSED, "Undoing that would reveal a hidden card.")
    for oid in list(change.dirty):
        obj = objs[oid]
        if isinstance(obj, Stack | Hand):
            change.dirty.update(obj.cards[-2:])
    change.held = {oid: held[oid] for oid in change.dirty | change.removed if oid in held}
    change.created = change.dirty - existed
    del table.undo[actor.player_id]
    change.log = f"{actor.name} undid their last move"
    return change


_HANDLERS: dict[type, Any] = {
    O.Move: _move,
    O.MoveMany: _move_many,
    O.Flip: _flip,
    O.Rotate: _rotate,
    O.Shuffle: _shuffle,
    O.Deal: _deal,
    O.Take: _take,
    O.Split: _split,
    O.Merge: _merge,
    O.ChipsMove: _chips_move,
    O.ChipsAdd: _chips_add,
    O.CounterSet: _counter,
    O.Roll: _roll,
    O.Create: _create,
    O.Update: _update,
    O.Delete: _delete,
    O.Background: _background,
    O.Press: _press,
}

__all__ = [
    "Actor",
    "Change",
    "Limits",
    "apply_op",
    "new_id",
    "stamp",
    "table_change",
    "STANDARD_FACES",
    "TABLE_W",
]
