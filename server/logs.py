"""Logging set-up: plain text for a terminal, or one JSON object per line for a log collector,
with the room code and player id of the request or event being handled, where known.

The socket and HTTP handlers :func:`bind` the room and player they serve (context variables, so
each Socket.IO event and each HTTP request, which run in tasks of their own, carries its own);
every record logged meanwhile, by any module, gets them. A low layer beside :mod:`server.metrics`.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime

ROOM: ContextVar[str | None] = ContextVar("cardtable_room", default=None)
PLAYER: ContextVar[str | None] = ContextVar("cardtable_player", default=None)
FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def bind(room: str | None, player: str | None = None) -> None:
    """The room and player the current task works for: every record logged from it names them."""
    ROOM.set(room)
    PLAYER.set(player)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, and room,
    player and exception where there are any."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        room, player = ROOM.get(), PLAYER.get()
        if room is not None:
            out["room"] = room
        if player is not None:
            out["player"] = player
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup(level: str, fmt: str) -> None:
    """Send every record at ``level`` or above to stderr, as ``fmt`` ("text" or "json")."""
    if fmt not in FORMATS:
        raise ValueError(f"log format is one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
