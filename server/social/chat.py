"""Table chat: plain text, checked and rate-limited per identity (counted in Redis, so all its
sockets on every process share one limit), kept (the last 50 lines per room) in Redis apart from
the table's versions, and sent to everyone in the room but sockets whose identity muted the
sender."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import redis.asyncio as aioredis

from server.errors import BAD_REQUEST, CardtableError
from server.social.keys import call, chat_key

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
    def __init__(self, redis: aioredis.Redis, ttl: int) -> None:
        self.redis = redis
        self.ttl = ttl

    async def add(self, code: str, line: dict[str, Any]) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.rpush(chat_key(code), json.dumps(line))
        pipe.ltrim(chat_key(code), -KEEP, -1)
        pipe.expire(chat_key(code), self.ttl)
        await call(pipe.execute())

    async def history(self, code: str) -> list[dict[str, Any]]:
        raw = await call(self.redis.lrange(chat_key(code), 0, -1))
        return [json.loads(r) for r in raw]
