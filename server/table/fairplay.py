"""Provably fair shuffles in free play (docs/fairness.md, "Free play"), once the host turns them
on: the same rolling commit as a rule room's deals (:mod:`server.game.fairness`), for the room's
shuffles. Turning them on commits to shuffle 1's seed (drawn from the room's injected random
source) in the log; seated pages add their values (the ``fair`` event) until the next shuffle,
which orders the pile with ``fair.shuffle`` and the key of that seed and those values, and
commits to the next one. A shuffle's record (game ``"free"``, every card ``dealt`` to the pile)
is kept with its seed secret until the host reveals the shuffles: then the log shows each seed
and the records join the room's hand histories.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from plugins import fair
from server.table.objects import FairDeal, Table

T = TypeVar("T")


def commit_to(t: Table, n: int, rng: random.Random) -> str:
    """Draw shuffle ``n``'s seed and publish its commitment: the log line that says so."""
    seed = fair.new_seed(rng)
    t.fair_shuffle = FairDeal(deal=n, seed=seed.hex(), commitment=fair.commitment(seed, t.code, n))
    return f"Shuffle {n}: the server's seed is fixed, commitment {t.fair_shuffle.commitment}"


def _values(t: Table, found: FairDeal) -> list[str | None]:
    return [found.values.get(seat) for seat in range(t.seats)]


def order(
    t: Table, items: Sequence[T], faces: Sequence[str], pile: str, rng: random.Random
) -> tuple[list[T], str]:
    """``items`` (whose faces are ``faces``) in the order the room's shuffle puts them: the
    committed seed's keyed shuffle when fair shuffles are on (the shuffle is recorded and the
    next one committed to; the log line's tail says so), else the room's random source."""
    pending = t.fair_shuffle
    if pending is None:
        out = list(items)
        rng.shuffle(out)
        return out, ""
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
    return [items[i] for i in positions], commit_to(t, pending.deal + 1, rng)


def reveal(t: Table) -> str:
    """The seeds of every shuffle made so far, in the log; their records go to the room's hand
    histories with the commit (``fair_revealed``). Returns the log line."""
    done = t.fair_shuffles
    if not done:
        return "No shuffle to reveal yet"
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
