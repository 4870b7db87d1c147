"""The server is the referee: record every message four players and a spectator receive over
hundreds of random operations, and prove no forbidden face ever arrived, no id of a card in
another seat's hand ever arrived (see ``test_hand_privacy.audit``), and shuffles unlink."""

from __future__ import annotations

import random
from typing import Any

from cardtable_client import TableClient
from server.table.view import in_other_hand
from tests.conftest import new_room
from tests.server.helpers import (
    FACE_TOKEN,
    allowed_faces,
    random_op,
    server_table,
    try_op,
    view_by_id,
)
from tests.server.test_hand_privacy import audit


class Hostile:
    """A client as ``random_op`` sees it, with each other seat's hand filled in from memory: the
    last ids this client saw vanish, which a hostile player tries on the hands they went into
    (other seats' hands come as a count only, so there is nothing else to try)."""

    def __init__(self, c: TableClient) -> None:
        self.seat = c.seat
        gone = [oid for name, p in c.received if name == "delta" for oid in p["del"]][-6:]
        self.objects: dict[str, dict[str, Any]] = {
            oid: {**o, "cards": gone} if o["t"] == "hand" and o["seat"] != c.seat else o
            for oid, o in c.objects.items()
        }


async def test_no_forbidden_face_in_any_message_and_shuffles_unlink(server, make_client):
    rng = random.Random(20261122)
    code = await new_room(server, "standard-jokers", seats=4)
    players = [await make_client() for _ in range(4)]
    spectator = await make_client()
    tables = {}  # version -> the stored table
    for i, c in enumerate(players):
        await c.join(code, f"P{i}")
        table = await server_table(server, code)
        tables[table.version] = table
    await spectator.join(code, "Watcher", seat=None)
    clients = [*players, spectator]
    assert [c.seat for c in clients] == [0, 1, 2, 3, None]

    truth = {}  # version -> seat -> {card id: face} that seat may see at that version
    table = await server_table(server, code)
    truth[table.version] = allowed_faces(table)
    tables[table.version] = table
    ids_seen_before: dict[int, set[str]] = {}  # shuffle version -> ids any client saw earlier
    accepted = rejected = shuffles = 0

    await players[0].op("deal", id="deck", n=5)
    table = await server_table(server, code)
    truth[table.version] = allowed_faces(table)
    tables[table.version] = table
    probes = 0
    for _ in range(400):
        actor = rng.choice(players)
        op = random_op(rng, Hostile(actor))
        target = table.objects.get(op.get("id", ""))
        probe = target is not None and in_other_hand(table, target, actor.seat)
        ack = await try_op(actor, op)
        if ack is None:
            rejected += 1
            if probe:  # an old id of a card still in another hand: answered as if unknown
                probes += 1
                assert actor.errors[-1]["code"] == "unknown_object", actor.errors[-1]
            continue
        assert not probe
        accepted += 1
        table = await server_table(server, code)
        assert table.version == ack["v"]
        truth[ack["v"]] = allowed_faces(table)
        tables[ack["v"]] = table
        if op["op"] == "shuffle":
            shuffles += 1
            seen = set()
            for c in clients:
                for name, payload in c.received:
                    if name in ("snapshot", "delta") and payload["v"] < ack["v"]:
                        seen.update(o["id"] for o in payload.get("objects", payload.get("set", [])))
            ids_seen_before[ack["v"]] = seen
            stack = table.objects[op["id"]]
            assert not set(stack.cards) & seen, "a shuffled card kept an id someone saw before"

    assert accepted > 150 and rejected > 20 and shuffles > 3, (accepted, rejected, shuffles)
    assert probes > 5, probes
    final = table.version
    for c in clients:
        await c.wait_version(final)

    checked_faces = 0
    for c in clients:
        for name, payload in c.received:
            if name in ("error", "ack", "joined"):
                # No field carries a face (a substring test would trip on random hex ids such
                # as "...faced"); the message names no card either.
                assert "face" not in _keys(payload), payload
                if name == "error":
                    assert not FACE_TOKEN.search(payload["message"]), payload
                continue
            v = payload["v"]
            objects = payload["objects"] if name == "snapshot" else payload["set"]
            for obj in objects:
                if obj["t"] != "card" or "face" not in obj:
                    continue
                checked_faces += 1
                allowed = truth[v][c.seat]
                assert allowed.get(obj["id"]) == obj["face"], (
                    f"seat {c.seat} got face of {obj['id']} at v{v}"
                )
        # Rebuilt from what it received, every client holds exactly its view of the server.
        assert c.version == final
        assert c.objects == view_by_id(table, c.seat)
        assert audit(c, tables) > 100
    assert checked_faces > 500  # the run really exercised visible faces


def _keys(value: object) -> set[str]:
    """Every dict key anywhere inside ``value``."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()
