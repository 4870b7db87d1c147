"""The Engine.IO websocket session (:func:`server.net.eio.websocket_session`): python-engineio's
own loop, without a task per frame. Real server, real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import aiohttp

from server.net.eio import Quiet
from tests.conftest import RunningServer, new_room
from tests.server.test_protocol_guard import RawSocket


@contextmanager
def tasks_made() -> Iterator[list[str]]:
    """The qualified names of the coroutines every task made meanwhile on this loop runs."""
    loop = asyncio.get_running_loop()
    before = loop.get_task_factory()
    names: list[str] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        names.append(getattr(coro, "__qualname__", ""))
        if before is not None:
            return before(loop, coro, **kwargs)  # type: ignore[no-any-return]
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)
    try:
        yield names
    finally:
        loop.set_task_factory(before)


async def test_a_websocket_frame_in_or_out_makes_no_task_in_the_engine_io_layer(
    server: RunningServer,
) -> None:
    # python-engineio 4.15 wraps every frame read in ensure_future + wait_for and every batch
    # written in wait_for(queue.get()): on Python 3.11 a task each, a tenth of a move's CPU.
    code = await new_room(server)
    async with aiohttp.ClientSession() as http:
        sock = await RawSocket.open(http, server.url)
        await sock.join(code, "Ana")
        with tasks_made() as names:
            for n in range(20):
                await sock.emit("sync", {"since": 10_000, "ref": n})
                assert await sock.next("ack") == ("ack", {"ref": n, "v": None})
        await sock.ws.close()
    per_frame = [n for n in names if n.endswith("websocket_wait") or n == "Queue.get"]
    assert per_frame == [], per_frame
    assert names.count("AsyncServer._handle_event_internal") == 20  # the count is of this loop


class CountingQuiet(Quiet):
    """A :class:`Quiet` that says when its timer has fired."""

    def __init__(self, task: asyncio.Task[Any], seconds: float) -> None:
        self.fired = asyncio.Event()
        super().__init__(task, seconds)

    def _check(self) -> None:
        super()._check()
        self.fired.set()


async def _wait_under_quiet(
    seconds: float, waiting: asyncio.Event | None = None
) -> tuple[bool, int]:
    """Wait for ever under a ``Quiet`` of ``seconds``; once cancelled: whether ``Quiet`` took
    the cancellation for its own, and the cancellations the task still has."""
    quiet = Quiet(_task(), seconds)
    quiet.start()
    if waiting is not None:
        waiting.set()
    try:
        await asyncio.get_running_loop().create_future()
    except asyncio.CancelledError:
        return quiet.ours(), _task().cancelling()
    finally:
        quiet.close()
    raise AssertionError("not cancelled")


async def test_quiet_ends_a_wait_that_lasts_and_takes_its_cancellation_back() -> None:
    assert await asyncio.create_task(_wait_under_quiet(0.01)) == (True, 0)


async def test_quiet_lets_the_time_between_waits_pass() -> None:
    quiet = CountingQuiet(_task(), 0.01)
    try:
        quiet.start()
        await asyncio.sleep(0)  # a wait that ends at once
        quiet.stop()
        for _ in range(3):  # the timer fires three times while nothing waits
            quiet.fired.clear()
            await quiet.fired.wait()
        assert not quiet.expired
    finally:
        quiet.close()


async def test_quiet_does_not_take_another_cancellation_for_its_own() -> None:
    waiting = asyncio.Event()
    task = asyncio.create_task(_wait_under_quiet(3600, waiting))
    await waiting.wait()
    task.cancel()
    assert await task == (False, 1)


def _task() -> asyncio.Task[Any]:
    task = asyncio.current_task()
    assert task is not None
    return task
