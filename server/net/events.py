"""The events the server sends, one msgspec struct per payload: the schema of every server ->
client event (docs/protocol.md), from which ``server.net.typegen`` writes the TypeScript types
(``ServerEvents`` in web/src/net/protocol.gen.ts).

Where a payload is built in this layer and off the hot path (``joined``, ``ack``, ``removed``,
``hello_ok``, ``lobby``, ...) the handlers build it through its struct. Where a lower layer
builds it as a dict (the table's snapshot and per-view deltas, the game view, a challenge's
events, chat lines, ``error``), the struct is the schema only: delta fan-out is hot and gets no
conversion, and tests/server/test_server_events.py holds every payload a session receives to
these structs (``forbid_unknown_fields``, ``strict``).

A field that may be absent has the default ``UNSET`` (``?:`` in TypeScript); ``None`` in a type
means the field is present and may be null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

import msgspec
from msgspec import UNSET, UnsetType

from plugins.game import LEVELS
from server.net.http_types import ErrorBody
from server.net.messages import DragItem
from server.table import objects as O
from server.table.steps import Step

# An engine action: an object with a ``type`` (Spades ``{"type": "bid", "n": 3}``); typegen
# writes it as the TypeScript ``GameAction``.
Action = Annotated[dict[str, Any], msgspec.Meta(extra={"ts": "GameAction"})]
Ref = int | str | None
# A computer's level (plugins.game.LEVELS), on its player and its game player.
Level = Literal["easy", "normal", "hard"]
if get_args(Level) != LEVELS:  # pragma: no cover - caught at import, by every test
    raise AssertionError("events.Level must be plugins.game.LEVELS")


class _Event(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


# --- table objects as a seat sees them (server.table.view.view_object) ----------------------

# How view_object changes a stored object on its way out: tagged by ``t``; these fields are
# left out where this seat may not see them (a face down card's face; another seat's hand's
# cards); a hand gains ``n``, its card count; a stack's ``layout`` is one of two.
VIEW_TAG = "t"
MAY_HIDE: dict[str, tuple[str, ...]] = {"card": ("face",), "hand": ("cards",)}
VIEW_ADDS: dict[str, dict[str, Any]] = {"hand": {"n": int}}
SERVER_ONLY: dict[str, tuple[str, ...]] = {"card": ("home",), "stack": ("spread",)}  # not sent
VIEW_TYPES: dict[str, dict[str, Any]] = {
    "stack": {"layout": Literal["pile", "row"]},
    "button": {"steps": list[Step]},
}


def _sent(cls: type[msgspec.Struct]) -> type[msgspec.Struct]:
    tag = str(cls.__struct_config__.tag)
    hide = MAY_HIDE.get(tag, ())
    retype = VIEW_TYPES.get(tag, {})
    fields: list[Any] = []
    for f in msgspec.structs.fields(cls):
        if f.encode_name in SERVER_ONLY.get(tag, ()):
            continue
        t = retype.get(f.encode_name, f.type)
        if f.encode_name in hide:
            fields.append((f.encode_name, t | UnsetType, UNSET))
        else:
            fields.append((f.encode_name, t))
    fields.extend(VIEW_ADDS.get(tag, {}).items())
    made = msgspec.defstruct(
        f"{cls.__name__}Obj",
        fields,
        tag_field=VIEW_TAG,
        tag=tag,
        forbid_unknown_fields=True,
        kw_only=True,
        module=__name__,
    )
    made.__doc__ = cls.__doc__
    return made


SENT_OBJECTS: tuple[type[msgspec.Struct], ...] = tuple(_sent(c) for c in get_args(O.Obj))
if TYPE_CHECKING:
    SentObj = dict[str, Any]
else:
    SentObj = Union[SENT_OBJECTS]  # noqa: UP007 - a union made at run time


# --- the room ----------------------------------------------------------------------------------


class Player(_Event):
    """Someone in the room (docs/protocol.md, ``Player``)."""

    id: str
    name: str
    seat: int | None
    host: bool
    status: Literal["online", "reconnecting"]
    bot: bool
    level: Level | UnsetType = UNSET  # computers only
    identity: str | UnsetType = UNSET


class Former(_Event):
    """Someone who left the room and may come back, with the seat they had."""

    id: str
    name: str
    seat: int | None


class GamePlayer(_Event):
    """An engine player (turn order) and the table seat that plays it."""

    player: int
    seat: int
    name: str
    team: int
    bot: bool
    level: Level | UnsetType = UNSET  # computers only


class Control(_Event):
    """One of your legal actions and how a person makes it: ``button`` (a button with
    ``label``), ``drag`` (``cards``, or the top card, from ``source`` to ``dest``) or ``prompt``;
    ``group`` gathers controls a widget shows together; ``pick`` > 0: first select that many
    hand cards (they go in the action as ``cards``)."""

    action: Action
    label: str
    kind: Literal["button", "drag", "prompt"]
    source: str | UnsetType = UNSET
    dest: str | UnsetType = UNSET
    cards: list[str] | UnsetType = UNSET
    group: str | UnsetType = UNSET
    pick: int | UnsetType = UNSET


class ScoreRow(_Event):
    label: str
    cells: list[int | float | str]


class Scoreboard(_Event):
    """The score sheet; ``scored``: how many leading columns are scores (the rest, Spades'
    bags, appear in the sheet only)."""

    columns: list[str]
    rows: list[ScoreRow]
    totals: list[int | float]
    note: str
    scored: int


class RevealLine(_Event):
    """One player's cards shown after a hand: melds, the rest, points, a line of words."""

    player: int
    melds: list[list[str]]
    cards: list[str]
    points: int
    note: str


class Outcome(_Event):
    winners: list[int]
    scores: list[int | float]


class Timer(_Event):
    """A visible countdown: ``ends`` in epoch seconds."""

    ends: float
    seconds: float


class FairPending(_Event):
    """The next deal's commitment, waiting for the seated pages' values (docs/protocol.md,
    "Provably fair deals"): its number, the commitment, the table seats whose pages sent one."""

    deal: int
    commitment: str
    sent: list[int]


class GameView(_Event):
    """The rule game's part of a snapshot or delta, the same shape for every game: who plays
    where, whose move, your controls, the scores, the reveal (docs/protocol.md, "Game")."""

    name: str
    title: str
    options: dict[str, Any]
    fill: bool
    min_players: int
    max_players: int
    widgets: list[str]
    waiting: bool
    players: list[GamePlayer]
    me: int | None
    phase: str
    status: str
    to_act: list[int]
    timer: Timer | None
    controls: list[Control]
    hint: str | None
    scoreboard: Scoreboard | None
    reveal: list[RevealLine] | None
    outcome: Outcome | None
    slots: list[list[float]]
    view: dict[str, Any] | None
    legal: list[Action]
    fair: FairPending | None


class PatchLevel(_Event):
    """Keys to replace (or add) and keys to remove, at one level of the game view."""

    set: dict[str, Any] | UnsetType = UNSET
    # ``del`` is a Python keyword: the field is ``drop``, ``del`` on the wire.
    drop: list[str] | UnsetType = msgspec.field(default=UNSET, name="del")


class GamePatch(PatchLevel):
    """What changed in the game view since the one this seat held at version ``v - 1``: apply
    ``del`` then ``set``, and the same inside ``view``."""

    view: PatchLevel | UnsetType = UNSET


class Snapshot(_Event):
    """``snapshot``: the whole room as your seat may see it, at version ``v``."""

    code: str
    v: int
    seats: int
    template: str
    players: list[Player]
    former: list[Former]
    locked: bool
    public: bool
    fair: FairPending | None  # free play: the next fair shuffle, waiting for values
    objects: list[SentObj]
    game: GameView | None
    log: list[str]
    log_at: list[float]
    features: list[str]


class Delta(_Event):
    """``delta``: version ``v`` committed; ``players`` comes with ``former``, ``locked`` and
    ``public``; ``game`` (null: the rules were turned off) or ``game_patch`` when the game view
    changed."""

    v: int
    set: list[SentObj]
    drop: list[str] = msgspec.field(name="del")
    by: str
    log: str | UnsetType = UNSET
    log_replaces: bool | UnsetType = UNSET  # ``log`` replaces the last line (a burst of clicks)
    players: list[Player] | UnsetType = UNSET
    former: list[Former] | UnsetType = UNSET
    locked: bool | UnsetType = UNSET
    public: bool | UnsetType = UNSET
    fair: FairPending | None | UnsetType = UNSET  # free play's next fair shuffle (with players)
    game: GameView | None | UnsetType = UNSET
    game_patch: GamePatch | UnsetType = UNSET


class Joined(_Event):
    """``joined``: you are in the room as ``player``; keep ``token`` to come back.
    ``was_seat``: your old seat, taken while you were away (you watch)."""

    code: str
    player: str
    token: str
    seat: int | None
    name: str
    ref: Ref
    was_seat: int | None


class Ack(_Event):
    """``ack``: your event was committed as version ``v`` (null after a ``sync`` or a social
    event)."""

    ref: Ref
    v: int | None


class Dragging(_Event):
    """``drag``: another player is dragging these objects (the items as the client sent them)."""

    by: str
    items: list[DragItem]


class Removed(_Event):
    """``removed``: your player left the room (``away`` too long, or removed by the ``host``)."""

    reason: Literal["away", "host"]
    message: str


# --- playing with people -------------------------------------------------------------------


class HelloOk(_Event):
    """``hello_ok``: your identity (keep ``secret``) and display name."""

    id: str
    secret: str
    name: str
    ref: Ref


class Relations(_Event):
    """``relations``: the identities you block, mute and favour."""

    block: list[str]
    mute: list[str]
    favourite: list[str]


class LobbyAt(_Event):
    """Where an online player is: a table (``code`` only where the room is public)."""

    code: str | None
    game: str | None
    seats_free: int
    public: bool


class LobbyPlayer(_Event):
    id: str
    name: str
    favourite: bool
    at: LobbyAt | None


class LobbyTable(_Event):
    """A public room: ``game`` null for a free table."""

    code: str
    game: str | None
    title: str
    seats_free: int


class LobbyPage(_Event):
    """``lobby``: a page of online players, and (page 0) the public tables."""

    players: list[LobbyPlayer]
    tables: list[LobbyTable]
    total: int
    page: int
    ref: Ref


class ChallengeSent(_Event):
    id: str
    ref: Ref


class Someone(_Event):
    """An identity and its display name."""

    id: str
    name: str


class Challenged(_Event):
    """``challenged``: someone challenges you to ``game`` with ``options``; with ``invite``,
    invites you to the table they are at (its game; ``None``: a free table)."""

    id: str
    sender: Someone = msgspec.field(name="from")
    game: str | None
    options: dict[str, Any]
    invite: bool | UnsetType = UNSET  # true for an invite (absent: a challenge)


class ChallengeAccepted(_Event):
    """``challenge_accepted``: join room ``code`` in ``seat`` (``None``: an invite to a table
    with no free seat, so watch, or sit if one is free by then)."""

    id: str
    code: str
    game: str | None
    seat: int | None
    invite: bool | UnsetType = UNSET  # true for an invite (absent: a challenge)


class InviteAccepted(_Event):
    """``invite_accepted``: the person you invited (``by``) is on the way to your table."""

    id: str
    by: Someone


class RematchSent(_Event):
    """``rematch_sent``: the new room ``code`` (sit in ``seat``), and whom it invited: ``to``;
    ``skipped``: the players it could not (offline, blocked, or too many challenges)."""

    code: str
    seat: int | None
    to: list[Someone]
    skipped: list[Someone]
    ref: Ref


class FavouritesOnlinePage(_Event):
    """``favourites_online``: my favourites who are online now, by name."""

    players: list[Someone]
    ref: Ref


class ChallengeDeclined(_Event):
    id: str


class ChallengeCancelled(_Event):
    id: str
    sender: Someone = msgspec.field(name="from")


class ChallengeExpired(_Event):
    id: str
    sender: Someone = msgspec.field(name="from")
    to: str


class ChatSender(_Event):
    player: str
    name: str
    identity: str | UnsetType = UNSET


class ChatLine(_Event):
    """A chat line as kept and sent: plain text, never markup; ``at`` in epoch seconds."""

    sender: ChatSender = msgspec.field(name="from")
    text: str
    at: float


class Chat(ChatLine):
    """``chat``: a line said in room ``code``."""

    code: str


class ChatHistory(_Event):
    """``chat_history``: the room's last lines, after ``joined``."""

    code: str
    lines: list[ChatLine]


# Every event the server sends, by name, and its payload's schema.
SERVER_EVENTS: dict[str, type[msgspec.Struct]] = {
    "joined": Joined,
    "snapshot": Snapshot,
    "delta": Delta,
    "drag": Dragging,
    "removed": Removed,
    "ack": Ack,
    "error": ErrorBody,
    "hello_ok": HelloOk,
    "relations": Relations,
    "lobby": LobbyPage,
    "challenge_sent": ChallengeSent,
    "challenged": Challenged,
    "challenge_accepted": ChallengeAccepted,
    "invite_accepted": InviteAccepted,
    "rematch_sent": RematchSent,
    "favourites_online": FavouritesOnlinePage,
    "challenge_declined": ChallengeDeclined,
    "challenge_cancelled": ChallengeCancelled,
    "challenge_expired": ChallengeExpired,
    "chat": Chat,
    "chat_history": ChatHistory,
}
