"""How a block holds against people without an identity.

A block is kept per identity, so a connection that never said ``hello`` (or a player recorded
without an identity) could otherwise sit beside, and chat to, the person who blocked them. The
rule: at a table where any player present has blocked anybody, only players with an identity
(taken from the connection's ``hello``, never from a field of ``join``) may sit or chat. Those
without one may join to watch; trying to sit (``join`` with a seat, ``seat``) or chat is refused
with ``identity_required`` and a message that says why. A player who already sits there keeps the
seat (and may reclaim it with its token), but does not chat.
"""

from __future__ import annotations

from server.social.keys import IDENTITY_REQUIRED, CardtableError
from server.social.relations import Relations
from server.table.objects import Table

IDENTITY_REQUIRED_MESSAGE = (
    "A player at this table has blocked someone, so only people with an identity (a browser "
    "that keeps this site's storage and says hello) may sit or chat here. You can watch."
)


async def guarded(relations: Relations, table: Table) -> bool:
    """Whether a player present at ``table`` (seated or watching, away or not) blocks anybody."""
    here = sorted({p.identity for p in table.players.values() if p.identity})
    return await relations.any_blocks(here)


async def require_identity(
    relations: Relations, table: Table, identity: str | None, doing: str
) -> None:
    """Refuse ``doing`` ("sit", "chat") to someone without ``identity`` at a guarded table."""
    if identity is None and await guarded(relations, table):
        raise CardtableError(
            IDENTITY_REQUIRED, f"You can't {doing} here: " + IDENTITY_REQUIRED_MESSAGE
        )
