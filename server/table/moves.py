"""The table's operations, one handler each, and the helpers they share: each handler changes
the table in an operation's context (:class:`Ctx`) and returns the public log line. The button
executor (:mod:`server.table.buttons`) runs its steps through the same handlers and helpers;
:mod:`server.table.apply` dispatches to them."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from plugins import cards
from server.errors import (
    CONFLICT,
    FORBIDDEN,
    INVALID_MOVE,
    LIMIT,
    UNKNOWN_OBJECT,
    CardtableError,
)
from server.table import fairplay
from server.table import ops as O
from server.table.change import Actor, Change, Limits, new_id
from server.table.decks import faces_of
from server.table.objects import (
    BOARD_ID,
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
)
from server.table.spread import gather_row, lay_row
from server.table.view import in_other_hand
from server.table.wording import public_card


class Ctx:
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


def get_obj(ctx: Ctx, oid: str) -> Obj:
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


def check_unlocked(obj: Obj) -> None:
    if obj.locked:
        raise CardtableError(FORBIDDEN, "That object is locked in place. Unlock it first.")


def container_of(table: Table, card: Card) -> Stack | Hand | None:
    if card.parent is None:
        return None
    c = table.objects[card.parent]
    assert isinstance(c, Stack | Hand)
    return c


def check_card_reachable(
    table: Table, card: Card, actor: Actor, *, any_in_stack: bool = False
) -> None:
    """Only your own hand's cards, loose cards, and the top of a pile (any card of a row)."""
    c = container_of(table, card)
    if isinstance(c, Hand):
        if c.seat != actor.seat:
            raise CardtableError(FORBIDDEN, "That card is in another player's hand.")
    elif isinstance(c, Stack) and not any_in_stack and c.layout != "row" and c.cards[-1] != card.id:
        raise CardtableError(INVALID_MOVE, "Only the top card of a pile can be taken.")


def detach(ctx: Ctx, card: Card) -> None:
    ctx.touch(card)
    c = container_of(ctx.table, card)
    if c is None:
        return
    ctx.touch_container(c)
    c.cards.remove(card.id)
    card.parent = None
    if isinstance(c, Stack) and not c.cards and not c.holder:
        ctx.remove(c)


def reissue(ctx: Ctx, card: Card) -> Card:
    """Replace a card that has just left a hand (detached) by a new card of the same face.

    Only what anyone can see of it carries over: its face, back and which way up it is. The
    rotation and z-order it had on the table before it went into the hand would link it.
    """
    ctx.remove(card)
    fresh = Card(
        id=new_id("c", ctx.rng),
        face=card.face,
        back=card.back,
        up=card.up,
        x=card.x,
        y=card.y,
        home=card.home,
    )
    ctx.add(fresh)
    ctx.renamed[fresh.id] = card.id
    return fresh


def attach(ctx: Ctx, card: Card, c: Stack | Hand, index: int | None) -> None:
    ctx.touch(card)
    ctx.touch_container(c)
    if index is None or index < 0 or index > len(c.cards):
        c.cards.append(card.id)
    else:
        c.cards.insert(index, card.id)
    card.parent = c.id
    card.x, card.y = c.x, c.y
    ctx.touch_container(c)


def flip_card(ctx: Ctx, card: Card, up: bool) -> None:
    ctx.touch(card)
    card.up = up
    c = container_of(ctx.table, card)
    if c is not None:
        ctx.touch_container(c)


def name_of(obj: Obj) -> str:
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


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def move(ctx: Ctx, actor: Actor, op: O.Move, limits: Limits) -> str:
    t = ctx.table
    obj = get_obj(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        return move_card(ctx, actor, obj, op)
    if isinstance(obj, Hand):
        raise CardtableError(INVALID_MOVE, "Hands stay with their seat.")
    if isinstance(obj, Board):
        raise CardtableError(INVALID_MOVE, "The table itself does not move.")
    if op.to is not None:
        if not isinstance(obj, Stack):
            raise CardtableError(INVALID_MOVE, "Only cards and piles can go into a pile or hand.")
        dest = get_obj(ctx, op.to)
        if isinstance(dest, Stack):
            return merge_stacks(ctx, actor, O.Merge(id=obj.id, into=dest.id), limits)
        if isinstance(dest, Hand):
            if dest.seat != actor.seat:
                raise CardtableError(FORBIDDEN, "You can only pick up a pile into your own hand.")
            n = len(obj.cards)
            for cid in reversed(list(obj.cards)):
                card = t.objects[cid]
                assert isinstance(card, Card)
                detach(ctx, card)
                attach(ctx, card, dest, None)
            return f"{actor.name} picked up {plural(n, 'card')}"
        raise CardtableError(INVALID_MOVE, "A pile can only be dropped on a pile or a hand.")
    check_unlocked(obj)
    if op.x is None or op.y is None:
        raise CardtableError(INVALID_MOVE, "A move needs either a destination or x and y.")
    ctx.touch(obj)
    obj.x, obj.y, obj.z = op.x, op.y, ctx.top_z()  # a pile's cards lie where the pile is
    return f"{actor.name} moved {name_of(obj)}"


def move_card(ctx: Ctx, actor: Actor, card: Card, op: O.Move) -> str:
    t = ctx.table
    check_card_reachable(t, card, actor)
    if card.parent is None:
        check_unlocked(card)
    src = container_of(t, card)
    if op.to is not None:
        dest = get_obj(ctx, op.to)
        if isinstance(dest, Card):
            if dest.parent is not None or dest.id == card.id:
                raise CardtableError(INVALID_MOVE, "Drop onto a loose card to make a pile.")
            check_unlocked(dest)
            ctx.touch(dest)
            pile = Stack(id=new_id("s", ctx.rng), x=dest.x, y=dest.y, z=ctx.top_z(), rot=dest.rot)
            ctx.add(pile)
            attach(ctx, dest, pile, None)
            dest = pile
        if not isinstance(dest, Stack | Hand):
            raise CardtableError(INVALID_MOVE, "Cards can only go into a pile or a hand.")
        if op.up is not None:
            ctx.touch(card)
            card.up = op.up
        same = dest is src
        detach(ctx, card)
        if isinstance(src, Hand) and not same:
            card = reissue(ctx, card)
        if dest.id not in t.objects:  # the source pile vanished when emptied: it was the target
            raise CardtableError(INVALID_MOVE, "A card can't be put back into the pile it leaves.")
        attach(ctx, card, dest, op.index)
        if isinstance(dest, Hand):
            if same:
                return ""  # reordering your own hand is private and cosmetic
            if dest.seat == actor.seat:
                return f"{actor.name} took a card into their hand"
            return f"{actor.name} gave a card to seat {dest.seat + 1}"
        what = public_card(t, card)  # its face only if everyone sees it now
        if isinstance(src, Hand) and what != "a card":
            return f"{actor.name} played {what} on {name_of(dest)}"
        return f"{actor.name} put {what} on {name_of(dest)}"
    if op.x is None or op.y is None:
        raise CardtableError(INVALID_MOVE, "A move needs either a destination or x and y.")
    ctx.touch(card)
    detach(ctx, card)
    if isinstance(src, Hand):
        card = reissue(ctx, card)
    if op.up is not None:
        card.up = op.up
    card.x, card.y, card.z = op.x, op.y, ctx.top_z()
    what = public_card(t, card)
    if isinstance(src, Hand):
        if what != "a card":
            return f"{actor.name} played {what}"
        return f"{actor.name} played a card from their hand"
    return f"{actor.name} moved {what}"


def move_many(ctx: Ctx, actor: Actor, op: O.MoveMany, limits: Limits) -> str:
    if len(set(op.ids)) != len(op.ids):
        raise CardtableError(INVALID_MOVE, "Each card can be moved only once.")
    dest = get_obj(ctx, op.to)
    if not isinstance(dest, Stack | Hand):
        raise CardtableError(INVALID_MOVE, "Cards can only go into a pile or a hand.")
    for cid in op.ids:
        card = get_obj(ctx, cid)
        if not isinstance(card, Card):
            raise CardtableError(INVALID_MOVE, "Only cards can be moved together.")
        move_card(ctx, actor, card, O.Move(id=cid, to=op.to))
    return f"{actor.name} put {plural(len(op.ids), 'card')} on {name_of(dest)}"


def flip(ctx: Ctx, actor: Actor, op: O.Flip, limits: Limits) -> str:
    t = ctx.table
    obj = get_obj(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        check_card_reachable(t, obj, actor)
        ctx.touch(obj)
        obj.up = not obj.up
        c = container_of(t, obj)
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
        return f"{actor.name} flipped {name_of(obj)}"
    raise CardtableError(INVALID_MOVE, "Only cards and piles can be flipped.")


def rotate(ctx: Ctx, actor: Actor, op: O.Rotate, limits: Limits) -> str:
    obj = get_obj(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Hand | Board):
        raise CardtableError(INVALID_MOVE, "Hands and the table can't be rotated.")
    if isinstance(obj, Card):
        check_card_reachable(ctx.table, obj, actor)
    check_unlocked(obj)
    ctx.touch(obj)
    obj.rot = op.rot % 360
    return f"{actor.name} rotated {name_of(obj)}"


def stack_of(ctx: Ctx, oid: str) -> Stack:
    obj = get_obj(ctx, oid)
    if not isinstance(obj, Stack):
        raise CardtableError(INVALID_MOVE, "That is not a pile of cards.")
    return obj


def shuffle(ctx: Ctx, actor: Actor, op: O.Shuffle, limits: Limits) -> str:
    t = ctx.table
    s = stack_of(ctx, op.id)
    check_ov(s, op.ov)
    ctx.touch(s)
    old = list(s.cards)
    faces = []
    for cid in old:
        card = t.objects[cid]
        assert isinstance(card, Card)
        faces.append((card.face, card.back, card.home))
        ctx.remove(card)
    # Free play: the committed seed's keyed shuffle (a rule room: the room's random source).
    faces, committed = fairplay.order(t, faces, [f[0] for f in faces], name_of(s), ctx.rng)
    if committed:
        ctx.change.players_changed = True  # the next shuffle's commitment goes with the players
    # New ids for every card: nothing a client saw before can be linked to the new order.
    s.cards = []
    for face, back, home in faces:
        card = Card(
            id=new_id("c", ctx.rng),
            face=face,
            back=back,
            up=False,
            parent=s.id,
            x=s.x,
            y=s.y,
            home=home,
        )
        ctx.add(card)
        s.cards.append(card.id)
    said = f"{actor.name} shuffled {name_of(s)}"
    return f"{said} ({committed})" if committed else said


def seated_order(t: Table, seats: list[int] | None) -> list[int]:
    taken = sorted(t.seated())
    if seats is None:
        return taken
    bad = [s for s in seats if s >= t.seats]
    if bad:
        raise CardtableError(INVALID_MOVE, f"This table has no seat {bad[0] + 1}.")
    return sorted(set(seats))


def deal(ctx: Ctx, actor: Actor, op: O.Deal, limits: Limits) -> str:
    t = ctx.table
    s = stack_of(ctx, op.id)
    check_ov(s, op.ov)
    order = seated_order(t, op.seats)
    if not order:
        raise CardtableError(INVALID_MOVE, "Nobody is seated to deal to.")
    need = op.n * len(order)
    if need > len(s.cards):
        raise CardtableError(
            INVALID_MOVE,
            f"Dealing {op.n} to {plural(len(order), 'player')} needs {need} cards; "
            f"the pile has {len(s.cards)}.",
        )
    for _ in range(op.n):
        for seat in order:
            hand = t.objects[f"hand{seat}"]
            assert isinstance(hand, Hand)
            card = t.objects[s.cards[-1]]
            assert isinstance(card, Card)
            detach(ctx, card)
            card.up = False
            attach(ctx, card, hand, None)
    return f"{actor.name} dealt {plural(op.n, 'card')} from {name_of(s)} to each player"


def take(ctx: Ctx, actor: Actor, op: O.Take, limits: Limits) -> str:
    t = ctx.table
    s = stack_of(ctx, op.id)
    check_ov(s, op.ov)
    if op.n > len(s.cards):
        raise CardtableError(INVALID_MOVE, f"The pile has only {plural(len(s.cards), 'card')}.")
    hand = t.objects[f"hand{actor.seat}"]
    assert isinstance(hand, Hand)
    for _ in range(op.n):
        card = t.objects[s.cards[-1]]
        assert isinstance(card, Card)
        detach(ctx, card)
        attach(ctx, card, hand, None)
    return f"{actor.name} took {plural(op.n, 'card')} from {name_of(s)}"


def split(ctx: Ctx, actor: Actor, op: O.Split, limits: Limits) -> str:
    t = ctx.table
    s = stack_of(ctx, op.id)
    check_ov(s, op.ov)
    if op.n >= len(s.cards) and not s.holder:
        raise CardtableError(INVALID_MOVE, "Split off fewer cards than the pile holds.")
    if op.n > len(s.cards):
        raise CardtableError(INVALID_MOVE, f"The pile has only {plural(len(s.cards), 'card')}.")
    new = Stack(id=new_id("s", ctx.rng), x=op.x, y=op.y, z=ctx.top_z(), rot=s.rot)
    ctx.add(new)
    moving = s.cards[-op.n :]
    for cid in moving:
        card = t.objects[cid]
        assert isinstance(card, Card)
        detach(ctx, card)
        attach(ctx, card, new, None)
    return f"{actor.name} split {plural(op.n, 'card')} off {name_of(s)}"


def merge_stacks(ctx: Ctx, actor: Actor, op: O.Merge, limits: Limits) -> str:
    t = ctx.table
    src = stack_of(ctx, op.id)
    dest = stack_of(ctx, op.into)
    check_ov(src, op.ov)
    if src.id == dest.id:
        raise CardtableError(INVALID_MOVE, "A pile can't be put on itself.")
    n = len(src.cards)
    for cid in list(src.cards):
        card = t.objects[cid]
        assert isinstance(card, Card)
        detach(ctx, card)
        attach(ctx, card, dest, None)
    if src.id in t.objects and src.holder:
        ctx.touch(src)
    return f"{actor.name} put {plural(n, 'card')} on {name_of(dest)}"


def chips_of(ctx: Ctx, oid: str) -> Chips:
    obj = get_obj(ctx, oid)
    if not isinstance(obj, Chips):
        raise CardtableError(INVALID_MOVE, "That is not a chip stack.")
    return obj


def chips_move(ctx: Ctx, actor: Actor, op: O.ChipsMove, limits: Limits) -> str:
    src, dest = chips_of(ctx, op.id), chips_of(ctx, op.to)
    if src.id == dest.id:
        raise CardtableError(INVALID_MOVE, "Chips must move to another stack.")
    if op.n > src.count:
        raise CardtableError(INVALID_MOVE, f"That stack has only {plural(src.count, 'chip')}.")
    ctx.touch(src)
    ctx.touch(dest)
    src.count -= op.n
    dest.count += op.n
    return f"{actor.name} moved {plural(op.n, 'chip')}"


def chips_add(ctx: Ctx, actor: Actor, op: O.ChipsAdd, limits: Limits) -> str:
    c = chips_of(ctx, op.id)
    if c.count + op.n < 0 or c.count + op.n > 100_000:
        raise CardtableError(INVALID_MOVE, f"That stack has {plural(c.count, 'chip')}.")
    ctx.touch(c)
    c.count += op.n
    verb = "added" if op.n >= 0 else "removed"
    return f"{actor.name} {verb} {plural(abs(op.n), 'chip')}"


def set_counter(ctx: Ctx, actor: Actor, op: O.CounterSet, limits: Limits) -> str:
    c = get_obj(ctx, op.id)
    if not isinstance(c, Counter):
        raise CardtableError(INVALID_MOVE, "That is not a counter.")
    if (op.value is None) == (op.delta is None):
        raise CardtableError(INVALID_MOVE, "Give a counter either a value or a delta.")
    ctx.touch(c)
    value = op.value if op.value is not None else c.value + (op.delta or 0) * c.step
    if abs(value) > 1_000_000:
        raise CardtableError(INVALID_MOVE, "Counters stay within ±1,000,000.")
    c.value = value
    ctx.change.burst = f"counter {actor.player_id} {c.id}"  # a burst of clicks: one line
    return f"{actor.name} set {c.label or 'a counter'} to {value}"


def roll(ctx: Ctx, actor: Actor, op: O.Roll, limits: Limits) -> str:
    d = get_obj(ctx, op.id)
    if not isinstance(d, Die):
        raise CardtableError(INVALID_MOVE, "That is not a die.")
    ctx.touch(d)
    d.value = ctx.rng.randrange(d.sides) + 1
    return f"{actor.name} rolled a {d.value}"


STANDARD_FACES = list(cards.STANDARD)  # the card codes: plugins/cards.py, the one list


def create(ctx: Ctx, actor: Actor, op: O.Create, limits: Limits) -> str:
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
                home=s.id,
            )
            ctx.add(card)
            s.cards.append(card.id)
        what = "a zone" if holder else f"a pile of {plural(len(faces), 'card')}"
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
    return f"{actor.name} added {name_of(obj)}"


EDITABLE: dict[type, tuple[str, ...]] = {
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


def update(ctx: Ctx, actor: Actor, op: O.Update, limits: Limits) -> str:
    obj = get_obj(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Card):
        check_card_reachable(ctx.table, obj, actor)
    allowed = EDITABLE[type(obj)]
    fields = {
        k: v
        for k in ("label", "text", "w", "h", "step", "sides", "color", "locked", "layout", "steps")
        if (v := getattr(op, k)) is not None
    }
    bad = [k for k in fields if k not in allowed]
    if bad:
        raise CardtableError(INVALID_MOVE, f"{name_of(obj).capitalize()} has no editable {bad[0]}.")
    if not fields:
        raise CardtableError(INVALID_MOVE, "Nothing to change.")
    ctx.touch(obj)
    was_row = isinstance(obj, Stack) and obj.layout == "row"
    for k, v in fields.items():
        setattr(obj, k, list(v) if k == "steps" else v)
    if isinstance(obj, Stack) and "layout" in fields:
        if obj.layout == "row" and not was_row and "w" not in fields:
            lay_row(ctx.table, obj)  # where the row covers no other pile
        elif obj.layout != "row" and was_row and "w" not in fields:
            gather_row(obj)  # back where it was before the spread moved it
        for cid in obj.cards:
            ctx.touch(ctx.table.objects[cid])
    if isinstance(obj, Die) and obj.value > obj.sides:
        obj.value = obj.sides
    return f"{actor.name} edited {name_of(obj)}"


def delete(ctx: Ctx, actor: Actor, op: O.Delete, limits: Limits) -> str:
    t = ctx.table
    obj = get_obj(ctx, op.id)
    check_ov(obj, op.ov)
    if isinstance(obj, Hand):
        raise CardtableError(INVALID_MOVE, "Hands belong to their seat and can't be deleted.")
    if isinstance(obj, Board):
        raise CardtableError(INVALID_MOVE, "The table itself can't be deleted.")
    check_unlocked(obj)
    if isinstance(obj, Card):
        check_card_reachable(t, obj, actor)
        detach(ctx, obj)
    if isinstance(obj, Stack):
        for cid in list(obj.cards):
            ctx.remove(t.objects[cid])
    if obj.id in t.objects:
        ctx.remove(obj)
    return f"{actor.name} removed {name_of(obj)}"


def board(table: Table) -> Board | None:
    found = table.objects.get(BOARD_ID)
    return found if isinstance(found, Board) else None


def ensure_board(ctx: Ctx) -> Board:
    """The room's board, made (at its defaults) the first time a setting changes."""
    found = board(ctx.table)
    if found is None:
        found = Board()
        ctx.add(found)
    else:
        ctx.touch(found)
    return found


def background(ctx: Ctx, actor: Actor, op: O.Background, limits: Limits) -> str:
    b = ensure_board(ctx)
    b.background = op.value
    return f"{actor.name} changed the table's background"
