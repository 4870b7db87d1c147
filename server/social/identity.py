"""Identities without accounts: a browser keeps a random id and secret; the store keeps, per
id, the secret's sha256 and a display name. A known id with another secret is refused."""

from __future__ import annotations

import hashlib
import secrets

from server.errors import BAD_REQUEST, CardtableError
from server.room.players import clean_name
from server.social.keys import BAD_IDENTITY
from server.store.base import SocialStore, answers_unavailable

IDENTITY_TTL = 400 * 24 * 3600  # an identity unused this long is forgotten
DEFAULT_NAME = "Player"


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Identities:
    def __init__(self, store: SocialStore) -> None:
        self.store = store

    @answers_unavailable
    async def hello(
        self, identity: str | None, secret: str | None, name: str | None
    ) -> tuple[str, str, str]:
        """(id, secret, name) of the caller: a new identity when both are absent, the stored one
        when the secret matches, else ``bad_identity``. ``name`` renames it."""
        if identity is None:
            if secret is not None:
                raise CardtableError(BAD_REQUEST, "A secret needs its id.")
            identity, secret = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
        elif secret is None:
            raise CardtableError(BAD_IDENTITY, "That identity needs its secret.")
        clean = clean_name(name) if name is not None else ""
        stored = await self.store.hello(
            identity, secret_hash(secret), clean, DEFAULT_NAME, IDENTITY_TTL
        )
        if stored is None:
            raise CardtableError(
                BAD_IDENTITY,
                "That identity belongs to someone else (wrong secret). Forget it to get a new one.",
            )
        return identity, secret, stored

    @answers_unavailable
    async def exists(self, identity: str) -> bool:
        return await self.store.identity_exists(identity)

    @answers_unavailable
    async def names(self, identities: list[str]) -> list[str | None]:
        """Display names of ``identities`` (None for unknown ones)."""
        return await self.store.names(identities)
