"""Custom card faces and the deck-list parsers used by the HTTP API, the game files and tests.

A standard card's face is a short code ("H1", "J2"). A custom card's face is one string too,
the compact JSON of ``{"text", "color", "image"}`` (empty parts left out), so that it is hidden
and revealed exactly like a standard face: the view drops the whole ``face`` field of a card a
seat may not see, and nothing else on a card says what is on its face.

A deck list has one card per line: ``text, colour, count``; the text may be quoted ("Draw 2,
then skip", with "" for a quote inside) and colour and count are optional. A CSV file has the
columns ``text``, ``color`` (or ``colour``), ``count`` and ``image``, with or without a header.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Annotated

import msgspec

from server.errors import BAD_REQUEST, LIMIT, CardtableError

MAX_TEXT = 120
MAX_CARDS = 500
HASH_RE = re.compile(r"^[0-9a-f]{64}$")
COLOR_RE = re.compile(r"^[a-z0-9#-]{0,20}$")
Color = Annotated[str, msgspec.Meta(max_length=20, pattern=r"^[a-z0-9#-]*$")]
ImageHash = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
# A card back, a background: a colour name (or #rgb) or an uploaded image's sha256.
Look = Annotated[str, msgspec.Meta(max_length=64, pattern=r"^([a-z0-9#-]{0,20}|[0-9a-f]{64})$")]


class CardSpec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One line of a custom deck: ``count`` cards showing ``text`` and/or ``image``."""

    text: Annotated[str, msgspec.Meta(max_length=MAX_TEXT)] = ""
    color: Color = ""
    count: Annotated[int, msgspec.Meta(ge=1, le=MAX_CARDS)] = 1
    image: ImageHash | None = None


class _Face(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    text: str = ""
    color: str = ""
    image: str = ""


_face_enc = msgspec.json.Encoder()
_face_dec = msgspec.json.Decoder(_Face)


def custom_face(text: str, color: str = "", image: str | None = None) -> str:
    """The face string of a custom card."""
    if not text and not image:
        raise CardtableError(BAD_REQUEST, "A custom card needs text or an image.")
    return _face_enc.encode(_Face(text=text, color=color, image=image or "")).decode()


def read_face(face: str) -> CardSpec | None:
    """The custom card a face string describes, or None for any other face."""
    if not face.startswith("{"):
        return None
    try:
        f = _face_dec.decode(face)
    except msgspec.DecodeError:
        return None
    if (
        len(f.text) > MAX_TEXT
        or not COLOR_RE.match(f.color)
        or (f.image and not HASH_RE.match(f.image))
        or not (f.text or f.image)
    ):
        return None
    return CardSpec(text=f.text, color=f.color, image=f.image or None)


def faces_of(specs: list[CardSpec], cap: int = MAX_CARDS) -> list[str]:
    """Every card's face, ``count`` times each, refusing more than ``cap`` cards in all."""
    total = sum(s.count for s in specs)
    if total > cap:
        raise CardtableError(LIMIT, f"A deck holds at most {cap} cards; this one has {total}.")
    return [custom_face(s.text, s.color, s.image) for s in specs for _ in range(s.count)]


def _row(fields: list[str], line: int, with_image: bool) -> CardSpec | None:
    fields = [f.strip() for f in fields]
    while fields and not fields[-1]:
        fields.pop()
    if not fields:
        return None
    most = 4 if with_image else 3
    if len(fields) > most:
        raise CardtableError(
            BAD_REQUEST,
            f"Line {line}: expected at most {most} fields "
            f"(text, colour, count{', image' if with_image else ''}); quote "
            "text that has commas in it.",
        )
    text = fields[0]
    color = fields[1].lower() if len(fields) > 1 else ""
    count_s = fields[2] if len(fields) > 2 else ""
    image = fields[3].lower() if len(fields) > 3 and fields[3] else None
    if len(text) > MAX_TEXT:
        raise CardtableError(
            BAD_REQUEST, f"Line {line}: card text is longer than {MAX_TEXT} characters."
        )
    if not COLOR_RE.match(color):
        raise CardtableError(BAD_REQUEST, f"Line {line}: {color!r} is not a colour name.")
    if count_s and not (count_s.isdigit() and 1 <= int(count_s) <= MAX_CARDS):
        raise CardtableError(
            BAD_REQUEST,
            f"Line {line}: the count must be a whole number from "
            f"1 to {MAX_CARDS}, not {count_s[:20]!r}.",
        )
    if image is not None and not HASH_RE.match(image):
        raise CardtableError(
            BAD_REQUEST,
            f"Line {line}: the image must be an uploaded image's sha256 (64 hex digits).",
        )
    if not text and image is None:
        raise CardtableError(BAD_REQUEST, f"Line {line}: a card needs text or an image.")
    return CardSpec(text=text, color=color, count=int(count_s) if count_s else 1, image=image)


def _check_total(cards: list[CardSpec], cap: int) -> list[CardSpec]:
    total = sum(c.count for c in cards)
    if total > cap:
        raise CardtableError(LIMIT, f"A deck holds at most {cap} cards; this list makes {total}.")
    if not cards:
        raise CardtableError(BAD_REQUEST, "The list has no cards.")
    return cards


def parse_list(text: str, cap: int = MAX_CARDS) -> list[CardSpec]:
    """One card per line: ``text, colour, count``; blank lines and ``#`` comments skipped."""
    cards = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = next(csv.reader([line], skipinitialspace=True))
        spec = _row(fields, n, with_image=False)
        if spec is not None:
            cards.append(spec)
    return _check_total(cards, cap)


_HEADER = {"text": 0, "color": 1, "colour": 1, "count": 2, "image": 3}


def parse_csv(text: str, cap: int = MAX_CARDS) -> list[CardSpec]:
    """A CSV file: columns text, color, count, image (a header row, if any, may order them)."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise CardtableError(BAD_REQUEST, f"That is not valid CSV: {exc}.") from None
    order = [0, 1, 2, 3]
    start = 0
    head = [h.strip().lower() for h in rows[0]] if rows else []
    if head and "text" in head:
        unknown = [h for h in head if h not in _HEADER]
        if unknown:
            raise CardtableError(
                BAD_REQUEST, f"Unknown CSV column {unknown[0]!r}; use text, color, count and image."
            )
        order = [_HEADER[h] for h in head]
        start = 1
    cards = []
    for n, row in enumerate(rows[start:], start + 1):
        fields = [""] * 4
        if len(row) > len(order):
            raise CardtableError(BAD_REQUEST, f"Line {n}: more fields than columns.")
        for i, value in enumerate(row):
            fields[order[i]] = value
        spec = _row(fields, n, with_image=True)
        if spec is not None:
            cards.append(spec)
    return _check_total(cards, cap)
