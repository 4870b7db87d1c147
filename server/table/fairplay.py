"""Provably fair shuffles in free play (docs/fairness.md, "Free play"), always on: the same
rolling commit as a rule room's deals (:mod:`server.game.fairness`), for the room's shuffles. A
new table commits to shuffle 1's seed (drawn from the room's injected random source; the
snapshot's ``fair`` shows it); seated pages add their values (the ``fair`` event) until the next
shuffle, which orders the pile with ``fair.shuffle`` and the key of that seed and those values,
and commits to the next one (its log line ends with that commitment). A shuffle's record (game
``"free"``, every card ``dealt`` to the pile) is kept with its seed secret until the host reveals
the shuffles: then the log shows each seed and the records join the room's hand histories.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from plugins import fair
from server.table.objects import FairDeal, Table

T = TypeVar("T")


def commit_to(t: Table, n: int, rng: random.Random) -> str:
    """Draw shuffle ``n``'s seed and publish its commitment (returned; the snapshot's and the
    players deltas' ``fair`` carry it)."""
    seed = fair.new_seed(rng)
    t.fair_shuffle = FairDeal(deal=n, seed=seed.hex(), commitment=fair.commitment(seed, t.code, n))
    return t.fair_shuffle.commitment


def _values(t: Table, found: FairDeal) -> list[str | None]:
    return [found.values.get(seat) for seat in range(t.seats)]


def order(
    t: Table, items: Sequence[T], faces: Sequence[str], pile: str, rng: random.Random
) -> tuple[list[T], str]:
    """``items`` (whose faces are ``faces``) in the order the room's shuffle puts them, and what
    the shuffle's log line adds in brackets: in free play the committed seed's keyed shuffle (it
    is recorded and the next one committed to: "fair shuffle 3; next commitment …"); in a rule
    room the room's random source ("" added). A table stored before shuffles were committed
    shuffles once with the random source and commits to the next ("next commitment …")."""
    pending = t.fair_shuffle
    if t.game is not None or pending is None:
        out = list(items)
        rng.shuffle(out)
        if t.game is not None:
            return out, ""
        return out, f"next commitment {commit_to(t, 1, rng)}"
    values = _values(t, pending)
    key = fair.deal_key(bytes.fromhex(pending.seed), t.code, pending.deal, values)
    positions = fair.shuffle(list(range(len(items))), key)
    seated = t.seated()
    t.fair_shuffles.append(
        {
            "version": fair.VERSION,
            "room": t.code,
            "game": "free",
            "deal": pending.deal,
            "pile": pile,
            "players": [
                {
                    "seat": seat,
                    "name": seated[seat].name if seat in seated else f"Seat {seat + 1}",
                    "computer": bool(seat in seated and seated[seat].bot),
                }
                for seat in range(t.seats)
            ],
            "commitment": pending.commitment,
            "seed": pending.seed,
            "values": values,
            "deck": list(faces),
            "order": [faces[i] for i in positions],
            "dealt": ["pile"] * len(faces),
            "actions": [],
        }
    )
    said = f"fair shuffle {pending.deal}; next commitment {commit_to(t, pending.deal + 1, rng)}"
    return [items[i] for i in positions], said


def reveal(t: Table) -> str:
    """The seeds of every shuffle made so far, in the log; their records go to the room's hand
    histories with the commit (``fair_revealed``). Returns the log line (``fair_shuffles`` must
    not be empty: the host's action refuses to reveal nothing)."""
    done = t.fair_shuffles
    t.fair_revealed = [*t.fair_revealed, *done]
    t.fair_shuffles = []
    seeds = "; ".join(f"shuffle {r['deal']}'s seed was {r['seed']}" for r in done)
    return f"Shuffles revealed: {seeds}"


def view(t: Table) -> dict[str, Any] | None:
    """The shuffle waiting for values: its number, the commitment, the seats that sent one."""
    pending = t.fair_shuffle
    if pending is None or t.game is not None:
        return None
    return {"deal": pending.deal, "commitment": pending.commitment, "sent": sorted(pending.values)}
