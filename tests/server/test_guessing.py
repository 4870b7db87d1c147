"""Guessing room codes: misses are limited per client address in sliding windows kept in Redis,
hits are free, the address comes from the transport (or a declared proxy), and join and
creation limits slide too.

Every request goes over real HTTP from its own loopback source address (127.66.x.y), so tests
do not share limits with each other or with the rest of the suite; time is a stepped clock.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator

import aiohttp
import pytest

from server.config import Config, parse_network
from server.errors import CardtableError
from server.net.http import ROOMS_KEY
from server.room import codes
from server.room.service import RoomService
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from server.table.objects import encode_table
from server.table.templates import new_table
from tests.conftest import RunningServer, make_config, start_server

T0 = 1_000_000_000.0  # the stepped clock's start; far from the real time other tests count in
DAY = 24 * 3600


class SteppedClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += seconds


def miss_code(n: int) -> str:
    """The n-th of many valid new-length codes that name no room."""
    tail = ""
    for _ in range(3):
        n, r = divmod(n, len(codes.ALPHABET))
        tail += codes.ALPHABET[r]
    return "Z" * (codes.LENGTH - 3) + tail


def from_addr(ip: str) -> aiohttp.ClientSession:
    """An HTTP client whose connections come from loopback address ``ip``."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(ip, 0)))


async def status(http: aiohttp.ClientSession, url: str, **kw: object) -> int:
    async with http.get(url, **kw) as r:  # type: ignore[arg-type]
        await r.read()
        return r.status


async def create(http: aiohttp.ClientSession, server: RunningServer) -> aiohttp.ClientResponse:
    async with http.post(f"{server.url}/api/rooms", json={"template": "blank"}) as r:
        await r.read()
        return r


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


# The suite's shared config lifts the miss limits; these tests put the real defaults back.
DEFAULT_MISSES = {
    "misses_per_minute": Config.misses_per_minute,
    "misses_per_day": Config.misses_per_day,
}


@pytest.fixture
async def guarded(redis_server: EmbeddedRedis, clock: SteppedClock) -> AsyncIterator[RunningServer]:
    """The server with its default miss limits and the stepped clock."""
    running = await start_server(make_config(redis_server.url, **DEFAULT_MISSES, clock=clock))
    yield running
    await running.stop()


async def test_misses_are_limited_per_address_and_hits_are_free(guarded, clock):
    api = f"{guarded.url}/api/rooms"
    async with from_addr("127.66.1.1") as a, from_addr("127.66.1.2") as b:
        code = (await (await create(a, guarded)).json())["code"]
        for n in range(9):
            assert await status(a, f"{api}/{miss_code(n)}") == 404
            for _ in range(3):
                assert await status(a, f"{api}/{code}") == 200
        # The same wrong code again is not a new guess.
        assert await status(a, f"{api}/{miss_code(8)}") == 404
        assert await status(a, f"{api}/{miss_code(9)}") == 404
        # That was the tenth miss: from now on every lookup is refused, even of a live code, so
        # a refusal tells nothing about a code.
        assert await status(a, f"{api}/{code}") == 429

        async with a.get(f"{api}/{miss_code(10)}") as r:
            assert r.status == 429
            assert r.headers["Retry-After"] == "60"
            body = await r.json()
        assert body == {
            "code": "rate_limited",
            "message": body["message"],
            "ref": None,
            "retryable": True,
        }
        assert "unknown room codes" in body["message"] and "60 seconds" in body["message"]
        async with a.get(f"{guarded.url}/r/{miss_code(11)}") as r:
            page = await r.text()
            assert r.status == 429 and r.headers["Content-Type"].startswith("text/html")
            assert r.headers["Retry-After"] == "60"
        assert "Too many tries" in page and '<link rel="stylesheet" href="/assets/app.css">' in page
        assert await status(a, f"{guarded.url}/r/{code}") == 429

        # Another address is not affected.
        assert await status(b, f"{api}/{miss_code(0)}") == 404
        assert await status(b, f"{guarded.url}/r/{code}") == 200

        # The window slides: the ten misses leave it exactly 60 s after they were made.
        clock.step(59.5)
        assert await status(a, f"{api}/{miss_code(12)}") == 429
        clock.step(0.5)
        assert await status(a, f"{api}/{code}") == 200
        for n in range(12, 22):
            assert await status(a, f"{guarded.url}/r/{miss_code(n)}") == 404
        assert await status(a, f"{guarded.url}/r/{miss_code(22)}") == 429


async def test_a_day_allows_fifty_misses_per_address(guarded, clock):
    api = f"{guarded.url}/api/rooms"
    async with from_addr("127.66.2.1") as a:
        code = (await (await create(a, guarded)).json())["code"]
        for batch in range(5):
            for n in range(10):
                assert await status(a, f"{api}/{miss_code(batch * 10 + n)}") == 404
            clock.step(61)
        async with a.get(f"{api}/{miss_code(50)}") as r:
            assert r.status == 429
            wait = T0 + DAY - clock.now
            assert r.headers["Retry-After"] == str(math.ceil(wait))
            assert f"{math.ceil(wait / 3600)} hours" in (await r.json())["message"]
        assert await status(a, f"{api}/{code}") == 429
        # A day after the first batch those ten slots come back, and only those.
        clock.now = T0 + DAY
        for n in range(50, 59):
            assert await status(a, f"{api}/{miss_code(n)}") == 404
        assert await status(a, f"{api}/{code}") == 200
        assert await status(a, f"{api}/{miss_code(59)}") == 404
        clock.step(60)  # past the minute window, but the day is full again
        assert await status(a, f"{api}/{miss_code(60)}") == 429
        assert await status(a, f"{api}/{code}") == 429
        clock.now = T0 + DAY + 61  # the second batch has aged out
        assert await status(a, f"{api}/{code}") == 200


async def test_a_burst_of_parallel_guesses_gets_exactly_the_limit(guarded):
    async with from_addr("127.66.7.1") as a:
        got = await asyncio.gather(
            *(status(a, f"{guarded.url}/api/rooms/{miss_code(n)}") for n in range(40))
        )
    assert sorted(got) == [404] * 10 + [429] * 30


async def test_the_limit_holds_across_server_processes(redis_server, clock):
    one = await start_server(make_config(redis_server.url, **DEFAULT_MISSES, clock=clock))
    two = await start_server(make_config(redis_server.url, **DEFAULT_MISSES, clock=clock))
    try:
        async with from_addr("127.66.3.1") as a:
            for n in range(10):
                server = one if n % 2 else two
                assert await status(a, f"{server.url}/api/rooms/{miss_code(n)}") == 404
            assert await status(a, f"{one.url}/api/rooms/{miss_code(10)}") == 429
            assert await status(a, f"{two.url}/r/{miss_code(11)}") == 429
    finally:
        await one.stop()
        await two.stop()


async def test_forwarded_for_is_believed_only_from_a_declared_proxy(redis_server, clock):
    proxy = "127.66.4.1"
    server = await start_server(
        make_config(
            redis_server.url, **DEFAULT_MISSES, clock=clock, trusted_proxies=[parse_network(proxy)]
        )
    )
    api = f"{server.url}/api/rooms"
    try:
        async with from_addr(proxy) as via, from_addr("127.66.4.2") as direct:
            for n in range(10):
                xff = {"X-Forwarded-For": "203.0.113.10"}
                assert await status(via, f"{api}/{miss_code(n)}", headers=xff) == 404
            xff = {"X-Forwarded-For": "203.0.113.10"}
            assert await status(via, f"{api}/{miss_code(10)}", headers=xff) == 429
            # What the client wrote left of the proxy's entry changes nothing.
            xff = {"X-Forwarded-For": "198.51.100.1, 203.0.113.10"}
            assert await status(via, f"{api}/{miss_code(11)}", headers=xff) == 429
            # Another client behind the same proxy has its own limit.
            xff = {"X-Forwarded-For": "203.0.113.10, 203.0.113.11"}
            assert await status(via, f"{api}/{miss_code(12)}", headers=xff) == 404

            # A peer that is not a declared proxy is counted by its own address, whatever it says.
            for n in range(10):
                xff = {"X-Forwarded-For": f"198.51.100.{n + 20}"}
                assert await status(direct, f"{api}/{miss_code(n)}", headers=xff) == 404
            xff = {"X-Forwarded-For": "198.51.100.99"}
            assert await status(direct, f"{api}/{miss_code(10)}", headers=xff) == 429
    finally:
        await server.stop()


async def test_room_creation_limit_slides_over_the_minute_boundary(redis_server, clock):
    # Three creations a minute; the first at second 59 of a calendar minute.
    clock.now = T0 - T0 % 60 + 59
    start = clock.now
    server = await start_server(
        make_config(redis_server.url, **DEFAULT_MISSES, clock=clock, joins_per_minute=3)
    )
    try:
        async with from_addr("127.66.5.1") as a:
            for _ in range(3):
                assert (await create(a, server)).status == 201
                clock.step(10)
            clock.now = start + 21  # a new calendar minute, but not a new 60 s
            refused = await create(a, server)
            assert refused.status == 429 and refused.headers["Retry-After"] == "39"
            clock.now = start + 60  # the first creation has left the window
            assert (await create(a, server)).status == 201
            assert (await create(a, server)).status == 429
            clock.now = start + 70
            assert (await create(a, server)).status == 201
    finally:
        await server.stop()


async def test_join_attempts_slide_too(store: RedisStore):
    rooms = RoomService(store)
    clock = SteppedClock(T0 - T0 % 60 + 59.5)  # half a second before a calendar minute ends
    for _ in range(30):
        await rooms.count_attempt("join", "203.0.113.50", 30, clock)
    clock.step(1.0)  # the old fixed window let 30 more in here: 59 joins in 61 s
    with pytest.raises(CardtableError) as refused:
        await rooms.count_attempt("join", "203.0.113.50", 30, clock)
    assert refused.value.code == "rate_limited" and refused.value.retryable
    await rooms.count_attempt("join", "203.0.113.51", 30, clock)  # per address
    clock.step(59.0)
    await rooms.count_attempt("join", "203.0.113.50", 30, clock)


async def test_new_codes_are_longer_and_old_rooms_keep_working(guarded):
    async with from_addr("127.66.6.1") as a:
        made = await (await create(a, guarded)).json()
        code = made["code"]
        assert len(code) == codes.LENGTH == 10 and made["display"] == f"{code[:5]}-{code[5:]}"

        legacy = "ABCDEFGH"
        store = guarded.app[ROOMS_KEY].store
        assert await store.create(legacy, encode_table(new_table(legacy, "standard", 4, T0)))
        async with a.get(f"{guarded.url}/api/rooms/abcd-efgh") as r:
            assert r.status == 200
            body = await r.json()
        assert body["code"] == legacy and body["display"] == "ABCD-EFGH"
        assert await status(a, f"{guarded.url}/r/{legacy}") == 200
        # Nine characters is neither length.
        assert await status(a, f"{guarded.url}/api/rooms/ABCDEFGHJ") == 404
    player = await guarded.client()
    try:
        joined = await player.join("abcd efgh", "Ana")
        assert joined["code"] == legacy
    finally:
        await player.close()


def test_code_lengths_and_display():
    made = {codes.new_code() for _ in range(500)}
    assert len(made) == 500 and {len(c) for c in made} == {10}
    assert not set("".join(made)) & set("01OIL")
    assert codes.normalize("abcde_fghjk") == "ABCDEFGHJK"
    assert codes.normalize(" abcd-efgh ") == "ABCDEFGH"
    for wrong in ("ABCDEFG", "ABCDEFGHJ", "ABCDEFGHJKM", "ABCDEFGHJ0"):
        assert codes.normalize(wrong) is None
    assert codes.pretty("ABCDEFGHJK") == "ABCDE-FGHJK"
    assert codes.pretty("ABCDEFGH") == "ABCD-EFGH"
