"""The one error type that crosses every boundary, and its stable codes.

Every rejection the server gives a client is a ``CardtableError``: a stable ``code`` a program can
switch on, a ``message`` a person can read, and whether retrying the same request may succeed.
The socket layer maps it to exactly one event shape: ``error {code, message, ref}``.
"""

from __future__ import annotations

from typing import Any

# Stable codes. Documented in docs/protocol.md; never rename one.
BAD_REQUEST = "bad_request"  # payload shape or types are wrong
TOO_LARGE = "too_large"  # payload bigger than the configured limit
METHOD_NOT_ALLOWED = "method_not_allowed"  # HTTP: a method the path does not take
RATE_LIMITED = "rate_limited"  # too many events from this connection or address
ROOM_NOT_FOUND = "room_not_found"
NOT_JOINED = "not_joined"  # event needs a joined player
NOT_SEATED = "not_seated"  # spectators cannot change the table
SEAT_TAKEN = "seat_taken"
ROOM_FULL = "room_full"
ROOM_LOCKED = "room_locked"  # the host closed the room to new players
REMOVED = "removed"  # this player was removed (away too long, or by the host)
UNKNOWN_OBJECT = "unknown_object"
FORBIDDEN = "forbidden"  # e.g. touching another seat's hand, a locked object
CONFLICT = "conflict"  # the object changed since the client saw it
INVALID_MOVE = "invalid_move"  # the operation makes no sense for this object
BAD_NAME = "bad_name"  # an object's name too long, or with a control character or line break
LIMIT = "limit"  # a configured room limit would be exceeded
NOTHING_TO_UNDO = "nothing_to_undo"
UNDO_REFUSED = "undo_refused"
BAD_TOKEN = "bad_token"
RULES = "rules"  # a rule plugin rejected the move; message says which rule
UNAVAILABLE = "unavailable"  # the store is down; retry later
UNCONFIRMED = "unconfirmed"  # the store did not answer a commit: it may have landed
ALREADY_REFUSED = "already_refused"  # an operation id whose operation was refused
INTERNAL = "internal"
# Playing with people (server/social/)
BAD_IDENTITY = "bad_identity"  # a known identity id with the wrong secret
NO_IDENTITY = "no_identity"  # the event needs ``hello`` first
OUT_OF_DATE = "out_of_date"  # the page's build is not the server's
OFFLINE = "offline"  # the challenged player is not online
BLOCKED = "blocked"  # one of the two has blocked the other
BLOCKED_PLAYER_HERE = "blocked_player_here"  # a player you blocked is in this room
UNKNOWN_IDENTITY = "unknown_identity"
UNKNOWN_CHALLENGE = "unknown_challenge"  # no such challenge open for you (answered, cancelled)
CHALLENGE_EXPIRED = "challenge_expired"
IDENTITY_REQUIRED = "identity_required"  # where someone blocks, no identity: watch only
# Provably fair deals (server/game/fairness.py)
WRONG_DEAL = "wrong_deal"  # a value for a deal that is not the one waiting for values
ALREADY_SENT = "already_sent"  # this seat's page sent its value for that deal already
HAND_NOT_OVER = "hand_not_over"  # a hand history asked for while that hand is being played
NO_SUCH_HAND = "no_such_hand"  # no hand with that number in this room


class CardtableError(Exception):
    """A rejection with a stable code and a human message."""

    def __init__(
        self, code: str, message: str, *, retryable: bool = False, detail: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.detail = detail

    def payload(self, ref: Any = None) -> dict[str, Any]:
        """The body of the ``error`` event."""
        out: dict[str, Any] = {"code": self.code, "message": self.message, "ref": ref}
        if self.retryable:
            out["retryable"] = True
        if self.detail is not None:
            out["rule"] = self.detail
        return out

    def __repr__(self) -> str:
        return f"CardtableError({self.code!r}, {self.message!r})"
