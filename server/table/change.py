"""What one operation did to a table (:class:`Change`), who did it (:class:`Actor`), the room's
limits, and fresh ids: the vocabulary every part of the table model and the room shares."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field

SYSTEM_RNG: random.Random = secrets.SystemRandom()


@dataclass(frozen=True)
class Limits:
    """Per-room limits; documented in docs/protocol.md and configurable from the CLI."""

    max_objects: int = 1500
    max_players: int = 16
    max_seats: int = 8
    max_deck: int = 500


@dataclass(frozen=True)
class Actor:
    player_id: str
    name: str
    seat: int | None


@dataclass
class Change:
    """What an operation did: objects to re-send per seat, ids removed, a public log line.

    ``held`` and ``created`` say which views held an id before the change (for per-view
    ``del`` lists): ``held`` maps each changed or removed card that sat in a hand before the
    change to that hand's seat, ``created`` names the ids the change made.
    """

    dirty: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    held: dict[str, int] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    log: str = ""
    players_changed: bool = False
    game_changed: bool = False
    # A burst key (a counter's clicks: player and counter; the pages adding randomness to one
    # deal): a line whose key is the room log's last line's, within LOG_BURST seconds of it,
    # replaces that line (``log_replaces``).
    burst: str = ""
    log_replaces: bool = False


def new_id(prefix: str = "o", rng: random.Random | None = None) -> str:
    """64 random bits from ``rng`` (the system's secure source by default): collisions within a
    room are negligible (about 1e-16 for a shuffle)."""
    return f"{prefix}{(rng or SYSTEM_RNG).getrandbits(64):016x}"


def merge(first: Change, then: Change) -> Change:
    """One change that does ``first`` and then ``then``."""
    removed = (first.removed | then.removed) - then.created
    return Change(
        dirty=(first.dirty | then.dirty) - removed,
        removed=removed,
        held={**then.held, **first.held},
        created=(first.created | then.created) - removed,
        log="; ".join(line for line in (first.log, then.log) if line),
        players_changed=first.players_changed or then.players_changed,
        game_changed=first.game_changed or then.game_changed,
    )
