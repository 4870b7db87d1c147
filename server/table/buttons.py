"""Pressing an automation button: its steps run on the server as one operation, one commit.

The room service reduces every intent on a private copy of the table, so a step that fails
raises and the copy is dropped: nothing of the press happens and the version does not move. The
error keeps the failing step's code and says which step failed and why. The steps reuse the
table model's own moves (so cards leaving a hand get new ids, shuffles re-id every card, and
the change set names every view that must hear of it); they act with the table's authority,
not the presser's reach (a reset may gather every hand).
"""

from __future__ import annotations

from server.errors import INVALID_MOVE, CardtableError
from server.table import apply as A
from server.table import ops as O
from server.table import steps as S
from server.table.objects import Button, Card, Hand, Stack


def _pile(ctx: A._Ctx, oid: str) -> Stack:
    return A._stack(ctx, oid)


def _cards(ctx: A._Ctx, ids: list[str]) -> list[Card]:
    out = []
    for cid in ids:
        card = ctx.table.objects[cid]
        assert isinstance(card, Card)
        out.append(card)
    return out


def _gather(ctx: A._Ctx, actor: A.Actor, step: S.Gather, limits: A.Limits) -> None:
    dest = _pile(ctx, step.to)
    sources: list[Card] = []
    for sid in step.from_:
        src = _pile(ctx, sid)
        if src.id != dest.id:
            sources.extend(reversed(_cards(ctx, src.cards)))
    if step.hands:
        for hand in [o for o in ctx.table.objects.values() if isinstance(o, Hand)]:
            sources.extend(_cards(ctx, hand.cards))
    if step.loose:
        sources.extend(
            o for o in list(ctx.table.objects.values()) if isinstance(o, Card) and o.parent is None
        )
    for card in sources:
        from_hand = isinstance(A._container(ctx.table, card), Hand)
        A._detach(ctx, card)
        if from_hand:
            card = A._reissue(ctx, card)
        card.up = False
        A._attach(ctx, card, dest, None)


def _shuffle(ctx: A._Ctx, actor: A.Actor, step: S.ShuffleStep, limits: A.Limits) -> None:
    A._shuffle(ctx, actor, O.Shuffle(id=step.id), limits)


def _deal(ctx: A._Ctx, actor: A.Actor, step: S.DealStep, limits: A.Limits) -> None:
    if step.to == "hands":
        A._deal(ctx, actor, O.Deal(id=step.id, n=step.n), limits)
        return
    src, dest = _pile(ctx, step.id), _pile(ctx, step.to)
    if src.id == dest.id:
        raise CardtableError(INVALID_MOVE, "A pile can't be dealt onto itself.")
    if step.n > len(src.cards):
        raise CardtableError(
            INVALID_MOVE, f"It needs {step.n} cards; the pile has {len(src.cards)}."
        )
    for _ in range(step.n):
        card = _cards(ctx, src.cards[-1:])[0]
        A._detach(ctx, card)
        card.up = step.up
        A._attach(ctx, card, dest, None)


def _flip(ctx: A._Ctx, actor: A.Actor, step: S.FlipStep, limits: A.Limits) -> None:
    obj = A._get(ctx, step.id)
    if isinstance(obj, Stack):
        if not obj.cards:
            raise CardtableError(INVALID_MOVE, f"{A._name(obj).capitalize()} is empty.")
        obj = _cards(ctx, obj.cards[-1:])[0]
    if not isinstance(obj, Card) or isinstance(A._container(ctx.table, obj), Hand):
        raise CardtableError(
            INVALID_MOVE, "Only a card on the table or a pile's top card can be flipped."
        )
    A._flip_card(ctx, obj, not obj.up if step.up is None else step.up)


def _counter(ctx: A._Ctx, actor: A.Actor, step: S.CounterStep, limits: A.Limits) -> None:
    A._counter(ctx, actor, O.CounterSet(id=step.id, value=step.value, delta=step.delta), limits)


def _chips(ctx: A._Ctx, actor: A.Actor, step: S.ChipsStep, limits: A.Limits) -> None:
    src = A._chips(ctx, step.id)
    if step.to is None:
        if step.n is None or step.all:
            raise CardtableError(INVALID_MOVE, "Adding chips needs n (and no 'all').")
        A._chips_add(ctx, actor, O.ChipsAdd(id=step.id, n=step.n), limits)
        return
    n = src.count if step.all else step.n
    if n is None or n < 0 or (step.all and step.n is not None):
        raise CardtableError(INVALID_MOVE, "Moving chips needs a positive n, or all.")
    if n == 0:
        A._chips(ctx, step.to)  # nothing to move, but the target must exist
        return
    A._chips_move(ctx, actor, O.ChipsMove(id=step.id, to=step.to, n=n), limits)


_STEPS = {
    S.Gather: _gather,
    S.ShuffleStep: _shuffle,
    S.DealStep: _deal,
    S.FlipStep: _flip,
    S.CounterStep: _counter,
    S.ChipsStep: _chips,
}


def press(ctx: A._Ctx, actor: A.Actor, op: O.Press, limits: A.Limits) -> str:
    """Run button ``op.id``'s steps on ``ctx``'s table; the first failing step rejects all."""
    button = A._get(ctx, op.id)
    if not isinstance(button, Button):
        raise CardtableError(INVALID_MOVE, "That is not a button.")
    if not button.steps:
        raise CardtableError(INVALID_MOVE, "That button has no steps yet.")
    for i, step in enumerate(button.steps, 1):
        try:
            _STEPS[type(step)](ctx, actor, step, limits)  # type: ignore[operator]
        except CardtableError as err:
            raise CardtableError(
                err.code,
                f"Step {i} ({S.step_name(step)}) of {A._name(button)} failed: {err.message}",
            ) from None
    return f"{actor.name} pressed {A._name(button)}"
