"""Block, mute and favourite: per identity, sets of other identities in the store (keyed by
identity, so a player who changes name is still blocked)."""

from __future__ import annotations

from server.errors import BAD_REQUEST, CardtableError
from server.social.keys import UNKNOWN_IDENTITY
from server.store.base import SocialStore, answers_unavailable

KINDS = ("block", "mute", "favourite")
MOST = 1000  # identities per relation kind
EXCLUSIVE = {"block": "favourite", "favourite": "block"}  # setting one clears the other


class Relations:
    def __init__(self, store: SocialStore) -> None:
        self.store = store

    @answers_unavailable
    async def change(self, me: str, other: str, kind: str, on: bool) -> None:
        if kind not in KINDS:
            raise CardtableError(BAD_REQUEST, f"Relations are {', '.join(KINDS)}.")
        if other == me:
            raise CardtableError(BAD_REQUEST, "That is you.")
        if not on:
            await self.store.relation_drop(me, kind, other)
            return
        if not await self.store.identity_exists(other):
            raise CardtableError(UNKNOWN_IDENTITY, "There is no such player.")
        if await self.store.relation_size(me, kind) >= MOST:
            raise CardtableError(BAD_REQUEST, f"At most {MOST} players per list.")
        # A favourite is never blocked: setting one clears the other (first, so that no one
        # reads both at once).
        if kind in EXCLUSIVE:
            await self.store.relation_drop(me, EXCLUSIVE[kind], other)
        await self.store.relation_add(me, kind, other)

    @answers_unavailable
    async def all(self, me: str) -> dict[str, list[str]]:
        got = await self.store.relations(me, KINDS)
        return {kind: sorted(got[kind]) for kind in KINDS}

    @answers_unavailable
    async def has(self, me: str, kind: str, others: list[str]) -> set[str]:
        """Those of ``others`` that ``me`` has in its ``kind`` list."""
        if not others:
            return set()
        got = await self.store.relation_has(me, kind, others)
        return {o for o, hit in zip(others, got, strict=True) if hit}

    @answers_unavailable
    async def who_has(self, others: list[str], kind: str, me: str) -> set[str]:
        """Those of ``others`` that have ``me`` in their ``kind`` list."""
        if not others:
            return set()
        got = await self.store.relation_in(others, kind, me)
        return {o for o, hit in zip(others, got, strict=True) if hit}

    @answers_unavailable
    async def any_blocks(self, identities: list[str]) -> bool:
        """Whether any of ``identities`` has blocked anybody at all."""
        if not identities:
            return False
        return any(await self.store.relation_sizes(identities, "block"))

    async def blocked_between(self, a: str, b: str) -> bool:
        return bool(await self.has(a, "block", [b]) or await self.has(b, "block", [a]))
