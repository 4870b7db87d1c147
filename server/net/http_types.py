"""The HTTP routes' response bodies as msgspec structs: the routes build their JSON from them and
``server.net.typegen`` derives docs/openapi.json from them (with the request structs the routes
parse, :class:`server.net.messages.CreateRoom`). Field order is the JSON's."""

from __future__ import annotations

from typing import Any, Literal

import msgspec


class RoomCreated(msgspec.Struct, kw_only=True):
    """``POST /api/rooms`` (201): the new room and where to find it."""

    code: str
    display: str
    path: str
    url: str
    template: str
    seats: int
    game: str | None


class RoomInfo(msgspec.Struct, kw_only=True):
    """``GET /api/rooms/{code}``: what a room is, without joining it."""

    code: str
    display: str
    seats: int
    template: str
    players: int
    version: int


class OptionInfo(msgspec.Struct, kw_only=True):
    """A rule game's option as data: the home page renders it without knowing the game."""

    name: str
    label: str
    default: Any
    choices: list[Any]
    description: str


class GameInfo(msgspec.Struct, kw_only=True):
    """``GET /api/games``: one rule game a room can play."""

    name: str
    title: str
    min_players: int
    max_players: int
    options: list[OptionInfo]


class LibraryEntry(msgspec.Struct, kw_only=True):
    """``GET /api/library``: one built-in homemade game."""

    name: str
    title: str
    description: str


class CopyRoom(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/rooms/{code}/copy``: copy the layout, or (``positions``) everything."""

    positions: bool = False


class DeckParse(msgspec.Struct, kw_only=True):
    """``POST /api/decks/parse``: a deck list's text and its format."""

    text: str
    format: Literal["list", "csv"] = "list"


class ParsedCard(msgspec.Struct, kw_only=True):
    text: str
    color: str
    count: int
    image: str | None


class DeckParsed(msgspec.Struct, kw_only=True):
    cards: list[ParsedCard]


class ImageStored(msgspec.Struct, kw_only=True):
    """``POST /api/rooms/{code}/images`` (201): the image's sha256, its type and its address."""

    hash: str
    type: str
    url: str


class Health(msgspec.Struct, kw_only=True):
    """``GET /healthz``: 200 with "ok", 503 with "degraded" when the store is unreachable."""

    status: Literal["ok", "degraded"]
    store: Literal["ok", "unreachable"]


class Ready(msgspec.Struct, kw_only=True):
    """``GET /readyz``: 200 "ready" only while the store answers and this process's feed
    subscriber reads other processes' commits; 503 "not ready" otherwise."""

    status: Literal["ready", "not ready"]
    store: Literal["ok", "unreachable"]
    feed: Literal["ok", "down"]


class ErrorBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Every refused request: the ``error`` event's body (docs/protocol.md, error codes);
    ``retryable`` and ``rule`` only when they say something."""

    code: str
    message: str
    ref: int | str | None
    retryable: bool = False
    rule: str | None = None  # a rules refusal: the rule's code (`must_follow_suit`)
