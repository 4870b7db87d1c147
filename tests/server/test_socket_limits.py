"""The per-address limits as a socket client meets them: a player reclaiming its own seat with
its token is not a join attempt, and a `join` naming no live room is a guess counted with the
HTTP lookups (docs/protocol.md, `join` and Limits).

Each test's sockets come from their own loopback address (127.66.8.x, 127.66.9.x), so the
limits counted in the shared Redis are the test's own; time is the stepped clock of
test_guessing.py, so nothing ages out of a window while a test runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from server.store.embedded import EmbeddedRedis
from tests.conftest import RunningServer, make_config, start_server
from tests.server.helpers import server_table
from tests.server.test_guessing import (
    DEFAULT_MISSES,
    SteppedClock,
    from_addr,
    miss_code,
    status,
)
from tests.server.test_protocol_guard import RawSocket


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
async def strict(redis_server: EmbeddedRedis, clock: SteppedClock) -> AsyncIterator[RunningServer]:
    """The real miss limits (10 a minute, 50 a day) and three joins a minute per address."""
    running = await start_server(
        make_config(redis_server.url, **DEFAULT_MISSES, clock=clock, joins_per_minute=3)
    )
    yield running
    await running.stop()


async def _room_from(http: aiohttp.ClientSession, server: RunningServer) -> str:
    """A room created from the test's own address: the suite's other tests create theirs from
    127.0.0.1 on the real clock, and on this test's stepped clock (set in the past) those
    creations would all still be inside the window."""
    async with http.post(f"{server.url}/api/rooms", json={"template": "standard"}) as resp:
        assert resp.status == 201, await resp.text()
        return str((await resp.json())["code"])


async def _answer(sock: RawSocket) -> tuple[str, dict[str, Any]]:
    """The one answer to a `join`: `joined` (and its snapshot) or an `error`."""
    name, data = await sock.next("joined", "error")
    if name == "joined":
        await sock.next("snapshot")
    return name, data


async def test_reclaiming_a_seat_with_its_token_is_not_counted_as_a_join(strict, clock):
    async with from_addr("127.66.8.1") as home, from_addr("127.66.8.2") as elsewhere:
        code = await _room_from(elsewhere, strict)
        ana = await RawSocket.open(home, strict.url)
        joined = await ana.join(code, "Ana")
        others = [await RawSocket.open(home, strict.url) for _ in range(2)]
        for sock, name in zip(others, ("Ben", "Cy"), strict=True):
            await sock.join(code, name)  # with Ana's, the address's three joins a minute
        await ana.ws.close()

        # Ana comes back with her token more often than the limit allows newcomers.
        for attempt in range(5):
            back = await RawSocket.open(home, strict.url)
            await back.emit("join", {"code": code, "token": joined["token"], "ref": attempt})
            name, data = await _answer(back)
            assert name == "joined", data
            assert data["player"] == joined["player"] and data["seat"] == 0
            await back.ws.close()

        # A newcomer from the same address is refused: the joins are used up...
        dan = await RawSocket.open(home, strict.url)
        await dan.emit("join", {"code": code, "name": "Dan", "ref": "d"})
        name, err = await _answer(dan)
        assert name == "error" and err["code"] == "rate_limited", err
        assert err["retryable"] is True and err["ref"] == "d"
        assert "join attempts" in err["message"]
        table = await server_table(strict, code)
        assert sorted(p.name for p in table.players.values()) == ["Ana", "Ben", "Cy"]

        # ...by this address only: the room itself had a free seat for him.
        from_elsewhere = await RawSocket.open(elsewhere, strict.url)
        assert (await from_elsewhere.join(code, "Dan"))["seat"] == 3

        # A minute after the first join a newcomer from the first address fits again.
        clock.step(60)
        eve = await RawSocket.open(home, strict.url)
        await eve.emit("join", {"code": code, "name": "Eve", "seat": None})
        name, data = await _answer(eve)
        assert name == "joined" and data["seat"] is None, data
        for sock in (*others, dan, from_elsewhere, eve):
            await sock.ws.close()


async def test_a_socket_join_to_an_unknown_code_is_a_counted_guess(redis_server, clock):
    # Joins are not limited here (the suite's 10,000 a minute): only the miss limit can refuse.
    srv = await start_server(make_config(redis_server.url, **DEFAULT_MISSES, clock=clock))
    try:
        api = f"{srv.url}/api/rooms"
        async with from_addr("127.66.9.1") as guesser, from_addr("127.66.9.2") as bystander:
            code = await _room_from(bystander, srv)
            for n in range(3):  # three misses over HTTP...
                assert await status(guesser, f"{api}/{miss_code(n)}") == 404
            sock = await RawSocket.open(guesser, srv.url)
            for n in range(3, 10):  # ...and seven over the socket, some with a token
                guess: dict[str, Any] = {"code": miss_code(n), "name": "guess", "ref": n}
                if n % 2:
                    guess = {"code": miss_code(n), "token": "t" * 32, "ref": n}
                await sock.emit("join", guess)
                name, err = await _answer(sock)
                assert name == "error" and err["code"] == "room_not_found", err
                # The same wrong code again is not a new guess.
                await sock.emit("join", {**guess, "ref": f"again{n}"})
                name, err = await _answer(sock)
                assert name == "error" and err["code"] == "room_not_found", err

            # Ten misses: the eleventh guess is refused, and so is a join of a live room, over
            # the socket and over HTTP alike (a refusal tells nothing about a code).
            for attempt in (
                {"code": miss_code(10), "name": "guess"},
                {"code": code, "name": "Ana"},
            ):
                await sock.emit("join", attempt)
                name, err = await _answer(sock)
                assert name == "error" and err["code"] == "rate_limited", err
                assert "unknown room codes" in err["message"]
            assert await status(guesser, f"{api}/{code}") == 429
            assert (await server_table(srv, code)).players == {}

            # Another address joins the live room as usual.
            other = await RawSocket.open(bystander, srv.url)
            assert (await other.join(code, "Ben"))["seat"] == 0

            # A minute later the guesses have aged out and the socket joins.
            clock.step(60)
            await sock.emit("join", {"code": code, "name": "Ana"})
            name, data = await _answer(sock)
            assert name == "joined" and data["seat"] == 1, data
            await sock.ws.close()
            await other.ws.close()
    finally:
        await srv.stop()
