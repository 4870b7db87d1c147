"""Automation button steps: declarative data, validated by msgspec, never code.

A button holds a short list of steps; pressing it runs them all on the server in one commit
(see :mod:`server.table.buttons`). Each step is a struct tagged by its ``do`` field. The schemas
depend on nothing else in the server so that objects and operations can both use them.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
MAX_STEPS = 20


class _Step(msgspec.Struct, tag_field="do", forbid_unknown_fields=True, kw_only=True):
    pass


class Gather(_Step, tag="gather"):
    """Put every card of the piles and zones ``from`` (and, if asked, of every hand and every
    loose card) face down on top of pile ``to``."""

    to: Id
    from_: Annotated[list[Id], msgspec.Meta(max_length=50)] = msgspec.field(
        default_factory=list, name="from"
    )
    hands: bool = False
    loose: bool = False


class ShuffleStep(_Step, tag="shuffle"):
    id: Id


class DealStep(_Step, tag="deal"):
    """Deal ``n`` cards from pile ``id`` to each seated player's hand (``to`` "hands"), or
    put the top ``n`` cards on pile or zone ``to`` (face up if ``up``)."""

    id: Id
    n: Annotated[int, msgspec.Meta(ge=1, le=100)]
    to: Id = "hands"
    up: bool = False


class FlipStep(_Step, tag="flip"):
    """Turn a card (or a pile's top card) face up (``up`` true), down (false) or over (null)."""

    id: Id
    up: bool | None = None


class CounterStep(_Step, tag="counter"):
    id: Id
    value: Annotated[int, msgspec.Meta(ge=-1_000_000, le=1_000_000)] | None = None
    delta: Annotated[int, msgspec.Meta(ge=-100, le=100)] | None = None


class ChipsStep(_Step, tag="chips"):
    """Move ``n`` chips (or ``all`` of them) from stack ``id`` to stack ``to``; without ``to``,
    add ``n`` chips to stack ``id`` (negative: take them away)."""

    id: Id
    to: Id | None = None
    n: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] | None = None
    all: bool = False


Step = Gather | ShuffleStep | DealStep | FlipStep | CounterStep | ChipsStep
Steps = Annotated[list[Step], msgspec.Meta(max_length=MAX_STEPS)]


def step_name(step: Step) -> str:
    return str(type(step).__struct_config__.tag)
