"""The server's own moves: one timer per room, for a game's timed action (a trick gathered, a
buying window closing) or a computer player's move.

The room service says, after every commit, when the room next wants such a move
(:func:`server.games.next_wake`); the scheduler sleeps until then and asks the room service to
make it (:meth:`RoomService.auto_step`), which re-checks on the latest state under the room's
lock, so a move that is no longer due does nothing. Several processes may hold timers for one
room: the versioned commit lets only the first move land.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from server.errors import CardtableError

log = logging.getLogger("cardtable.scheduling")
Step = Callable[[str], Awaitable[tuple[Any, float | None]]]


class Scheduler:
    def __init__(self, step: Step, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.step = step
        self.clock = clock
        self.sleep = sleep
        self.timers: dict[str, tuple[float, asyncio.Task[None]]] = {}

    def wake(self, code: str, when: float | None) -> None:
        """Make the room's next move at ``when`` (epoch seconds); ``None``: no move pending."""
        current = self.timers.pop(code, None)
        if current is not None and current[1] is not asyncio.current_task():
            current[1].cancel()
        if when is None:
            return
        task = asyncio.create_task(self._run(code, when), name=f"auto {code}")
        self.timers[code] = (when, task)

    def pending(self, code: str) -> float | None:
        got = self.timers.get(code)
        return got[0] if got is not None else None

    async def _run(self, code: str, when: float) -> None:
        try:
            await self.sleep(max(0.0, when - self.clock()))
            _, again = await self.step(code)
        except asyncio.CancelledError:
            raise
        except CardtableError as err:
            log.warning("room %s: the server's move failed: %s", code, err.message)
            again = self.clock() + 1.0 if err.retryable else None
        except Exception:
            log.exception("room %s: the server's move failed", code)
            again = None
        mine = self.timers.get(code)
        if mine is not None and mine[1] is asyncio.current_task():
            del self.timers[code]
            if again is not None:
                self.wake(code, again)

    async def close(self) -> None:
        for _, task in self.timers.values():
            task.cancel()
        for _, task in list(self.timers.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.timers.clear()
