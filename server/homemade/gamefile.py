"""Game files: a homemade game's layout (and, if asked, its position) as versioned JSON.

``export_game`` writes a table as a file of the current format (docs/game-file.md describes
it); ``load_game`` checks an untrusted file completely (every field's type and range, unknown
fields, counts, every image sniffed and hashed, every id a button names) and only then builds a
new table from it, so a bad file is refused with a message naming the problem and nothing of it
is half-loaded. Older formats are upgraded step by step (``UPGRADES``) before the check, so
files saved by earlier versions keep loading.
"""

from __future__ import annotations

import base64
import binascii
import random
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec

from server.errors import BAD_REQUEST, LIMIT, CardtableError
from server.homemade.images import MAX_IMAGE_BYTES, MAX_IMAGES_PER_ROOM, check_image
from server.table import fairplay
from server.table import steps as S
from server.table.apply import Limits, board, new_id
from server.table.decks import HASH_RE, Color, ImageHash, Look, custom_face, read_face
from server.table.objects import (
    BOARD_ID,
    TABLE_H,
    TABLE_W,
    Board,
    Button,
    Card,
    Chips,
    Counter,
    Die,
    Hand,
    Label,
    Obj,
    Stack,
    Table,
    hand_id,
)

FORMAT: Literal["cardtable-game"] = "cardtable-game"
VERSION: Literal[1] = 1
MAX_FILE_BYTES = 16 * 1024 * 1024  # a POSTed game file, images included

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
Coord = Annotated[float, msgspec.Meta(ge=-10000.0, le=10000.0)]
Size = Annotated[float, msgspec.Meta(ge=0, le=2000)]
ZOrder = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]
Text = Annotated[str, msgspec.Meta(max_length=200)]
SeatNo = Annotated[int, msgspec.Meta(ge=0, le=15)]
Amount = Annotated[int, msgspec.Meta(ge=-1_000_000, le=1_000_000)]
CardText = Annotated[str, msgspec.Meta(max_length=120)]
Face = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
Many = Annotated[int, msgspec.Meta(ge=1, le=500)]


class FileCard(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """``count`` identical cards: a standard ``face`` code, or custom ``text``/``image``;
    ``deck`` names the pile they belong to when they are somewhere else (a hand, a discard)."""

    face: Face | None = None
    text: CardText = ""
    color: Color = ""
    image: ImageHash | None = None
    up: bool = False
    back: Look = "blue"
    deck: Id | None = None
    count: Many = 1


class _Obj(
    msgspec.Struct, tag_field="kind", forbid_unknown_fields=True, omit_defaults=True, kw_only=True
):
    x: Coord = 0.0
    y: Coord = 0.0
    z: ZOrder = 0
    rot: Annotated[int, msgspec.Meta(ge=0, le=359)] = 0
    locked: bool = False


class FilePile(_Obj, tag="pile"):
    """A deck, a pile, or (``holder``) a zone that stays when empty; cards bottom first."""

    id: Id
    label: Text = ""
    layout: Literal["pile", "row"] = "pile"
    holder: bool = False
    w: Size = 0.0
    h: Size = 0.0
    owner: SeatNo | None = None
    cards: Annotated[list[FileCard], msgspec.Meta(max_length=500)] = msgspec.field(
        default_factory=list
    )


class FileLooseCard(_Obj, tag="card"):
    face: Face | None = None
    text: CardText = ""
    color: Color = ""
    image: ImageHash | None = None
    up: bool = False
    back: Look = "blue"
    deck: Id | None = None


class FileHand(_Obj, tag="hand"):
    seat: SeatNo
    cards: Annotated[list[FileCard], msgspec.Meta(max_length=500)] = msgspec.field(
        default_factory=list
    )


class FileChips(_Obj, tag="chips"):
    id: Id
    count: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0
    color: Color = "red"
    value: Amount = 1
    label: Text = ""
    owner: SeatNo | None = None


class FileCounter(_Obj, tag="counter"):
    id: Id
    value: Amount = 0
    step: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1
    label: Text = ""
    owner: SeatNo | None = None


class FileDie(_Obj, tag="die"):
    id: Id
    sides: Annotated[int, msgspec.Meta(ge=2, le=100)] = 6
    value: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1
    label: Text = ""


class FileLabel(_Obj, tag="label"):
    id: Id
    text: Text = ""
    owner: SeatNo | None = None


class FileButton(_Obj, tag="button"):
    id: Id
    label: Text = ""
    steps: S.Steps = msgspec.field(default_factory=list)
    w: Size = 120.0
    h: Size = 48.0


FileObj = (
    FilePile | FileLooseCard | FileHand | FileChips | FileCounter | FileDie | FileLabel | FileButton
)


class GameFile(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    format: Literal["cardtable-game"]
    version: Literal[1]
    title: Annotated[str, msgspec.Meta(max_length=80)] = ""
    description: Annotated[str, msgspec.Meta(max_length=500)] = ""
    seats: Annotated[int, msgspec.Meta(ge=1, le=8)] = 4
    edit: Literal["host", "all"] = "host"
    background: Look = ""
    positions: bool = False
    images: dict[ImageHash, str] = msgspec.field(default_factory=dict)
    objects: Annotated[list[FileObj], msgspec.Meta(max_length=5000)] = msgspec.field(
        default_factory=list
    )


# --- older formats ----------------------------------------------------------------------------


class _V0Deck(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    x: Coord = 0.0
    y: Coord = 0.0
    label: Text = ""
    faces: Annotated[list[Face], msgspec.Meta(max_length=500)]


class _V0Counter(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    x: Coord = 0.0
    y: Coord = 0.0
    label: Text = ""
    value: Amount = 0


class _V0Label(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    x: Coord = 0.0
    y: Coord = 0.0
    text: Text = ""


class GameFileV0(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The first, hand-written shape: decks of face codes, counters and labels, no ids."""

    version: Literal[0]
    name: Annotated[str, msgspec.Meta(max_length=80)] = ""
    seats: Annotated[int, msgspec.Meta(ge=1, le=8)] = 4
    decks: Annotated[list[_V0Deck], msgspec.Meta(max_length=100)] = msgspec.field(
        default_factory=list
    )
    counters: Annotated[list[_V0Counter], msgspec.Meta(max_length=100)] = msgspec.field(
        default_factory=list
    )
    labels: Annotated[list[_V0Label], msgspec.Meta(max_length=100)] = msgspec.field(
        default_factory=list
    )


def upgrade_v0(data: dict[str, Any]) -> dict[str, Any]:
    """A version 0 file as version 1: each deck a pile ``deck1``.., counters, labels."""
    old = _convert(data, GameFileV0)
    objects: list[dict[str, Any]] = []
    for i, d in enumerate(old.decks, 1):
        objects.append(
            {
                "kind": "pile",
                "id": f"deck{i}",
                "x": d.x,
                "y": d.y,
                "z": i,
                "label": d.label,
                "cards": [{"face": f} for f in d.faces],
            }
        )
    for i, c in enumerate(old.counters, 1):
        objects.append(
            {
                "kind": "counter",
                "id": f"counter{i}",
                "x": c.x,
                "y": c.y,
                "label": c.label,
                "value": c.value,
            }
        )
    for i, lab in enumerate(old.labels, 1):
        objects.append(
            {"kind": "label", "id": f"label{i}", "x": lab.x, "y": lab.y, "text": lab.text}
        )
    return {
        "format": FORMAT,
        "version": 1,
        "title": old.name,
        "seats": old.seats,
        "objects": objects,
    }


UPGRADES = {0: upgrade_v0}  # version n -> a function making it version n + 1


# --- loading ----------------------------------------------------------------------------------


@dataclass
class Loaded:
    """A checked game file, ready to become a room's table."""

    file: GameFile
    images: dict[str, bytes]


def _bad(message: str) -> CardtableError:
    return CardtableError(BAD_REQUEST, f"Invalid game file: {message}")


def _convert(data: Any, kind: type[Any]) -> Any:
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise _bad(f"{exc}.") from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise _bad(f"{type(exc).__name__}.") from None


def _decode_image(digest: str, text: str) -> bytes:
    if len(text) > (MAX_IMAGE_BYTES + 2) // 3 * 4 + 4:
        raise CardtableError(
            LIMIT,
            f"Invalid game file: image {digest[:12]}… is larger than "
            f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB.",
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _bad(f"image {digest[:12]}… is not valid base64.") from None
    try:
        real, _ = check_image(data)
    except CardtableError as err:
        raise CardtableError(
            err.code, f"Invalid game file: image {digest[:12]}…: {err.message}"
        ) from None
    if real != digest:
        raise _bad(f"image {digest[:12]}… does not match its sha256 ({real[:12]}…).")
    return data


def _card_faces(c: FileCard | FileLooseCard, where: str) -> str:
    if c.face is not None:
        if c.text or c.image or c.color:
            raise _bad(f"{where}: a card has either a face code or text/colour/image.")
        return c.face
    if not c.text and not c.image:
        raise _bad(f"{where}: a card needs a face, text or an image.")
    return custom_face(c.text, c.color, c.image)


def _step_ids(step: S.Step) -> list[str]:
    if isinstance(step, S.Gather):
        return [step.to, *step.from_]
    if isinstance(step, S.DealStep):
        return [step.id] + ([] if step.to == "hands" else [step.to])
    if isinstance(step, S.ChipsStep):
        return [step.id] + ([step.to] if step.to else [])
    return [step.id]


def load_game(data: Any, limits: Limits | None = None) -> Loaded:
    """Check an untrusted game file (any supported version); raise naming the problem."""
    limits = limits or Limits()
    if not isinstance(data, dict):
        raise _bad("it must be a JSON object.")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _bad("'version' must be a whole number.")
    if version > VERSION or version not in (*UPGRADES, VERSION):
        raise _bad(f"format version {version} is not one this server reads (0 to {VERSION}).")
    while version < VERSION:
        data = UPGRADES[version](data)
        version += 1
    f: GameFile = _convert(data, GameFile)
    if len(f.images) > MAX_IMAGES_PER_ROOM:
        raise CardtableError(
            LIMIT,
            f"Invalid game file: at most {MAX_IMAGES_PER_ROOM} images; it has {len(f.images)}.",
        )
    images = {d: _decode_image(d, text) for d, text in f.images.items()}
    needed: set[str] = set()
    ids: set[str] = set()
    seats_seen: set[int] = set()
    cards = objects = 0
    for i, o in enumerate(f.objects):
        where = f"objects[{i}] ({o.__struct_config__.tag})"
        if isinstance(o, FileHand):
            if o.seat >= f.seats or o.seat in seats_seen:
                raise _bad(f"{where}: seat {o.seat} is not a free seat of {f.seats}.")
            seats_seen.add(o.seat)
        elif isinstance(o, FileLooseCard):
            objects += 1
            cards += 1
            _card_faces(o, where)
        else:
            if o.id in ids or o.id == BOARD_ID or o.id.startswith("hand"):
                raise _bad(f"{where}: the id {o.id!r} is used twice or reserved.")
            ids.add(o.id)
            objects += 1
        held = (
            o.cards
            if isinstance(o, FilePile | FileHand)
            else ([o] if isinstance(o, FileLooseCard) else [])
        )
        n = 0
        for c in held:
            _card_faces(c, where)
            n += getattr(c, "count", 1)
            if c.image:
                needed.add(c.image)
            if HASH_RE.match(c.back):
                needed.add(c.back)
        if isinstance(o, FilePile | FileHand):
            if n > limits.max_deck:
                raise CardtableError(
                    LIMIT, f"Invalid game file: {where} holds {n} cards; at most {limits.max_deck}."
                )
            cards += n
    if objects + cards + f.seats > limits.max_objects:
        raise CardtableError(
            LIMIT,
            f"Invalid game file: {objects + cards} objects and cards; a "
            f"room holds at most {limits.max_objects}.",
        )
    piles = {o.id for o in f.objects if isinstance(o, FilePile)}
    for i, o in enumerate(f.objects):
        members: list[Any] = o.cards if isinstance(o, FilePile | FileHand) else [o]
        for member in members:
            deck = getattr(member, "deck", None)
            if deck is not None and deck not in piles:
                raise _bad(
                    f"objects[{i}] ({o.__struct_config__.tag}): a card's deck {deck!r} is not "
                    "a pile of the file."
                )
        if isinstance(o, FileButton):
            for j, step in enumerate(o.steps, 1):
                missing = [x for x in _step_ids(step) if x not in ids]
                if missing:
                    raise _bad(
                        f"objects[{i}] (button {o.id!r}) step {j} names {missing[0]!r}, "
                        "which the file does not have."
                    )
    if HASH_RE.match(f.background):
        needed.add(f.background)
    absent = sorted(needed - set(images))
    if absent:
        raise _bad(f"image {absent[0][:12]}… is used but not in 'images'.")
    return Loaded(f, images)


def _card(
    c: FileCard | FileLooseCard, rng: random.Random | None, home: str = "", **at: Any
) -> Card:
    return Card(
        id=new_id("c", rng),
        face=_card_faces(c, ""),
        back=c.back,
        up=c.up,
        home=c.deck or home,
        **at,
    )


def build_table(loaded: Loaded, code: str, now: float, rng: random.Random | None = None) -> Table:
    """A new room's table from a checked file (new card ids; the file's other ids kept)."""
    f = loaded.file
    t = Table(code=code, seats=f.seats, template="blank", created_at=now)
    for s in range(f.seats):
        t.objects[hand_id(s)] = Hand(id=hand_id(s), seat=s)
    t.objects[BOARD_ID] = Board(
        edit=f.edit, background=f.background, title=f.title, description=f.description
    )
    for o in f.objects:
        base: dict[str, Any] = {"x": o.x, "y": o.y, "z": o.z, "rot": o.rot, "locked": o.locked}
        t.zmax = max(t.zmax, o.z)
        obj: Obj
        if isinstance(o, FilePile | FileHand):
            if isinstance(o, FilePile):
                obj = Stack(
                    id=o.id,
                    label=o.label,
                    layout=o.layout,
                    holder=o.holder,
                    w=o.w,
                    h=o.h,
                    owner=o.owner,
                    **base,
                )
            else:
                obj = t.objects[hand_id(o.seat)]
                assert isinstance(obj, Hand)
                obj.x, obj.y = o.x, o.y
            for c in o.cards:
                for _ in range(c.count):
                    home = obj.id if isinstance(o, FilePile) else ""
                    card = _card(c, rng, home, parent=obj.id, x=o.x, y=o.y)
                    t.objects[card.id] = card
                    obj.cards.append(card.id)
        elif isinstance(o, FileLooseCard):
            obj = _card(o, rng, **base)
        elif isinstance(o, FileChips):
            obj = Chips(
                id=o.id,
                count=o.count,
                color=o.color,
                value=o.value,
                label=o.label,
                owner=o.owner,
                **base,
            )
        elif isinstance(o, FileCounter):
            obj = Counter(id=o.id, value=o.value, step=o.step, label=o.label, owner=o.owner, **base)
        elif isinstance(o, FileDie):
            obj = Die(id=o.id, sides=o.sides, value=min(o.value, o.sides), label=o.label, **base)
        elif isinstance(o, FileLabel):
            obj = Label(id=o.id, text=o.text, owner=o.owner, **base)
        else:
            obj = Button(id=o.id, label=o.label, steps=list(o.steps), w=o.w, h=o.h, **base)
        t.objects[obj.id] = obj
    fairplay.commit_to(t, 1, rng or random.SystemRandom())  # free play's shuffle 1, fixed now
    return t


# --- exporting --------------------------------------------------------------------------------


def _file_card(card: Card, held: set[str], piles: set[str]) -> FileCard:
    spec = read_face(card.face)
    back = card.back if not HASH_RE.match(card.back) or card.back in held else "blue"
    deck = card.home if card.home in piles and card.home != card.parent else None
    if spec is None:
        return FileCard(face=card.face, up=card.up, back=back, deck=deck)
    image = spec.image if spec.image in held else None
    text = spec.text or ("(missing image)" if spec.image and image is None else "")
    return FileCard(text=text, color=spec.color, image=image, up=card.up, back=back, deck=deck)


def _runs(cards: list[FileCard]) -> list[FileCard]:
    """Consecutive identical cards as one entry with a count."""
    out: list[FileCard] = []
    for c in cards:
        if out and msgspec.structs.replace(out[-1], count=1) == c and out[-1].count < 500:
            out[-1].count += 1
        else:
            out.append(c)
    return out


def _own_pile(t: Table, card: Card) -> Stack:
    """Where a layout file puts a card that is in a hand: the deck it was made in (made again
    beside the first pile if it was dealt out and went away), else a pile holding a card that
    looks the same (a card of a table from before cards knew their deck), else ``_home``."""
    own = t.objects.get(card.home) if card.home else None
    if isinstance(own, Stack):
        return own
    if card.home and own is None:
        first = _home(t)
        made = Stack(id=card.home, x=first.x + 140, y=first.y, z=first.z)
        t.objects[made.id] = made
        return made
    for s in sorted((o for o in t.objects.values() if isinstance(o, Stack)), key=lambda s: s.id):
        for cid in s.cards:
            other = t.objects.get(cid)
            if isinstance(other, Card) and (other.face, other.back) == (card.face, card.back):
                return s
    return _home(t)


def _home(t: Table) -> Stack:
    """The pile for a hand's card of unknown deck: pile ``deck``, else the lowest."""
    piles = sorted(
        (o for o in t.objects.values() if isinstance(o, Stack)),
        key=lambda s: (s.id != "deck", s.holder, s.z, s.id),
    )
    if piles:
        return piles[0]
    deck = Stack(id="deck", holder=True, label="Deck", x=TABLE_W / 2 - 55, y=TABLE_H / 2 - 75)
    t.objects[deck.id] = deck
    return deck


def export_game(
    table: Table, images: dict[str, bytes], *, positions: bool = False
) -> dict[str, Any]:
    """The table as a game file (a JSON-ready dict). Without ``positions`` it is the layout:
    every card in a hand goes back to its own deck and every pile's cards are listed in a fixed
    order, so the file says nothing of hands or of a shuffled order. ``images`` are the room's
    images; a reference to one the room does not hold is left out."""
    t = msgspec.msgpack.decode(msgspec.msgpack.encode(table), type=Table)  # a private copy
    held = set(images)
    if not positions:
        hands = [o for o in t.objects.values() if isinstance(o, Hand) and o.cards]
        for h in hands:
            for cid in h.cards:
                card = t.objects[cid]
                assert isinstance(card, Card)
                home = _own_pile(t, card)
                card.up, card.parent = False, home.id
                home.cards.append(cid)
            h.cards = []
    out: list[tuple[tuple[int, str, str], FileObj]] = []
    used: set[str] = set()
    piles = {o.id for o in t.objects.values() if isinstance(o, Stack)}
    for o in t.objects.values():
        base: dict[str, Any] = {
            "x": o.x,
            "y": o.y,
            "z": o.z,
            "rot": o.rot % 360,
            "locked": o.locked,
        }
        fo: FileObj
        if isinstance(o, Stack | Hand):
            fcs = [_file_card(t.objects[c], held, piles) for c in o.cards]  # type: ignore[arg-type]
            if not positions:
                fcs.sort(key=lambda c: msgspec.json.encode(c))
            fcs = _runs(fcs)
            if isinstance(o, Stack):
                fo = FilePile(
                    id=o.id,
                    label=o.label,
                    layout="row" if o.layout == "row" else "pile",
                    holder=o.holder,
                    w=o.w,
                    h=o.h,
                    owner=o.owner,
                    cards=fcs,
                    **base,
                )
            else:
                fo = FileHand(seat=o.seat, cards=fcs, x=o.x, y=o.y)
        elif isinstance(o, Card):
            if o.parent is not None:
                continue
            fc = _file_card(o, held, piles)
            fo = FileLooseCard(
                deck=fc.deck,
                face=fc.face,
                text=fc.text,
                color=fc.color,
                image=fc.image,
                up=fc.up,
                back=fc.back,
                **base,
            )
        elif isinstance(o, Chips):
            fo = FileChips(
                id=o.id,
                count=o.count,
                color=o.color,
                value=o.value,
                label=o.label,
                owner=o.owner,
                **base,
            )
        elif isinstance(o, Counter):
            fo = FileCounter(
                id=o.id, value=o.value, step=o.step, label=o.label, owner=o.owner, **base
            )
        elif isinstance(o, Die):
            fo = FileDie(id=o.id, sides=o.sides, value=o.value, label=o.label, **base)
        elif isinstance(o, Label):
            fo = FileLabel(id=o.id, text=o.text, owner=o.owner, **base)
        elif isinstance(o, Button):
            fo = FileButton(id=o.id, label=o.label, steps=list(o.steps), w=o.w, h=o.h, **base)
        else:
            continue  # the board: its settings are the file's own fields
        for c in getattr(fo, "cards", None) or [fo]:
            for ref in (getattr(c, "image", None), getattr(c, "back", "")):
                if ref and ref in held:
                    used.add(ref)
        key = (
            o.z,
            str(fo.__struct_config__.tag),
            getattr(fo, "id", "") or msgspec.json.encode(fo).decode(),
        )
        out.append((key, fo))
    out.sort(key=lambda p: p[0])
    b = board(t)
    background = b.background if b is not None else ""
    if HASH_RE.match(background):
        if background in held:
            used.add(background)
        else:
            background = ""
    edit: Literal["host", "all"] = "all" if b is not None and b.edit == "all" else "host"
    f = GameFile(
        format=FORMAT,
        version=VERSION,
        title=b.title if b else "",
        description=b.description if b else "",
        seats=t.seats,
        edit=edit,
        background=background,
        positions=positions,
        images={d: base64.b64encode(images[d]).decode() for d in sorted(used)},
        objects=[fo for _, fo in out],
    )
    out_file: dict[str, Any] = msgspec.to_builtins(f)
    return out_file
