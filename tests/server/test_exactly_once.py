"""Exactly once (issue 17, item 2): Redis stalls longer than the server's socket timeout during a
burst of counter steps from several players; every operation is retried as docs/protocol.md
says (the same event, the same ``opid``, after a retryable refusal) until it is acknowledged. A
commit whose answer never came lands when Redis resumes, and its retry must not apply it again:
the counter ends at exactly the number of distinct operations, on one server process and on two
(where a retry may reach the other process, through the player's other connection).

Redis is stalled with SIGSTOP (what a long fsync or a stuck host looks like to the server) and
resumed once some commit was answered ``unconfirmed``: the tests wait on that answer, never on
a clock.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
from typing import Any

import pytest

from cardtable_client import OpFailed, TableClient, new_opid
from server.store.embedded import EmbeddedRedis
from server.table.objects import Counter
from tests.conftest import RunningServer, make_config, new_room, start_server
from tests.server.helpers import server_table

TIMEOUT = 0.3  # the servers' Redis socket timeout: the stall outlasts it


class Burst:
    """Players, each with a connection to every server (the same player, by token), sending
    counter steps and retrying each until acknowledged, alternating connections."""

    def __init__(self, servers: list[RunningServer], code: str) -> None:
        self.servers = servers
        self.code = code
        self.players: list[list[TableClient]] = []
        self.counter = ""
        self.sent = 0  # distinct operations
        self.answers: dict[str, int] = {}  # error code -> how many times it was answered
        self.unconfirmed = asyncio.Event()
        self.rng = random.Random(17)

    async def seat(self, n: int) -> None:
        for i in range(n):
            first = await TableClient(self.servers[i % len(self.servers)].url).connect()
            await first.join(self.code, f"P{i}")
            conns = [first]
            for srv in self.servers:
                if srv is not self.servers[i % len(self.servers)]:
                    other = await TableClient(srv.url).connect()
                    await other.join(self.code, f"P{i}", token=first.token)
                    conns.append(other)
            self.players.append(conns)
        host = self.players[0][0]
        await host.request(
            "op", {"op": "create", "kind": "counter", "x": 100, "y": 100, "label": "n"}
        )
        await host.wait_for(lambda: any(o["t"] == "counter" for o in host.objects.values()))
        self.counter = next(o["id"] for o in host.objects.values() if o["t"] == "counter")

    async def step(self, player: int) -> dict[str, Any]:
        """One distinct operation, sent until acknowledged, each try on the next connection."""
        self.sent += 1
        payload = {"op": "counter", "id": self.counter, "delta": 1, "opid": new_opid()}
        conns = self.players[player]
        for attempt in itertools.count(1):
            conn = conns[attempt % len(conns)]
            try:
                return await conn.request("op", payload, timeout=30)
            except OpFailed as err:
                self.answers[err.code] = self.answers.get(err.code, 0) + 1
                assert err.payload.get("retryable"), err.payload
                if err.code == "unconfirmed":
                    self.unconfirmed.set()
            await asyncio.sleep(self.rng.uniform(0, min(0.5, 0.02 * 2**attempt)))
        raise AssertionError("unreachable")

    async def close(self) -> None:
        for conns in self.players:
            for c in conns:
                await c.close()


async def _stalled_rounds(
    redis: EmbeddedRedis,
    servers: list[RunningServer],
    rounds: int = 3,
    players: int = 3,
    each: int = 4,
) -> None:
    code = await new_room(servers[0], template="blank", seats=players)
    burst = Burst(servers, code)
    await burst.seat(players)
    assert redis.proc is not None
    pid = redis.proc.pid
    try:
        for p in range(players):
            await burst.step(p)
        for r in range(rounds):
            # A plain commit first: the process that made it holds the room's state, so the
            # first step after the stall goes straight to a commit (and is left unanswered).
            await burst.step(r % players)
            burst.unconfirmed.clear()
            os.kill(pid, signal.SIGSTOP)
            try:
                tasks = [
                    asyncio.ensure_future(burst.step(p))
                    for p in range(players)
                    for _ in range(each)
                ]
                await asyncio.wait_for(burst.unconfirmed.wait(), 60)
            finally:
                os.kill(pid, signal.SIGCONT)
            acks = await asyncio.gather(*tasks)
            assert all(isinstance(a["v"], int) for a in acks)
        table = await server_table(servers[0], code)
        value = next(o.value for o in table.objects.values() if isinstance(o, Counter))
        assert burst.answers.get("unconfirmed", 0) >= rounds, burst.answers
        assert value == burst.sent, (value, burst.sent, burst.answers)
        # Every connection sees the final table, commits that landed unanswered included.
        for conns in burst.players:
            for c in conns:
                await c.wait_version(table.version, timeout=30)
                assert c.objects[burst.counter]["value"] == burst.sent
    finally:
        os.kill(pid, signal.SIGCONT)
        await burst.close()


def _config(redis: EmbeddedRedis) -> Any:
    # No heartbeat during the test: its presence writes would take the stall's first timeout.
    return make_config(redis.url, store_timeout_seconds=TIMEOUT, heartbeat_seconds=3600.0)


async def test_a_stalled_redis_applies_every_retried_operation_once_on_one_process(private_redis):
    one = await start_server(_config(private_redis))
    try:
        await _stalled_rounds(private_redis, [one])
    finally:
        await one.stop()


async def test_a_stalled_redis_applies_every_retried_operation_once_on_two_processes(private_redis):
    one = await start_server(_config(private_redis))
    two = await start_server(_config(private_redis))
    try:
        await _stalled_rounds(private_redis, [one, two])
    finally:
        await one.stop()
        await two.stop()


async def test_opid_is_taken_by_every_mutating_event_and_a_malformed_one_refused(
    server, make_client
):
    code = await new_room(server)
    a = await make_client()
    await a.join(code, "Ana")
    events = [
        ("op", {"op": "flip", "id": "deck"}),
        ("seat", {"seat": 1}),
        ("rename", {"name": "Bea"}),
        ("host", {"action": "lock"}),
        ("game", {"action": {"type": "pass"}}),
    ]
    before = await server_table(server, code)
    for bad in ("short", "x" * 41, "has space!", "ünïcode-id", 12345678):
        for event, payload in events:
            with pytest.raises(OpFailed) as err:
                await a.request(event, {**payload, "opid": bad})
            assert err.value.code == "bad_request", (event, bad, err.value.payload)
    assert (await server_table(server, code)).version == before.version and a.sio.connected
    for event, payload in events[:4]:
        ack = await a.request(event, {**payload, "opid": f"ok-{event}-0001"})
        assert ack["v"] == (await server_table(server, code)).version
