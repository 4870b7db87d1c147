"""Who is online, and the lobby: online players (paged, searchable by name prefix) and the
rooms their hosts made public.

An identity is online while one of its sockets, on any process, said ``online {on: true}`` and
has not gone: each socket is a member of the identity's socket set, refreshed by its process's
heartbeat; the identity leaves the online set when its last socket goes offline or disconnects,
or when no heartbeat has refreshed it within the timeout (its process died). A socket that
joins a room goes online by itself unless it chose to be offline; the lobby then says where the
player is (``at``: the table, its code only if the room is public).
"""

from __future__ import annotations

import asyncio
from typing import Any

from plugins.registry import GAMES
from server.errors import CardtableError
from server.room.service import RoomService
from server.store.base import SocialStore, answers_unavailable
from server.table.objects import Table

PAGE = 50
MOST_TABLES = 50


class Lobby:
    """``timeout``: an identity (or socket) not refreshed for this long is offline."""

    def __init__(self, store: SocialStore, timeout: float) -> None:
        self.store = store
        self.timeout = timeout
        self.sockets_ttl = max(60, int(timeout * 4))

    @answers_unavailable
    async def go_online(self, identity: str, sid: str, name: str, now: float) -> None:
        await self.store.go_online(identity, sid, name, now, self.sockets_ttl)

    @answers_unavailable
    async def refresh(self, online: list[tuple[str, str, str]], now: float) -> None:
        """Heartbeat: (identity, sid, name) of this process's online sockets, a batch of them
        per script call (10,000 online: bench/README.md, "The lobby")."""
        await self.store.refresh_online(online, now, self.sockets_ttl)

    @answers_unavailable
    async def go_offline(self, identity: str, sid: str, now: float) -> None:
        await self.store.go_offline(identity, sid, now - self.timeout)

    @answers_unavailable
    async def prune(self, now: float) -> int:
        return await self.store.prune_online(now - self.timeout)

    @answers_unavailable
    async def is_online(self, identity: str, now: float) -> bool:
        seen = await self.store.last_seen(identity)
        return seen is not None and seen >= now - self.timeout

    @answers_unavailable
    async def players(
        self, me: str | None, page: int, q: str | None, now: float, rooms: RoomService | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of online players (by name), and how many match in all; with ``rooms``,
        where each one is (``at``: :meth:`where`)."""
        await self.prune(now)
        total, ids, favourites = await self.store.online_page(q, page * PAGE, PAGE, me)
        names = await self.store.names(ids)
        codes = await self.store.at_get(ids) if rooms is not None else [None] * len(ids)
        # Each table once, all at the same time: a page lists up to PAGE players, often several
        # at one table, and every lobby page asks again every few seconds.
        wanted = sorted({c for c in codes if c})
        found = (
            await asyncio.gather(*(self._table(rooms, c, now) for c in wanted))
            if rooms is not None
            else []
        )
        tables = dict(zip(wanted, found, strict=True))
        out = []
        for i, n, code in zip(ids, names, codes, strict=True):
            at = _where(tables.get(code), i) if code else None
            out.append({"id": i, "name": n or "", "favourite": i in favourites, "at": at})
        return out, total

    @answers_unavailable
    async def at(self, identity: str, code: str) -> None:
        """``identity`` joined room ``code``."""
        await self.store.at_set(identity, code)

    @answers_unavailable
    async def still_at(self, where: dict[str, str]) -> None:
        """Heartbeat: each identity -> the room one of this process's sockets of it is in (so
        one of two tabs at a table leaving does not leave the lobby saying it is at none)."""
        await self.store.at_set_many(where)

    @answers_unavailable
    async def left(self, identity: str, code: str) -> None:
        """A socket of ``identity`` left room ``code``: it is no longer there (unless it has
        joined another room since). Going offline and a lapsed presence forget it too."""
        await self.store.at_drop(identity, code)

    @answers_unavailable
    async def online_among(self, identities: list[str], now: float) -> list[dict[str, str]]:
        """Those of ``identities`` online now, with their names, by name."""
        seen = await asyncio.gather(*(self.store.last_seen(i) for i in identities))
        fresh = now - self.timeout
        on = [i for i, t in zip(identities, seen, strict=True) if t is not None and t >= fresh]
        names = await self.store.names(on)
        out = [{"id": i, "name": n or ""} for i, n in zip(on, names, strict=True)]
        return sorted(out, key=lambda p: (p["name"].casefold(), p["id"]))

    async def _table(
        self, rooms: RoomService, code: str, now: float
    ) -> tuple[Table, set[str]] | None:
        """Room ``code`` and the players with a live socket in it (None: no such room)."""
        try:
            table = await rooms.load_table(code)
        except CardtableError:
            return None
        live = await rooms.store.live_members(code, now - self.timeout)
        return table, {m.partition("|")[0] for m in live}

    # --- public rooms ----------------------------------------------------------------------

    @answers_unavailable
    async def set_public(self, code: str, public: bool, now: float) -> None:
        if public:
            await self.store.public_add(code, now)
        else:
            await self.store.public_drop(code)

    @answers_unavailable
    async def tables(self, rooms: RoomService, q: str | None) -> list[dict[str, Any]]:
        """The newest public rooms that still exist and are still public."""
        out = []
        for code in await self.store.public_newest(MOST_TABLES):
            try:
                table = await rooms.load_table(code)
            except CardtableError:
                table = None
            if table is None or not table.public:
                await self.store.public_drop(code)
                continue
            name = table.game.name if table.game else None
            binding = GAMES.get(name) if isinstance(name, str) else None
            host = next((p.name for p in table.players.values() if p.host), None)
            title = binding.info.title if binding is not None else "Free table"
            if host is not None:
                title = f"{title} with {host}"
            if q and q.casefold() not in title.casefold():
                continue
            out.append(
                {
                    "code": code,
                    "game": name,
                    "title": title,
                    "seats_free": table.seats - len(table.seated()),
                }
            )
        return out


def _where(found: tuple[Table, set[str]] | None, identity: str) -> dict[str, Any] | None:
    """The table ``identity`` is at, if one of its sockets is live there: the game, the free
    seats, and the code only where the room is public (a private room is just "at a table")."""
    if found is None:
        return None
    table, live = found
    if not any(p.identity == identity for pid, p in table.players.items() if pid in live):
        return None
    name = table.game.name if table.game else None
    return {
        "code": table.code if table.public else None,
        "game": name if isinstance(name, str) else None,
        "seats_free": table.seats - len(table.seated()),
        "public": bool(table.public),
    }
