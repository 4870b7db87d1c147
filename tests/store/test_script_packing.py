"""The script runner packs its EVALSHA with hiredis (a commit's in 2.8 us, against 10 us by
redis-py's asyncio connection): byte for byte what the connection would have sent, and the same
refusal for text UTF-8 cannot hold. Anything else is left to the connection."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store import clients
from server.store.clients import packed


@pytest.fixture
def conn() -> Any:
    return aioredis.Redis().connection_pool.make_connection()  # never connected


def _joined(command: Any) -> bytes:
    return command if isinstance(command, bytes) else b"".join(command)


def _value(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randint(-(10**20), 10**20)
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(50)))
    if kind == 2:
        ranges = [(32, 127), (0x80, 0x800), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
        return "".join(chr(rng.randrange(*rng.choice(ranges))) for _ in range(rng.randrange(20)))
    if kind == 3:
        return b"x" * rng.randrange(5_000, 70_000)  # past redis-py's chunking cutoff
    return rng.choice([0, "", b""])


def test_hiredis_packs_the_commands_here() -> None:
    assert clients._c_pack is not None  # installed with the server (pyproject: hiredis)


def test_a_command_is_packed_byte_for_byte_as_the_connection_packs_it(conn: Any) -> None:
    rng = random.Random(23)
    for _ in range(2000):
        args = ("EVALSHA", *(_value(rng) for _ in range(rng.randrange(12))))
        assert _joined(packed(conn, *args)) == _joined(conn.pack_command(*args)), args


@pytest.mark.parametrize("odd", [1.5, True, None, "CONFIG GET", b"EVALSHA"])
def test_what_hiredis_would_pack_otherwise_is_left_to_the_connection(conn: Any, odd: Any) -> None:
    args = (odd, "x") if odd in ("CONFIG GET", b"EVALSHA") else ("EVALSHA", "x", odd)
    try:
        want: Any = _joined(conn.pack_command(*args))
    except Exception as exc:  # redis-py refuses None (DataError): so must this
        want = type(exc)
    try:
        got: Any = _joined(packed(conn, *args))
    except Exception as exc:
        got = type(exc)
    assert got == want


def test_text_utf8_cannot_hold_is_refused_alike(conn: Any) -> None:
    with pytest.raises(UnicodeEncodeError):
        conn.pack_command("EVALSHA", "\ud800")
    with pytest.raises(UnicodeEncodeError):
        packed(conn, "EVALSHA", "\ud800")
