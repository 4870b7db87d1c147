"""Error codes of the social features (docs/protocol.md, "Playing with people") and the
Socket.IO room of an identity. Their data and its Redis keys live in the store
(:mod:`server.store.social_store`)."""

from __future__ import annotations

from server.errors import (  # noqa: F401 - re-exported for the social modules
    BAD_IDENTITY,
    BLOCKED,
    BLOCKED_PLAYER_HERE,
    CHALLENGE_EXPIRED,
    IDENTITY_REQUIRED,
    NO_IDENTITY,
    OFFLINE,
    OUT_OF_DATE,
    UNKNOWN_CHALLENGE,
    UNKNOWN_IDENTITY,
    CardtableError,
)


def id_room(identity: str) -> str:
    """The Socket.IO room every socket of an identity is in, on any server process."""
    return f"id/{identity}"
