"""A test client that speaks the social events on top of the table client."""

from __future__ import annotations

import secrets
from typing import Any

from cardtable_client import TableClient
from server.config import default_build

SOCIAL = (
    "hello_ok",
    "relations",
    "lobby",
    "challenge_sent",
    "challenged",
    "challenge_accepted",
    "invite_accepted",
    "rematch_sent",
    "favourites_online",
    "challenge_declined",
    "challenge_cancelled",
    "challenge_expired",
    "chat",
    "chat_history",
)
BUILD = default_build()  # what the test servers run, as the web client says it in ``hello``
# Answers that echo the request's ref.
ANSWERS = ("hello_ok", "lobby", "challenge_sent", "rematch_sent", "favourites_online")


class SocialClient(TableClient):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        for name in SOCIAL:
            self.sio.on(name, self._social(name))
        self.identity: str | None = None
        self.secret: str | None = None

    def _social(self, name: str) -> Any:
        async def handler(data: Any) -> None:
            self.received.append((name, data))
            if name in ANSWERS:
                self._resolve(data.get("ref"), data)
            self._changed.set()

        return handler

    async def request(
        self, event: str, payload: dict[str, Any], timeout: float = 10.0
    ) -> dict[str, Any]:
        """As the page does, ``hello`` says this build unless the test says otherwise (a
        ``build`` of None: send none)."""
        if event == "hello":
            payload = {"build": BUILD, **payload}
            if payload["build"] is None:
                del payload["build"]
        return await super().request(event, payload, timeout)

    def events(self, name: str) -> list[Any]:
        return [d for n, d in self.received if n == name]

    async def event(self, name: str, match: Any = None, count: int = 1) -> Any:
        """The ``count``-th event ``name`` (matching ``match``), once it has arrived."""

        def found() -> list[Any]:
            return [d for d in self.events(name) if match is None or match(d)]

        await self.wait_for(lambda: len(found()) >= count)
        return found()[count - 1]

    async def hello(self, name: str = "Ann", **extra: Any) -> dict[str, Any]:
        if "id" not in extra and self.identity is None:
            extra.setdefault("id", "u" + secrets.token_hex(8))
            extra.setdefault("secret", secrets.token_urlsafe(24))
        elif self.identity is not None:
            extra.setdefault("id", self.identity)
            extra.setdefault("secret", self.secret)
        got = await self.request("hello", {"name": name, **extra})
        self.identity, self.secret = got["id"], got["secret"]
        return got

    async def online(self, on: bool = True) -> dict[str, Any]:
        return await self.request("online", {"on": on})


async def social_client(url: str, name: str | None = "Ann", online: bool = True) -> SocialClient:
    c = SocialClient(url)
    await c.connect()
    if name is not None:
        await c.hello(name)
        if online:
            await c.online(True)
    return c
