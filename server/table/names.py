"""Names of table objects: the ``name`` operation and what a name may be.

A pile, zone, chips stack, counter, die or button can be named; the name is kept in the
object's ``label`` and is only ever shown (the editor, its pickers, the room log, the game
file). Ids stay the reference everywhere (a button's steps name ids). A name is one line of at
most :data:`MAX_NAME` characters, without control or format characters; surrounding spaces are
dropped, and an empty name takes the name away.
"""

from __future__ import annotations

import unicodedata

from server.errors import BAD_NAME, INVALID_MOVE, CardtableError
from server.table import moves as M
from server.table import ops as O
from server.table.change import Actor, Limits
from server.table.objects import Button, Chips, Counter, Die, Stack

MAX_NAME = 40
NAMEABLE = (Stack, Chips, Counter, Die, Button)


def clean_name(raw: str) -> str:
    """``raw`` without surrounding spaces, or raise ``bad_name`` if it can't be a name."""
    name = raw.strip()
    if len(name) > MAX_NAME:
        raise CardtableError(BAD_NAME, f"A name has at most {MAX_NAME} characters.")
    for ch in name:
        if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp"):
            raise CardtableError(
                BAD_NAME, "A name is one line of letters, digits, spaces and punctuation."
            )
    return name


def name_object(ctx: M.Ctx, actor: Actor, op: O.Name, limits: Limits) -> str:
    """Name object ``op.id``: "Ana named a pile “Red deck”"."""
    obj = M.get_obj(ctx, op.id)
    M.check_ov(obj, op.ov)
    if not isinstance(obj, NAMEABLE):
        raise CardtableError(INVALID_MOVE, f"{M.name_of(obj).capitalize()} can't be named.")
    name = clean_name(op.name)
    before = M.name_of(obj)
    ctx.touch(obj)
    obj.label = name
    if not name:
        return f"{actor.name} took the name off {before}"
    return f"{actor.name} named {before} “{name}”"
