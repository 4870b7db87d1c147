"""Pressing an automation button: its steps run on the server as one operation, one commit.

The room service reduces every intent on a private copy of the table, so a step that fails
raises and the copy is dropped: nothing of the press happens and the version does not move. The
error keeps the failing step's code and says which step failed and why. The steps reuse the
table model's own moves (so cards leaving a hand get new ids, shuffles re-id every card, and
the change set names every view that must hear of it); they act with the table's authority,
not the presser's reach (a reset may gather every hand).
"""

from __future__ import annotations

from server.errors import INVALID_MOVE, UNKNOWN_OBJECT, CardtableError
from server.table import moves as M
from server.table import ops as O
from server.table import steps as S
from server.table.change import Actor, Limits
from server.table.objects import Button, Card, Hand, Stack


def _pile(ctx: M.Ctx, oid: str) -> Stack:
    return M.stack_of(ctx, oid)


def _cards(ctx: M.Ctx, ids: list[str]) -> list[Card]:
    out = []
    for cid in ids:
        card = ctx.table.objects[cid]
        assert isinstance(card, Card)
        out.append(card)
    return out


def _gather(ctx: M.Ctx, actor: Actor, step: S.Gather, limits: Limits) -> None:
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
        from_hand = isinstance(M.container_of(ctx.table, card), Hand)
        M.detach(ctx, card)
        if from_hand:
            card = M.reissue(ctx, card)
        card.up = False
        M.attach(ctx, card, dest, None)


def _shuffle(ctx: M.Ctx, actor: Actor, step: S.ShuffleStep, limits: Limits) -> None:
    M.shuffle(ctx, actor, O.Shuffle(id=step.id), limits)


def _deal(ctx: M.Ctx, actor: Actor, step: S.DealStep, limits: Limits) -> None:
    if step.to == "hands":
        M.deal(ctx, actor, O.Deal(id=step.id, n=step.n), limits)
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
        M.detach(ctx, card)
        card.up = step.up
        M.attach(ctx, card, dest, None)


def _flip(ctx: M.Ctx, actor: Actor, step: S.FlipStep, limits: Limits) -> None:
    obj = M.get_obj(ctx, step.id)
    if isinstance(obj, Stack):
        if not obj.cards:
            raise CardtableError(INVALID_MOVE, f"{M.name_of(obj).capitalize()} is empty.")
        obj = _cards(ctx, obj.cards[-1:])[0]
    if not isinstance(obj, Card) or isinstance(M.container_of(ctx.table, obj), Hand):
        raise CardtableError(
            INVALID_MOVE, "Only a card on the table or a pile's top card can be flipped."
        )
    M.flip_card(ctx, obj, not obj.up if step.up is None else step.up)


def _counter(ctx: M.Ctx, actor: Actor, step: S.CounterStep, limits: Limits) -> None:
    M.set_counter(ctx, actor, O.CounterSet(id=step.id, value=step.value, delta=step.delta), limits)


def _chips(ctx: M.Ctx, actor: Actor, step: S.ChipsStep, limits: Limits) -> None:
    src = M.chips_of(ctx, step.id)
    if step.to is None:
        if step.n is None or step.all:
            raise CardtableError(INVALID_MOVE, "Adding chips needs n (and no 'all').")
        M.chips_add(ctx, actor, O.ChipsAdd(id=step.id, n=step.n), limits)
        return
    n = src.count if step.all else step.n
    if n is None or n < 0 or (step.all and step.n is not None):
        raise CardtableError(INVALID_MOVE, "Moving chips needs a positive n, or all.")
    if n == 0:
        M.chips_of(ctx, step.to)  # nothing to move, but the target must exist
        return
    M.chips_move(ctx, actor, O.ChipsMove(id=step.id, to=step.to, n=n), limits)


_STEPS = {
    S.Gather: _gather,
    S.ShuffleStep: _shuffle,
    S.DealStep: _deal,
    S.FlipStep: _flip,
    S.CounterStep: _counter,
    S.ChipsStep: _chips,
}


def press(ctx: M.Ctx, actor: Actor, op: O.Press, limits: Limits) -> str:
    """Run button ``op.id``'s steps on ``ctx``'s table; the first failing step rejects all."""
    button = M.get_obj(ctx, op.id)
    if not isinstance(button, Button):
        raise CardtableError(INVALID_MOVE, "That is not a button.")
    if not button.steps:
        raise CardtableError(INVALID_MOVE, "That button has no steps yet.")
    for i, step in enumerate(button.steps, 1):
        try:
            _STEPS[type(step)](ctx, actor, step, limits)  # type: ignore[operator]
        except CardtableError as err:
            # A step names objects by id; a player never sees one (a deleted pile, say).
            why = (
                "something it uses is no longer on the table; edit the button to pick it again."
                if err.code == UNKNOWN_OBJECT
                else err.message
            )
            raise CardtableError(
                err.code, f"Step {i} ({S.step_name(step)}) of {M.name_of(button)} failed: {why}"
            ) from None
    return f"{actor.name} pressed {M.name_of(button)}"
