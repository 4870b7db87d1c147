"""The server's own moves: one timer per room, for a game's timed action (a trick gathered, a
buying window closing) or a computer player's move.

The room's state records when it next wants such a move (the engine's deadline, and
``Table.bot_due``: the last commit's time plus the computers' pause), so every process reads the
same time (:func:`server.game.rules.next_wake`). The room service says it after every commit this
process makes; the scheduler sleeps until then and asks the room service to make the move
(:meth:`RoomService.auto_step`), which re-checks on the latest state under the room's lock: a
timer that fires early, or after another process moved, finds nothing due and sleeps until the
newly recorded time. The process that made the room's last commit moves on time; the others
that follow the room (a lost timer, a room joined here) look :data:`STANDBY` later, so they find
the move made (one read) instead of racing it, and make it only if that process is gone.

A process keeps timers only for rooms it ``follows`` (rooms with a connection here): a room
nobody here is in is not read again, and a room where nothing can happen by itself (``None``)
has no timer at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Container
from typing import Any

from server.errors import CardtableError

log = logging.getLogger("cardtable.scheduling")
Step = Callable[[str], Awaitable[tuple[Any, float | None]]]
STANDBY = 0.5  # seconds a process that did not make the room's last commit waits past its time


def _everything(code: str) -> bool:
    return True


class Scheduler:
    def __init__(
        self,
        step: Step,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        follows: Callable[[str], bool] = _everything,
    ) -> None:
        self.step = step
        self.clock = clock
        self.sleep = sleep
        self.follows = follows
        self.timers: dict[str, tuple[float, asyncio.Task[None]]] = {}

    def wake(self, code: str, when: float | None) -> None:
        """Make the room's next move at ``when`` (epoch seconds); ``None``: no move pending."""
        current = self.timers.pop(code, None)
        if current is not None and current[1] is not asyncio.current_task():
            current[1].cancel()
        if when is None or not self.follows(code):
            return
        task = asyncio.create_task(self._run(code, when), name=f"auto {code}")
        self.timers[code] = (when, task)

    def stand_by(self, code: str, when: float | None) -> None:
        """Follow a room whose timer this process may not hold (a timer lost with another
        process, a room joined here): look :data:`STANDBY` after its recorded time ``when``,
        unless a timer is set already."""
        if when is not None and code not in self.timers:
            self.wake(code, when + STANDBY)

    def retain(self, codes: Container[str]) -> None:
        """Drop the timers of rooms not in ``codes`` (rooms this process no longer follows)."""
        for code in [c for c in self.timers if c not in codes]:
            self.wake(code, None)

    def pending(self, code: str) -> float | None:
        got = self.timers.get(code)
        return got[0] if got is not None else None

    async def _run(self, code: str, when: float) -> None:
        try:
            await self.sleep(max(0.0, when - self.clock()))
            made, again = await self.step(code)
            if made is None and again is not None:
                again += STANDBY  # another process moved first: it keeps the pace
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
