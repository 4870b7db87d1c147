"""Bad input gets a clear error and loses nothing: thousands of malformed and hostile events
from a hypothesis strategy, raw broken frames, over-size payloads and rate limits. The server
stays up, the connection stays open, the room stays valid and untouched by every rejection."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable_client import OpFailed, TableClient
from server.table.apply import STANDARD_FACES
from server.table.objects import encode_table
from server.table.ops import OP_NAMES
from tests.conftest import make_config, new_room, start_server
from tests.server.helpers import check_table_invariants, server_table

CODES = {
    "bad_request",
    "too_large",
    "rate_limited",
    "room_not_found",
    "not_joined",
    "not_seated",
    "seat_taken",
    "room_full",
    "bad_token",
    "unknown_object",
    "forbidden",
    "conflict",
    "invalid_move",
    "limit",
    "nothing_to_undo",
    "undo_refused",
    "rules",
    "unavailable",
}


class LoopThread:
    """An event loop in a thread, so synchronous hypothesis tests can drive async clients."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class Arena:
    """One room with four seated players; the fuzzing client sits in seat 0."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url

    async def start(self) -> None:
        self.server = await start_server(make_config(self.redis_url))
        self.code = await new_room(self.server, "standard")
        self.others = []
        self.fuzzer = await self.server.client()
        await self.fuzzer.join(self.code, "Fuzz")
        for i in range(3):
            c = await self.server.client()
            await c.join(self.code, f"P{i}")
            self.others.append(c)
        await self.others[0].op("deal", id="deck", n=5)

    async def stop(self) -> None:
        for c in [self.fuzzer, *self.others]:
            await c.close()
        await self.server.stop()

    async def ids(self) -> list[str]:
        table = await server_table(self.server, self.code)
        return list(table.objects)

    async def send(self, event: str, payload: Any, ref: int) -> tuple[str, dict[str, Any]]:
        """Send one event and wait for the reply that belongs to it (ack, error or joined)."""
        c = self.fuzzer
        start = len(c.received)
        if isinstance(payload, dict):
            payload = {**payload, "ref": ref}
        await c.sio.emit(event, payload)
        expect = ref if isinstance(payload, dict) else None

        def reply() -> tuple[str, dict[str, Any]] | None:
            for name, body in c.received[start:]:
                if name in ("ack", "error", "joined") and body.get("ref") == expect:
                    return name, body
            return None

        await c.wait_for(lambda: reply() is not None, timeout=3)
        got = reply()
        assert got is not None
        return got


@pytest.fixture(scope="module")
def arena(redis_server) -> Iterator[tuple[LoopThread, Arena]]:
    lt = LoopThread()
    a = Arena(redis_server.url)
    lt.run(a.start())
    a.real_ids = lt.run(a.ids())
    yield lt, a
    lt.run(a.stop())
    lt.close()


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
)
garbage = st.recursive(
    scalars,
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.text(max_size=8), ch, max_size=4),
    max_leaves=25,
)


def op_payloads(ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    ident = st.sampled_from(ids) | st.text(max_size=50) | scalars
    num = (
        st.floats(allow_nan=True, allow_infinity=True)
        | st.integers(-(2**40), 2**40)
        | st.sampled_from([0, 1, -1, 1e300, 10001])
        | st.text(max_size=5)
    )
    return st.fixed_dictionaries(
        {"op": st.sampled_from(OP_NAMES) | st.text(max_size=10) | scalars},
        optional={
            "id": ident,
            "to": ident,
            "into": ident,
            "x": num,
            "y": num,
            "n": num,
            "index": num,
            "rot": num,
            "ov": num,
            "value": num,
            "delta": num,
            "up": scalars,
            "seats": st.lists(num, max_size=20),
            "faces": st.lists(st.text(max_size=60), max_size=5),
            "kind": st.sampled_from(["card", "deck", "zone", "chips", "x"]),
            "label": st.text(max_size=300),
            "extra": garbage,
        },
    )


EVENTS = st.sampled_from(["op", "op", "op", "seat", "rename", "sync", "join"]) | st.text(
    min_size=1, max_size=12
).filter(lambda s: s not in ("connect", "disconnect", "message"))


@st.composite
def hostile(draw: st.DrawFn, ids: list[str]) -> tuple[str, Any]:
    event = draw(EVENTS)
    payload = draw(
        st.one_of(
            op_payloads(ids),
            garbage,
            st.integers(33_000, 200_000).map(lambda n: "x" * n),
            st.integers(1_000, 10_000).map(
                lambda n: {"op": "create", "kind": "deck", "faces": ["H1"] * n}
            ),
            st.fixed_dictionaries(
                {
                    "seat": scalars,
                    "name": st.text(max_size=60) | scalars,
                    "since": num_or_garbage,
                    "code": st.text(max_size=12),
                }
            ),
        )
    )
    return event, payload


num_or_garbage = st.integers(-5, 10**6) | scalars


# Three times the profile's count (tests/conftest.py): 300 in ci.
@settings(
    max_examples=3 * settings.default.max_examples,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_thousands_of_hostile_events_are_refused_cleanly(arena, data):
    lt, a = arena
    events = data.draw(st.lists(hostile(a.real_ids), min_size=5, max_size=12))
    for i, (event, payload) in enumerate(events):
        before = lt.run(server_table(a.server, a.code))
        name, body = lt.run(a.send(event, payload, ref=i + 1))
        after = lt.run(server_table(a.server, a.code))
        if name == "error":
            assert body["code"] in CODES, body
            assert isinstance(body["message"], str) and body["message"]
            assert encode_table(after) == encode_table(before), "a rejection changed the room"
        else:
            assert after.version >= before.version
        check_table_invariants(
            after,
            STANDARD_FACES
            if not any(
                p.get("op") in ("create", "delete")
                for e, p in events[: i + 1]
                if isinstance(p, dict)
            )
            else None,
        )
    assert a.fuzzer.sio.connected
    name, _ = lt.run(a.send("sync", {"since": 0}, ref=999))  # still served normally
    assert name == "ack"


async def test_broken_frames_get_errors_and_keep_the_connection(server):
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(f"{server.url}/socket.io/?EIO=4&transport=websocket")
        assert (await ws.receive_str()).startswith("0{")
        await ws.send_str("40")
        assert (await ws.receive_str()).startswith("40")
        frames = [
            '42["op",' + "[" * 60000 + "]" * 60000 + "]",
            '42["op"',
            "42garbage",
            '42["op",{"op":"move","id":"a","x":NaN,"ref":7}]',
        ]
        for frame in frames:
            await ws.send_str(frame)
            reply = await asyncio.wait_for(ws.receive_str(), 5)
            assert reply.startswith('42["error",{"code":"'), reply
        await ws.send_str('42["sync",{"since":0,"ref":"last"}]')
        reply = await asyncio.wait_for(ws.receive_str(), 5)
        assert '"not_joined"' in reply and not ws.closed
        await ws.close()


async def test_rate_limit_per_connection_keeps_connection(redis_server):
    srv = await start_server(make_config(redis_server.url, ops_per_second=5.0, ops_burst=5))
    try:
        code = await new_room(srv)
        c: TableClient = await srv.client()
        await c.join(code, "Speedy")
        results = await asyncio.gather(
            *(c.op("flip", id="deck") for _ in range(20)), return_exceptions=True
        )
        limited = [r for r in results if isinstance(r, OpFailed) and r.code == "rate_limited"]
        assert 10 <= len(limited) <= 16, results
        assert any(not isinstance(r, Exception) for r in results)
        await asyncio.sleep(0.5)
        assert (await c.op("flip", id="deck"))["v"] > 0
        await c.close()
    finally:
        await srv.stop()


async def test_join_attempts_are_rate_limited_per_address(private_redis):
    # A private Redis: the counters are shared by every process using the same Redis.
    srv = await start_server(make_config(private_redis.url, joins_per_minute=5))
    try:
        c: TableClient = await srv.client()
        codes = []
        for _ in range(7):
            try:
                await c.request("join", {"code": "ZZZZZZZZ", "name": "guess"})
            except OpFailed as err:
                codes.append(err.code)
        assert codes == ["room_not_found"] * 5 + ["rate_limited"] * 2
        await c.close()
    finally:
        await srv.stop()
