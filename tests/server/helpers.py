"""Helpers for socket tests: random operations a client could try, and a referee's view."""

from __future__ import annotations

import random
import re
from typing import Any

from cardtable_client import OpFailed, TableClient, apply_patch
from server.net.http import ROOMS_KEY
from server.table.objects import Card, Hand, Stack, Table
from server.table.view import snapshot, visible_faces

FACE_TOKEN = re.compile(r"\b(?:[CDHS](?:1[0-3]|[1-9])|J[12])\b")


def random_op(rng: random.Random, c: TableClient) -> dict[str, Any]:
    """An operation a player at this client could plausibly attempt, legal or not."""
    seat = c.seat
    objs = c.objects
    stacks = [o for o in objs.values() if o["t"] == "stack"]
    full = [s for s in stacks if s["cards"]]
    loose = [o for o in objs.values() if o["t"] == "card" and o["parent"] is None]
    mine = objs[f"hand{seat}"]["cards"] if seat is not None else []
    others = [
        cid
        for o in objs.values()
        if o["t"] == "hand" and o["seat"] != seat
        for cid in o.get("cards", [])
    ]
    xy = {"x": rng.uniform(0, 1500), "y": rng.uniform(0, 900)}
    options: list[dict[str, Any]] = []
    if full:
        s = rng.choice(full)
        top = objs[s["cards"][-1]]
        options += [
            {"op": "take", "id": s["id"], "n": rng.randint(1, 3)},
            {"op": "move", "id": top["id"], **xy, "up": rng.random() < 0.6, "ov": top["v"]},
            {"op": "flip", "id": top["id"]},
            {"op": "flip", "id": s["id"]},
            {"op": "shuffle", "id": s["id"]},
            {"op": "deal", "id": s["id"], "n": 1},
            {"op": "split", "id": s["id"], "n": rng.randint(1, 4), **xy},
            {"op": "move", "id": s["cards"][0], **xy},
            {"op": "move", "id": s["id"], **xy, "ov": s["v"]},
        ]
        if len(stacks) > 1:
            other = rng.choice([t for t in stacks if t["id"] != s["id"]])
            options.append({"op": "merge", "id": s["id"], "into": other["id"]})
            options.append(
                {"op": "move", "id": top["id"], "to": other["id"], "up": rng.random() < 0.5}
            )
    if mine:
        cid = rng.choice(mine)
        options += [
            {"op": "move", "id": cid, **xy, "up": rng.random() < 0.5},
            {"op": "move", "id": cid, "to": "discard", "up": rng.random() < 0.7},
            {"op": "move", "id": cid, "to": f"hand{seat}", "index": 0},
            {"op": "flip", "id": cid},
        ]
        if stacks:
            options.append(
                {
                    "op": "move",
                    "id": cid,
                    "to": rng.choice(stacks)["id"],
                    "index": rng.randint(0, 3),
                    "up": False,
                }
            )
    if loose:
        card = rng.choice(loose)
        options += [
            {"op": "flip", "id": card["id"], "ov": card["v"]},
            {"op": "move", "id": card["id"], "to": f"hand{seat}"},
            {"op": "move", "id": card["id"], **xy},
            {"op": "rotate", "id": card["id"], "rot": 90},
        ]
        if stacks:
            options.append({"op": "move", "id": card["id"], "to": rng.choice(stacks)["id"]})
        if len(loose) > 1:
            other = rng.choice([x for x in loose if x["id"] != card["id"]])
            options.append({"op": "move", "id": card["id"], "to": other["id"]})
    if others:  # hostile: another seat's card
        cid = rng.choice(others)
        options += [{"op": "move", "id": cid, **xy, "up": True}, {"op": "flip", "id": cid}]
    options.append({"op": "undo"})
    return rng.choice(options)


async def try_op(c: TableClient, op: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return await c.request("op", op)
    except OpFailed:
        return None


async def server_table(server: Any, code: str) -> Table:
    return await server.app[ROOMS_KEY].load_table(code)


def view_by_id(table: Table, seat: int | None) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in snapshot(table, seat)["objects"]}


def oracle_faces(table: Table, seat: int | None) -> dict[str, str]:
    """The documented visibility rules, written independently of server/table/view.py."""
    out = {}
    for obj in table.objects.values():
        if not isinstance(obj, Card):
            continue
        holder = table.objects.get(obj.parent) if obj.parent else None
        if holder is None:
            ok = obj.up
        elif isinstance(holder, Hand):
            ok = seat is not None and holder.seat == seat
        else:
            assert isinstance(holder, Stack)
            ok = obj.up and (holder.layout == "row" or holder.cards[-1] == obj.id)
        if ok:
            out[obj.id] = obj.face
    return out


def allowed_faces(table: Table) -> dict[int | None, dict[str, str]]:
    truth = {s: oracle_faces(table, s) for s in [None, *range(table.seats)]}
    assert truth == {s: visible_faces(table, s) for s in truth}
    return truth


def check_table_invariants(table: Table, faces: list[str] | None = None) -> None:
    """Every card in exactly one place, containers and parents agree, faces conserved."""
    where: dict[str, str] = {}
    for obj in table.objects.values():
        if isinstance(obj, Stack | Hand):
            for cid in obj.cards:
                assert cid not in where, f"{cid} in {where.get(cid)} and {obj.id}"
                where[cid] = obj.id
                card = table.objects[cid]
                assert isinstance(card, Card) and card.parent == obj.id
            if isinstance(obj, Stack) and not obj.holder:
                assert obj.cards, f"empty non-holder pile {obj.id}"
    for obj in table.objects.values():
        if isinstance(obj, Card) and obj.parent is not None:
            assert where.get(obj.id) == obj.parent
    if faces is not None:
        got = sorted(o.face for o in table.objects.values() if isinstance(o, Card))
        assert got == sorted(faces)


async def converge(server: Any, code: str, clients: list[TableClient]) -> Table:
    """Wait until every client holds the room's latest version (presence updates included)."""
    import asyncio

    for _ in range(50):
        table = await server_table(server, code)
        for c in clients:
            await c.wait_version(table.version)
        await asyncio.sleep(0.05)
        again = await server_table(server, code)
        if again.version == table.version:
            return again
    raise AssertionError("the room never settled")


def game_after(game: dict[str, Any] | None, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The game view a client holds after ``payload`` (a snapshot or the next delta), from the
    one it held before: a whole view, a patch of it, or unchanged."""
    if "game" in payload:
        return payload["game"]  # type: ignore[no-any-return]
    if "game_patch" in payload and game is not None:
        return apply_patch(game, payload["game_patch"])
    return game
