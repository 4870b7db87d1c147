"""Table chat: plain text, checked and rate-limited per identity (counted in the store, so all
its sockets on every process share one limit), kept (the last 50 lines per room) in the store
apart from the table's versions, and sent to everyone in the room but sockets whose identity
muted the sender."""

from __future__ import annotations

import unicodedata
from typing import Any

from server.errors import BAD_REQUEST, CardtableError
from server.store.base import SocialStore, answers_unavailable

MOST_CHARS = 300
KEEP = 50
RATE = (5, 10.0)  # lines per identity (else per connection) in any this many seconds


def clean_text(text: str) -> str:
    """``text`` as sent, if it is 1..300 characters without control characters."""
    if not 1 <= len(text) <= MOST_CHARS or not text.strip():
        raise CardtableError(BAD_REQUEST, f"A chat line is 1 to {MOST_CHARS} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise CardtableError(BAD_REQUEST, "A chat line has no control characters.")
    return text


class ChatLog:
    def __init__(self, store: SocialStore, ttl: int) -> None:
        self.store = store
        self.ttl = ttl

    @answers_unavailable
    async def add(self, code: str, line: dict[str, Any]) -> None:
        await self.store.chat_add(code, line, KEEP, self.ttl)

    @answers_unavailable
    async def history(self, code: str) -> list[dict[str, Any]]:
        return await self.store.chat_lines(code)
