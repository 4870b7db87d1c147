"""``parse_op`` converts to the one struct an operation's tag names (msgspec converts to a
tagged union twenty times slower): the same operations and the same refusals, word for word, as
converting to the whole union."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from server.errors import BAD_REQUEST, CardtableError
from server.table import ops as O

FIELDS = ["id", "x", "y", "to", "index", "up", "ov", "ids", "n", "seats", "rot", "into"]
FIELDS += ["value", "delta", "kind", "faces", "cards", "back", "steps", "label", "text"]
FIELDS += ["w", "h", "count", "step", "sides", "color", "layout", "locked", "name", "zz"]
VALUES: list[Any] = [None, True, 0, 1, -5, 1.5, float("nan"), 1e9, "a", "c1", "bad id!"]
VALUES += ["x" * 50, [], ["c1"], [1], {}, {"text": "a"}, "card", "pile", [{"text": "a"}]]


def by_union(payload: dict[str, Any]) -> Any:
    """What ``parse_op`` answered before: ``msgspec.convert`` to the whole union."""
    body = {k: v for k, v in payload.items() if k not in ("ref", "opid")}
    try:
        return msgspec.convert(body, O.Op)
    except msgspec.ValidationError as exc:
        return f"Invalid operation: {exc}"
    except (TypeError, ValueError, RecursionError) as exc:
        return f"Invalid operation: {type(exc).__name__}"


def parsed(payload: dict[str, Any]) -> Any:
    try:
        return O.parse_op(payload)
    except CardtableError as err:
        assert err.code == BAD_REQUEST
        return err.payload(None)["message"]


def test_every_operation_is_converted_to_its_own_struct() -> None:
    assert sorted(O._BY_TAG) == O.OP_NAMES
    for tag, cls in O._BY_TAG.items():
        assert cls.__struct_config__.tag == tag


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"id": "c1"}, "Invalid operation: Object missing required field `op`"),
        ({"op": "nope", "id": "c1"}, "Invalid operation: Invalid value 'nope' - at `$.op`"),
        ({"op": 3}, "Invalid operation: Expected `str`, got `int` - at `$.op`"),
        ({"op": "move"}, "Invalid operation: Object missing required field `id`"),
        ({"op": "move", "id": 5}, "Invalid operation: Expected `str`, got `int` - at `$.id`"),
        ({"op": "undo", "x": 1}, "Invalid operation: Object contains unknown field `x`"),
        ({"op": "move", "id": "c1", "x": float("inf")}, None),
    ],
)
def test_refusals_name_what_is_wrong(payload: dict[str, Any], message: str | None) -> None:
    got = parsed(payload)
    assert got == by_union(payload)
    if message is not None:
        assert got == message


def test_the_same_answer_as_the_whole_union_for_any_payload() -> None:
    rng = random.Random(23)
    tags: list[Any] = [*O.OP_NAMES, "MOVE", "", 1, None, ["move"]]
    for _ in range(5000):
        payload: dict[Any, Any] = {}
        if rng.random() < 0.95:
            payload["op"] = rng.choice(tags)
        for _ in range(rng.randint(0, 4)):
            payload[rng.choice(FIELDS)] = rng.choice(VALUES)
        if rng.random() < 0.1:
            payload["ref"] = 3
        items = list(payload.items())
        rng.shuffle(items)
        payload = dict(items)
        got, want = parsed(payload), by_union(payload)
        assert (got if isinstance(got, str) else msgspec.to_builtins(got)) == (
            want if isinstance(want, str) else msgspec.to_builtins(want)
        ), payload
