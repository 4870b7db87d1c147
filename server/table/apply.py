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
from typing import Any

import msgspec

from server.errors import (
    LIMIT,
    NOT_SEATED,
    NOTHING_TO_UNDO,
    UNDO_REFUSED,
    CardtableError,
)
from server.table import moves as M
from server.table import ops as O
from server.table.buttons import press
from server.table.change import SYSTEM_RNG, Actor, Change, Limits, new_id
from server.table.moves import STANDARD_FACES, board, check_ov
from server.table.names import name_object
from server.table.objects import (
    TABLE_W,
    Hand,
    Stack,
    Table,
    UndoEntry,
)
from server.table.view import visible_faces

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
    O.Name,
    O.Delete,
    O.Take,
    O.Background,
)


UNDO_DEPTH = 20  # undoable operations kept per player
UNDO_OBJECTS = 200  # objects kept in one player's undo stack at most (the last entry always)

LOG_LINES = 50  # public log lines kept in the room, sent with every snapshot
LOG_BURST = 5.0  # seconds: a burst's next line within this of its last replaces it


def stamp(table: Table, change: Change, now: float = 0.0) -> Change:
    """Commit ``change`` to ``table``: the one place a room's version goes up. Every changed
    object is stamped with the new version, and the log line joins the room's log, written at
    ``now`` (epoch seconds; 0: unknown). A line of the same burst as the log's last line (one
    player's clicks on one counter) within ``LOG_BURST`` seconds of it replaces that line
    instead (``change.log_replaces``), so a burst of clicks reads as one line."""
    version = table.version + 1
    for oid in change.dirty:
        obj = table.objects.get(oid)
        if obj is not None:
            obj.v = version
    table.version = version
    if change.log:
        # Tables stored before log_at existed have lines of unknown time (0).
        at = table.log_times()
        if change.burst and table.log and table.log_burst == change.burst and at[-1] and now:
            change.log_replaces = 0 <= now - at[-1] <= LOG_BURST
        if change.log_replaces:
            table.log[-1], table.log_at = change.log, [*at[:-1], now]
        else:
            table.log = [*table.log[-(LOG_LINES - 1) :], change.log]
            table.log_at = [*at, now][-len(table.log) :]
        table.log_burst = change.burst
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
    ctx = M.Ctx(table, actor.seat, rng or SYSTEM_RNG)
    handler = _HANDLERS[type(op)]
    ctx.change.log = handler(ctx, actor, op, limits)
    if len(table.objects) > limits.max_objects:
        raise CardtableError(LIMIT, f"A room holds at most {limits.max_objects} objects.")
    if isinstance(op, UNDOABLE):
        entry = UndoEntry(
            version=table.version + 1,
            before=list(ctx.before.values()),
            created=list(ctx.created),
            removed=sorted(ctx.change.removed),
            renamed=dict(ctx.renamed),
        )
        last = table.undo.get(actor.player_id)
        if last is not None:
            older = [*last.older, msgspec.structs.replace(last, older=[])][-(UNDO_DEPTH - 1) :]
            # The room is stored whole at every commit: keep the stack small.
            size = [len(e.before) + len(e.created) for e in [*older, entry]]
            while older and sum(size) > UNDO_OBJECTS:
                older.pop(0)
                size.pop(0)
            entry.older = older
        table.undo[actor.player_id] = entry
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


_CHANGED_SINCE = "Someone has changed that since; it can't be undone."


def _undo(table: Table, actor: Actor) -> Change:
    """Put back the actor's last undoable operation (the top of their stack) if every object it
    touched is as it left it, and no seat would see a face it could not see before."""
    entry = table.undo.get(actor.player_id)
    if entry is None:
        raise CardtableError(NOTHING_TO_UNDO, "You have nothing to undo.")
    objs = table.objects
    for old in entry.before:
        cur = objs.get(old.id)
        gone_by_us = old.id in entry.removed
        want = entry.expect.get(old.id, entry.version)
        if (cur is None) != gone_by_us or (cur is not None and cur.v != want):
            raise CardtableError(UNDO_REFUSED, _CHANGED_SINCE)
    for oid in entry.created:
        cur = objs.get(oid)
        if cur is None or cur.v != entry.expect.get(oid, entry.version):
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
    _pop_undo(table, actor.player_id, {oid: objs[oid].v for oid in change.dirty})
    change.log = f"{actor.name} undid their last move"
    return change


def _pop_undo(table: Table, player_id: str, restamped: dict[str, int]) -> None:
    """Drop the player's top undo entry; the one below it becomes the top. ``restamped`` maps
    each object the undo changes to the version it has before the commit stamps it again: an
    older entry that expected that version (nobody else touched the object in between) now
    expects the commit's version instead. Such an entry is replaced, never changed in place:
    an entry is fixed once made (the room's encoder keeps its bytes while it is the same
    object, :mod:`server.table.encoding`)."""
    entry = table.undo.pop(player_id)
    if not entry.older:
        return
    version = table.version + 1
    stack = []
    for e in entry.older:
        mine = {o.id for o in e.before} | set(e.created)
        expect = {
            oid: version
            for oid, v in restamped.items()
            if oid in mine and v == e.expect.get(oid, e.version)
        }
        stack.append(msgspec.structs.replace(e, expect={**e.expect, **expect}) if expect else e)
    *rest, top = stack
    table.undo[player_id] = msgspec.structs.replace(top, older=rest)


_HANDLERS: dict[type, Any] = {
    O.Move: M.move,
    O.MoveMany: M.move_many,
    O.Flip: M.flip,
    O.Rotate: M.rotate,
    O.Shuffle: M.shuffle,
    O.Deal: M.deal,
    O.Take: M.take,
    O.Split: M.split,
    O.Merge: M.merge_stacks,
    O.ChipsMove: M.chips_move,
    O.ChipsAdd: M.chips_add,
    O.CounterSet: M.set_counter,
    O.Roll: M.roll,
    O.Create: M.create,
    O.Update: M.update,
    O.Name: name_object,
    O.Delete: M.delete,
    O.Background: M.background,
    O.Press: press,
}


__all__ = [
    "SYSTEM_RNG",
    "STANDARD_FACES",
    "TABLE_W",
    "Actor",
    "Change",
    "Limits",
    "apply_op",
    "board",
    "check_ov",
    "new_id",
    "stamp",
    "table_change",
]
