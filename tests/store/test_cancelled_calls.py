"""A store call that is cancelled raises ``CancelledError``: it never returns as if nothing had
happened. redis-py 8.1's connection can take a cancellation in the middle of a read and return
the reply anyway (on a cluster node's connection, about one cancelled script in twenty); a task
that carries on after its cancel never stops, and a server's shutdown, which cancels its
heartbeat and waits for it, hung for good (a fresh-clone CI run, tests/social/test_identity.py).

The cancels land after 0 to 39 turns of the event loop (no clock): spread over a script's
send, its reply and, on the cluster, its ``WAIT`` for a replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from server.store.base import VersionMismatch
from server.store.redis_store import RedisStore


async def _cancelled_returns(call, rounds: int = 240) -> int:  # type: ignore[no-untyped-def]
    """How many of ``rounds`` calls, each cancelled while in flight, returned normally."""
    returned = 0
    for i in range(rounds):
        task = asyncio.create_task(call())
        for _ in range(i % 40):
            await asyncio.sleep(0)
        if task.done():
            continue
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            continue
        returned += 1
    return returned


async def test_a_cancelled_script_is_cancelled(store: RedisStore) -> None:
    sweep = store.social.challenge_sweep  # a write script: on the cluster, then a WAIT
    assert await _cancelled_returns(lambda: sweep(time.time(), 50)) == 0


async def test_a_cancelled_commit_is_cancelled(store: RedisStore) -> None:
    await store.create("CANCELME", b"v0")

    async def commit() -> None:
        version = await store.version("CANCELME")
        assert version is not None
        # Another round's commit that landed in between is not what this counts.
        with contextlib.suppress(VersionMismatch):
            await store.commit("CANCELME", version, version + 1, b"s", b"e")

    assert await _cancelled_returns(commit) == 0


async def test_a_cancelled_feed_read_is_cancelled(store: RedisStore) -> None:
    """The commit feed's read loop stops only if its read gives the cancellation back. A guard:
    the pub/sub read was not seen to take a cancellation (800 cancelled reads while commits
    arrive, on both stores), so the feed has no ``cancel_again`` of its own; this says if it
    starts to."""
    feed = store.subscription()
    stop = asyncio.Event()

    async def commits() -> None:  # entries arriving while reads are cancelled
        version = 0
        while not stop.is_set():
            await store.commit("CANCELFEED", version, version + 1, b"s", b"e")
            version += 1

    try:
        await feed.subscribe("CANCELFEED")
        await store.create("CANCELFEED", b"v0")
        writer = asyncio.create_task(commits())
        assert await _cancelled_returns(lambda: feed.next(5.0), rounds=800) == 0
    finally:
        stop.set()
        await writer
        await feed.close()
