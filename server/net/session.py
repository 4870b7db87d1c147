"""One connection's state (:class:`Session`), and the part of the socket front that the
handlers of other features build on (:class:`Front`): registering a guarded handler, replying,
finding the room a connection joined, and background tasks that end with the server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.config import Config
from server.net.limits import TokenBucket
from server.net.sio import GuardedServer


@dataclass
class Session:
    """One connection: where it is, and the last room version it was sent."""

    addr: str
    bucket: TokenBucket
    sid: str = ""
    code: str | None = None
    player_id: str | None = None
    seat: int | None = None
    last_v: int = -1
    last_drag: float = 0.0
    identity: str | None = None  # said in ``hello``, secret checked
    name: str = ""  # the identity's display name
    online: bool = False  # in the online list (``online {on: true}``, or joined a room)
    offline_chosen: bool = False  # said ``online {on: false}``: a room join keeps it offline
    out_of_date: bool = False  # the page's build is not ours: every event is refused

    @property
    def member(self) -> str:
        return f"{self.player_id}|{self.sid}"


Handler = Callable[[str, Session, Any], Awaitable[None]]


class Front(Protocol):
    """What :class:`server.net.sockets.SocketHandlers` offers the handlers of other features."""

    sio: GuardedServer
    config: Config
    tasks: set[asyncio.Task[None]]

    def guard(self, name: str, fn: Handler) -> Callable[..., Awaitable[None]]:
        """``fn`` wrapped as a Socket.IO handler: its session found, errors answered as events."""
        ...

    async def reply(self, event: str, data: Any, sid: str) -> None:
        """Send ``event`` to one connection."""
        ...

    def joined(self, session: Session) -> tuple[str, str]:
        """The room code and player id of a joined connection; ``not_joined`` otherwise."""
        ...
