"""Table objects and the table itself, as msgspec structs that encode straight to msgpack.

Every object has an id, a position (x, y in table units), a z-order, a rotation, a lock flag and
``v``, the room version at which it last changed (clients send it back as ``ov`` so a move made on
a stale view is refused with ``conflict``). A card lives in exactly one place: loose on the table
(``parent`` None), in a stack, or in a seat's hand.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from server.table.steps import Step

TABLE_W = 1600.0
TABLE_H = 1000.0


class Placed(msgspec.Struct, kw_only=True):
    """What every table object has: where it is, its z-order and rotation, a lock, a version."""

    x: float = 0.0
    y: float = 0.0
    z: int = 0
    rot: int = 0
    locked: bool = False
    v: int = 0


class Card(Placed, tag="card", kw_only=True):
    id: str
    face: str
    back: str = "blue"
    up: bool = False
    parent: str | None = None
    # The pile this card was made in (a deck's id; "" if unknown): where a saved layout puts it
    # back when it is in a hand. Never sent to a client (view.py, events.SERVER_ONLY).
    home: str = ""


class Stack(Placed, tag="stack", kw_only=True):
    """An ordered pile of cards, bottom first. A holder (zone) stays when empty and has a label."""

    id: str
    cards: list[str] = msgspec.field(default_factory=list)
    layout: str = "pile"  # "pile": only the top card can show; "row": fanned, every card shows
    holder: bool = False
    label: str = ""
    w: float = 0.0
    h: float = 0.0
    owner: int | None = None  # a rule game's zone that belongs to the player in this seat
    # Where spreading moved it, [from_x, from_y, to_x, to_y] ([]: it did not): gathered while
    # still there, it goes back (server.table.spread). Never sent to a client.
    spread: list[float] = msgspec.field(default_factory=list)


class Hand(Placed, tag="hand", kw_only=True):
    """A seat's private hand. Only that seat sees its cards (ids, order, faces); everyone else
    sees how many it holds. A card that leaves a hand for anywhere else gets a new id."""

    id: str
    seat: int
    cards: list[str] = msgspec.field(default_factory=list)


class Chips(Placed, tag="chips", kw_only=True):
    id: str
    count: int = 0
    color: str = "red"
    value: int = 1
    label: str = ""
    owner: int | None = None


class Counter(Placed, tag="counter", kw_only=True):
    id: str
    value: int = 0
    step: int = 1
    label: str = ""
    owner: int | None = None


class Die(Placed, tag="die", kw_only=True):
    id: str
    sides: int = 6
    value: int = 1
    label: str = ""  # its name (the ``name`` operation); "": none


class Label(Placed, tag="label", kw_only=True):
    id: str
    text: str = ""
    owner: int | None = None


class Button(Placed, tag="button", kw_only=True):
    """An automation button: any seated player presses it to run its steps in one commit."""

    id: str
    label: str = ""
    steps: list[Step] = msgspec.field(default_factory=list)
    w: float = 120.0
    h: float = 48.0


BOARD_ID = "board"


class Board(Placed, tag="board", kw_only=True):
    """The room's settings that every view shows: who may edit (``edit``: "host" or "all"),
    the table's background (a colour or an uploaded image's sha256) and the game's title.
    There is at most one, with id ``board``; a room without one has the defaults."""

    id: str = BOARD_ID
    edit: str = "host"
    background: str = ""
    title: str = ""
    description: str = ""


Obj = Card | Stack | Hand | Chips | Counter | Die | Label | Button | Board
Container = Stack | Hand


def kind_of(cls: type[Obj] | Obj) -> str:
    """An object's kind, its ``t`` on the wire: the struct's msgspec tag (the one list)."""
    kind = cls if isinstance(cls, type) else type(cls)
    return str(kind.__struct_config__.tag)


KINDS: dict[str, type[Obj]] = {kind_of(c): c for c in get_args(Obj)}


class Player(msgspec.Struct, kw_only=True):
    id: str
    name: str
    token_hash: str
    seat: int | None = None
    # Room version at which this player last changed seat: deltas logged before it were filtered
    # for another view, so a resync from earlier gets a snapshot instead.
    seat_since: int = 0
    host: bool = False
    status: str = "online"  # "online" | "reconnecting" (disconnected, seat held for the grace)
    away_since: float = 0.0
    bot: bool = False  # a computer player run by the server (rule rooms only)
    # A computer's level (plugins.game.LEVELS); rooms stored before levels read "normal".
    level: str = "normal"
    identity: str | None = None  # the browser identity that joined (``hello``), if any


class Former(msgspec.Struct, kw_only=True):
    """A person who left the room (away past the grace period): remembered for as long as the
    room lives, so the same browser (its token or identity) comes back as the same player, to
    its seat if nobody has taken it, and the room's creator is host again on return."""

    id: str
    name: str
    token_hash: str
    seat: int | None = None
    identity: str | None = None
    left_at: float = 0.0


class UndoEntry(msgspec.Struct, kw_only=True):
    """What one player's last operation changed, to put back if nobody touched it since, and
    (``older``) the player's undoable operations before it, oldest first."""

    version: int
    before: list[Obj]
    created: list[str]
    removed: list[str] = msgspec.field(default_factory=list)
    # New id -> old id of each card that left a hand (and so got a new id) in the operation.
    renamed: dict[str, str] = msgspec.field(default_factory=dict)
    # Object id -> the version it must still have for this entry to be undone, where that is
    # not ``version``: an undo of the player's own later operation stamped it again.
    expect: dict[str, int] = msgspec.field(default_factory=dict)
    # The player's earlier entries (each with ``older`` empty), oldest first. Rooms stored
    # before undo went back more than one step read [].
    older: list[UndoEntry] = msgspec.field(default_factory=list)


class FairDeal(msgspec.Struct, kw_only=True):
    """One deal's provably fair secret and its public side (:mod:`server.game.fairness`): the
    server's seed (hex; never sent to a client before its hand is over), its commitment, and
    the values seated pages sent for it, by table seat."""

    deal: int
    seed: str
    commitment: str
    values: dict[int, str] = msgspec.field(default_factory=dict)


class GameSlot(msgspec.Struct, kw_only=True, dict=True):
    """The rule game a room plays (:mod:`server.game.rules`), as stored with the room.

    ``name`` and ``options`` (resolved), ``fill`` (the server plays empty or away seats),
    ``state`` (the engine's dump; ``None`` while players sit down), ``seats`` (engine player
    ``p`` plays from table seat ``seats[p]``), ``deal`` (the projection's deal number), ``zones``
    and ``markers`` (ids the projection owns), ``deadline`` (when the engine's scheduled action
    is due, epoch seconds) and ``delay`` (its length). Rooms stored before it was a struct held
    the same keys in a map, which decodes to it. The process keeps the decoded engine state
    beside it (an attribute that is not stored: :func:`server.game.rules.session`)."""

    name: str
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    fill: bool = False
    state: dict[str, Any] | None = None
    seats: list[int] = msgspec.field(default_factory=list)
    deal: int | None = None
    zones: list[str] = msgspec.field(default_factory=list)
    markers: list[str] = msgspec.field(default_factory=list)
    deadline: float | None = None
    delay: float | None = None
    # Provably fair deals (server.game.fairness): the next deal's seed, committed and taking
    # values; the deal being played (its seed still secret), with the engine state it began
    # from and the actions since, for its hand record. Stored with the room, never sent.
    fair_next: FairDeal | None = None
    fair_now: FairDeal | None = None
    fair_start: dict[str, Any] | None = None
    fair_actions: list[dict[str, Any]] = msgspec.field(default_factory=list)
    # A room made for one person against computers (POST /api/rooms with ``computers``): its
    # start waits for the people's values for deal 1 until ``start_due`` (epoch seconds).
    value_wait: bool = False
    start_due: float | None = None


class Table(msgspec.Struct, kw_only=True):
    code: str
    version: int = 0
    seats: int = 4
    template: str = "blank"
    objects: dict[str, Obj] = msgspec.field(default_factory=dict)
    players: dict[str, Player] = msgspec.field(default_factory=dict)
    zmax: int = 0
    undo: dict[str, UndoEntry] = msgspec.field(default_factory=dict)
    game: GameSlot | None = None  # a rule game, if one is on
    # When a computer player may next move (epoch seconds): the last commit's time plus the
    # computers' pause, recorded by the reducer at every commit; ``None``: no computer has a move
    # to make. Every process honours it. Rooms stored before it was kept read 0.0: at once.
    bot_due: float | None = 0.0
    created_at: float = 0.0
    locked: bool = False  # the host closed the room to new players
    removed: list[str] = msgspec.field(default_factory=list)  # token hashes of removed players
    log: list[str] = msgspec.field(default_factory=list)  # the last public log lines
    log_at: list[float] = msgspec.field(default_factory=list)  # when each log line was written
    log_burst: str = ""  # the burst key of the last log line (server.table.change.Change.burst)
    public: bool = False  # the host listed the room in the lobby
    former: list[Former] = msgspec.field(default_factory=list)  # people who left, newest last
    creator: str = ""  # the player id of the room's first person: host whenever present
    # Provably fair shuffles in free play, always (server.table.fairplay; a new table commits
    # to shuffle 1): the next shuffle's committed seed and the values sent for it; the records
    # of shuffles made (seeds secret until the host reveals them); revealed ones, for the
    # commit to store.
    fair_shuffle: FairDeal | None = None
    fair_shuffles: list[dict[str, Any]] = msgspec.field(default_factory=list)
    fair_revealed: list[dict[str, Any]] = msgspec.field(default_factory=list)

    def log_times(self) -> list[float]:
        """When each line of ``log`` was written, epoch seconds (0: before times were kept)."""
        n = len(self.log)
        at = self.log_at[-n:] if n else []
        return [*([0.0] * (n - len(at))), *at]

    def seated(self) -> dict[int, Player]:
        return {p.seat: p for p in self.players.values() if p.seat is not None}


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Table)


def encode_table(table: Table) -> bytes:
    return _encoder.encode(table)


def decode_table(blob: bytes) -> Table:
    return _decoder.decode(blob)


def hand_id(seat: int) -> str:
    return f"hand{seat}"
