"""Schemas of the client events, as strict as docs/protocol.md: one parse per event.

Every documented client event has a msgspec struct here; unknown fields, wrong types, a missing
required field, an over-long string or a bad ``ref`` are refused with ``bad_request`` before a
handler sees the payload. ``op`` payloads are parsed by :func:`server.table.ops.parse_op`; only
their ``ref`` is checked here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec

from server.errors import BAD_REQUEST, CardtableError
from server.room.host import HostAction, Level

# A ``ref`` is an int or a short string, or absent; ``"ref": null`` is refused (msgspec checks a
# value against the annotation, not the default, so only a missing ``ref`` becomes None).
Ref = int | Annotated[str, msgspec.Meta(max_length=64)]
Name = Annotated[str, msgspec.Meta(max_length=200)]
SeatNo = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]
IdentityId = Annotated[str, msgspec.Meta(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
# The client's id for one mutating event (``op``, ``seat``, ``rename``, ``game``, ``host``): sent
# again unchanged when the event is retried, so the server applies it at most once.
OpId = Annotated[str, msgspec.Meta(min_length=8, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]


class _Event(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ref: Ref = None  # type: ignore[assignment]


class Join(_Event):
    code: Annotated[str, msgspec.Meta(max_length=40)]
    name: Name | None = None
    token: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    seat: SeatNo | Literal["auto"] | None = "auto"
    since: Version | None = None
    identity: IdentityId | None = None  # must be the connection's own (``hello``)
    anyway: bool = False  # join even if a player you blocked is here


class Seat(_Event):
    seat: SeatNo | None  # required: null means "leave my seat and watch"
    opid: OpId | None = None


class Rename(_Event):
    name: Name
    opid: OpId | None = None


class Sync(_Event):
    since: Version


class Game(_Event):
    action: dict[str, Any]
    opid: OpId | None = None


class Fair(_Event):
    """A seated page's random value for the deal waiting for values (docs/protocol.md,
    "Provably fair deals"): 16 bytes as 32 lowercase hex characters."""

    deal: Annotated[int, msgspec.Meta(ge=1)]
    value: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{32}$")]
    opid: OpId | None = None


class Host(_Event):
    action: HostAction
    who: Literal["host", "all"] | None = None  # "edit": who may edit the table
    player: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    game: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    options: dict[str, Any] | None = None
    seat: SeatNo | None = None
    level: Level | None = None  # "bot": the computer's level (absent: normal)
    public: bool | None = None  # "public": list the room in the lobby or not
    opid: OpId | None = None


class DragItem(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, msgspec.Meta(max_length=40)]
    x: Annotated[float, msgspec.Meta(ge=-10000, le=10000)]
    y: Annotated[float, msgspec.Meta(ge=-10000, le=10000)]


class Drag(_Event):
    items: Annotated[list[DragItem], msgspec.Meta(min_length=1, max_length=20)]


class CreateRoom(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /api/rooms``: a free-play room (template, seats), a game room (game, options;
    ``computers``: a computer at that level in every seat but seat 0, for one person to play
    against), or a homemade game from a game file or the built-in library (alone)."""

    template: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    seats: Annotated[int, msgspec.Meta(ge=1, le=63)] | None = None
    game: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    options: dict[str, Any] | None = None
    computers: Level | None = None
    game_file: dict[str, Any] | None = None
    library: Annotated[str, msgspec.Meta(max_length=40)] | None = None


class Hello(_Event):
    """Who this browser is: its identity (both absent: the server makes one) and its build."""

    id: IdentityId | None = None
    secret: Annotated[str, msgspec.Meta(min_length=16, max_length=128)] | None = None
    name: Name | None = None
    build: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class Online(_Event):
    on: bool


class Lobby(_Event):
    page: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 0
    q: Annotated[str, msgspec.Meta(max_length=32)] | None = None


class Challenge(_Event):
    """A challenge to ``game`` (a new room), or with ``room``, an invite to the table the
    sender is at (its game; ``game`` and ``options`` are not given then)."""

    to: IdentityId
    game: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    options: dict[str, Any] | None = None
    room: Annotated[str, msgspec.Meta(max_length=40)] | None = None


ChallengeId = Annotated[str, msgspec.Meta(max_length=40)]


class ChallengeAnswer(_Event):
    id: ChallengeId
    accept: bool


class ChallengeCancel(_Event):
    id: ChallengeId


class Rematch(_Event):
    """After a rule game: the same game and options in a new room, the same computers in their
    seats, and an invite to each other person who played."""


class FavouritesOnline(_Event):
    """Which of my favourites are online now (whom I may invite)."""


class Relation(_Event):
    id: IdentityId
    kind: Literal["block", "mute", "favourite"]
    on: bool


class Chat(_Event):
    text: Annotated[str, msgspec.Meta(max_length=2000)]


class OpRef(msgspec.Struct, kw_only=True):
    """Only the ``ref`` and ``opid`` of an ``op`` (the rest is the operation, parsed by
    ``parse_op``)."""

    ref: Ref = None  # type: ignore[assignment]
    opid: OpId | None = None


E = TypeVar("E", bound=msgspec.Struct)
SCHEMAS: dict[str, type[msgspec.Struct]] = {
    "join": Join,
    "seat": Seat,
    "rename": Rename,
    "sync": Sync,
    "game": Game,
    "fair": Fair,
    "host": Host,
    "drag": Drag,
    "op": OpRef,
    "hello": Hello,
    "online": Online,
    "lobby": Lobby,
    "challenge": Challenge,
    "challenge_answer": ChallengeAnswer,
    "challenge_cancel": ChallengeCancel,
    "rematch": Rematch,
    "favourites_online": FavouritesOnline,
    "relation": Relation,
    "chat": Chat,
}
CLIENT_EVENTS = frozenset(SCHEMAS)


def parse(kind: type[E], data: Any, event: str) -> E:
    """``data`` as a ``kind``, or ``bad_request`` naming what is wrong."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise CardtableError(BAD_REQUEST, f"Invalid '{event}': {exc}.") from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise CardtableError(BAD_REQUEST, f"Invalid '{event}': {type(exc).__name__}.") from None


def safe_ref(data: Any) -> int | str | None:
    """The ``ref`` to echo in an error, if the payload carries a valid one."""
    ref = data.get("ref") if isinstance(data, dict) else None
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        return None
    if isinstance(ref, str) and (len(ref) > 64 or not utf8_text(ref)):
        return None
    return ref


def utf8_text(text: str) -> bool:
    """Can ``text`` be written as UTF-8 (no lone surrogate characters)?"""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
