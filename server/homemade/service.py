"""The room-level side of homemade games: images, game-file export, rooms made from files, and a
copy of a room (its game file loaded into a new room).

These sit between the HTTP routes (:mod:`server.net.http`) and the store. Who may do what is decided
from the player token sent in the ``X-Player-Token`` header: uploading an image and saving a
game file need edit permission (:func:`server.room.host.may_edit`); saving with positions (which
reveals hands and the order of face-down piles) needs the host with no other player seated.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from server.errors import BAD_TOKEN, CONFLICT, FORBIDDEN, LIMIT, ROOM_NOT_FOUND, CardtableError
from server.homemade.gamefile import build_table, export_game, load_game
from server.homemade.images import MAX_IMAGES_PER_ROOM, UPLOADS_PER_MINUTE, check_image, sniff
from server.room import codes
from server.room.host import may_edit
from server.room.players import hash_token
from server.room.service import RoomService
from server.store.base import unreachable_is_unavailable
from server.store.rate_limits import SlidingLimiter, Window
from server.table.decks import HASH_RE, read_face
from server.table.objects import Board, Card, Player, Table, encode_table


def player_by_token(table: Table, token: str | None) -> Player:
    if token:
        wanted = hash_token(token)
        for p in table.players.values():
            if secrets.compare_digest(p.token_hash, wanted):
                return p
    raise CardtableError(BAD_TOKEN, "Send your player token (X-Player-Token) from this room.")


def _editor(table: Table, token: str | None) -> Player:
    player = player_by_token(table, token)
    if not may_edit(table, player.id):
        raise CardtableError(
            FORBIDDEN, "Only the host can edit this table (the host can let everyone edit)."
        )
    return player


async def upload_image(
    rooms: RoomService,
    code: str,
    token: str | None,
    data: bytes,
    clock: Callable[[], float] = time.time,
) -> tuple[str, str]:
    """Store an editor's image with the room; (sha256, content type)."""
    table = await rooms.load_table(code)
    _editor(table, token)
    digest, kind = check_image(data)
    await SlidingLimiter(
        rooms.store, "img", [Window(60, UPLOADS_PER_MINUTE)], "image uploads", clock
    ).take(code)
    with unreachable_is_unavailable():
        done = await rooms.store.put_image(code, digest, data, MAX_IMAGES_PER_ROOM)
    if done == -1:
        raise CardtableError(ROOM_NOT_FOUND, f"There is no room {codes.pretty(code)}.")
    if done == -2:
        raise CardtableError(LIMIT, f"A room holds at most {MAX_IMAGES_PER_ROOM} images.")
    return digest, kind


async def fetch_image(rooms: RoomService, code: str, digest: str) -> tuple[bytes, str]:
    """A room's image and its (re-sniffed) content type, or ``room_not_found``."""
    with unreachable_is_unavailable():
        data = await rooms.store.get_image(code, digest)
    if data is None or not await rooms.exists(code):
        raise CardtableError(ROOM_NOT_FOUND, "There is no such image in this room.")
    return data, sniff(data)


def _referenced(table: Table) -> list[str]:
    refs: set[str] = set()
    for o in table.objects.values():
        if isinstance(o, Card):
            spec = read_face(o.face)
            if spec is not None and spec.image:
                refs.add(spec.image)
            if HASH_RE.match(o.back):
                refs.add(o.back)
        elif isinstance(o, Board) and HASH_RE.match(o.background):
            refs.add(o.background)
    return sorted(refs)


async def export_room(
    rooms: RoomService, code: str, token: str | None, positions: bool
) -> dict[str, Any]:
    """The room's game file for an editor (with positions: for the host seated alone)."""
    table = await rooms.load_table(code)
    me = _editor(table, token)
    if positions:
        others = [p for p in table.players.values() if p.seat is not None and p.id != me.id]
        if not me.host or others:
            raise CardtableError(
                FORBIDDEN,
                "Saving positions shows every hand and the order of "
                "face-down piles: only the host can, with nobody else seated.",
            )
    with unreachable_is_unavailable():
        images = await rooms.store.get_images(code, _referenced(table))
    return export_game(table, images, positions=positions)


async def copy_room(rooms: RoomService, code: str, token: str | None, positions: bool) -> Table:
    """A new room holding a copy of this one: its layout, or (``positions``) everything, as
    saving a game file and loading it would make it, with the same permission checks."""
    return await create_from_file(rooms, await export_room(rooms, code, token, positions))


async def create_from_file(rooms: RoomService, data: Any) -> Table:
    """A new room from an untrusted game file: checked whole first, then written (table and
    images) in one atomic step, so a refused file leaves nothing behind."""
    loaded = load_game(data, rooms.limits)
    if loaded.file.seats > rooms.limits.max_seats:
        raise CardtableError(LIMIT, f"A room has at most {rooms.limits.max_seats} seats.")
    for _ in range(10):
        code = codes.new_code()
        table = build_table(loaded, code, rooms.clock(), rooms.rng)
        with unreachable_is_unavailable():
            if await rooms.store.create_with_images(
                code, encode_table(table), table.version, loaded.images
            ):
                return table
    raise CardtableError(CONFLICT, "Could not find a free room code; try again.")
