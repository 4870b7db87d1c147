"""Provably fair deals in rule rooms: the rolling commit and reveal, the players' values, and
the record of every finished hand (docs/fairness.md, "In the room"; the spec's algorithm is
:mod:`plugins.fair`).

The seed of deal ``d + 1`` is drawn from the room's injected random source, and its commitment
published in the log, when deal ``d`` is dealt (deal 1's when the game is chosen, before the
seats fill). Until deal ``d + 1`` is dealt each seated person's page may add its 16-byte value
(:func:`contribute`, the ``fair`` event); the deal is then dealt with
``fair.deal_key(seed, room, d + 1, values)`` (``None`` for a seat that sent nothing). When the
hand is over (the engine reveals it, or the game ends) the seed is revealed in the log and the
hand's record (the spec's format, with every action and a replay of the positions it went
through) is queued on the slot; the room service writes it beside the room with the commit
(:func:`take_records`). Seeds live in the room's stored blob only, which no client ever sees.

An engine without the fair hooks (``deal_with``, ``deal_record``) deals as before, unrecorded.
"""

from __future__ import annotations

import json
import random
from typing import Any

from plugins import fair
from plugins.base import Binding, FairDeals, Rejection, fair_deals
from plugins.registry import GAMES
from server.errors import (
    ALREADY_SENT,
    BAD_REQUEST,
    FORBIDDEN,
    NOT_SEATED,
    WRONG_DEAL,
    CardtableError,
)
from server.table.apply import Actor, Change
from server.table.objects import FairDeal, GameSlot, Table

# The slot's attribute (not stored) holding the records of hands finished in this commit.
_DONE = "fair_done"
# How long a room made for one person against computers waits, once its seats are full, for the
# people's pages to add their values to deal 1 (seconds; the page sends on seeing the view).
VALUE_WAIT = 3.0


def supported(binding: Binding) -> bool:
    """Whether the game's engine deals from a fair key (the spec's engine hooks)."""
    return fair_deals(binding.engine) is not None


def _hooks(binding: Binding) -> FairDeals[Any]:
    found = fair_deals(binding.engine)
    assert found is not None
    return found


def deal_with(binding: Binding, state: Any, key: bytes) -> Any:
    """``state`` with the key its next deal will use."""
    return _hooks(binding).deal_with(state, key)


def commit_to(table: Table, deal: int, rng: random.Random) -> str:
    """Draw the seed of ``deal`` and publish its commitment: the log line that says so."""
    assert table.game is not None
    seed = fair.new_seed(rng)
    table.game.fair_next = FairDeal(
        deal=deal, seed=seed.hex(), commitment=fair.commitment(seed, table.code, deal)
    )
    return f"Deal {deal}: the server's seed is fixed, commitment {table.game.fair_next.commitment}"


def values(slot: GameSlot, found: FairDeal) -> list[str | None]:
    """The values for the key, by engine player: ``None`` where that seat sent none."""
    return [found.values.get(seat) for seat in slot.seats]


def key_for(table: Table, found: FairDeal) -> bytes:
    assert table.game is not None
    return fair.deal_key(
        bytes.fromhex(found.seed), table.code, found.deal, values(table.game, found)
    )


def dealt(table: Table, start: dict[str, Any], rng: random.Random) -> str:
    """Deal ``fair_next`` was just dealt (``start``: the engine's dump of the state it made): it
    is the deal in progress now, and the next deal's seed is committed to. Returns the log
    line."""
    slot = table.game
    assert slot is not None and slot.fair_next is not None
    slot.fair_now, slot.fair_next = slot.fair_next, None
    slot.fair_start = start
    slot.fair_actions = []
    return commit_to(table, slot.fair_now.deal + 1, rng)


def awaits_values(table: Table, seats: list[int], now: float) -> bool:
    """Whether a full room's start waits for values (a room made with computers, deal 1
    committed, a seated person's page has not sent one, the deadline not passed). The first
    time it waits it sets the deadline, ``VALUE_WAIT`` from ``now``: the scheduler wakes then."""
    slot = table.game
    if slot is None or not slot.value_wait or slot.fair_next is None or slot.fair_next.deal != 1:
        return False
    seated = table.seated()
    sent = slot.fair_next.values
    if all(seated[s].bot or s in sent for s in seats if s in seated):
        return False
    if slot.start_due is None:
        slot.start_due = now + VALUE_WAIT
    return now < slot.start_due


def note_action(slot: GameSlot, player: int | None, action: dict[str, Any]) -> None:
    """An action of the deal in progress, for its record."""
    if slot.fair_now is not None:
        slot.fair_actions.append({"player": player, "action": action})


def position_set(slot: GameSlot) -> None:
    """The game was put in a state from outside (an operator's or a test's set state): its
    deal is no longer one a committed seed made, so the game plays on without fair deals (no
    record, no reveal; the next game chosen or played again commits anew)."""
    slot.fair_next = slot.fair_now = slot.fair_start = None
    slot.fair_actions = []


def maybe_over(table: Table, binding: Binding, over: bool) -> str:
    """The deal in progress is ``over`` (its hand is revealed, or another deal replaced it):
    its record is queued for the commit and its seed revealed. Returns the log line ("" when
    there is nothing to do). The record is what the commit stores (no engine call here: the
    replay and the scores are worked out when it is read, :func:`served`)."""
    slot = table.game
    assert slot is not None
    now = slot.fair_now
    if now is None or not over or slot.fair_start is None:
        return ""
    seated = table.seated()
    record = {
        "version": fair.VERSION,
        "room": table.code,
        "game": binding.info.name,
        "deal": now.deal,
        "players": [
            {
                "seat": p,
                "name": seated[seat].name if seat in seated else f"Seat {seat + 1}",
                "computer": bool(seat in seated and seated[seat].bot),
            }
            for p, seat in enumerate(slot.seats)
        ],
        "commitment": now.commitment,
        "seed": now.seed,
        "values": values(slot, now),
        "start": slot.fair_start,
        "actions": list(slot.fair_actions),
    }
    pending: list[dict[str, Any]] = getattr(slot, _DONE, None) or []
    pending.append(record)
    setattr(slot, _DONE, pending)
    slot.fair_now, slot.fair_start, slot.fair_actions = None, None, []
    return f"Deal {now.deal} is over: the server's seed was {now.seed}"


def _position(binding: Binding, state: Any) -> dict[str, Any]:
    """Where every card lies in ``state``, all faces shown (the hand is over)."""
    proj = binding.project(state)
    return {
        "hands": {str(p): list(faces) for p, faces in proj.hands.items()},
        "zones": [{"id": z.id, "label": z.label, "faces": list(z.faces)} for z in proj.zones],
    }


def served(raw: bytes) -> dict[str, Any]:
    """A stored record as it is served (the spec's format): the deal's ``deck``, ``order`` and
    ``dealt`` from the engine's record of the state it began from, the ``scores`` when it was
    over, and ``steps`` for the replay: the position after the deal and after each action
    (every card face up), with what each action did in words."""
    record: dict[str, Any] = json.loads(raw)
    start = record.pop("start", None)
    if record.get("game") == "free":  # a free-play shuffle: the pile, in its new order
        pile = {"id": "pile", "label": str(record.get("pile", "pile")), "faces": record["order"]}
        return {**record, "steps": [{"text": "Shuffled", "hands": {}, "zones": [pile]}]}
    found = GAMES.get(str(record.get("game")))
    if found is None or start is None:
        return record
    binding = found.binding
    engine = binding.engine
    state = engine.load(start)
    # A deal the engine did not deal from a key has no deck, order or dealt: nothing verifies.
    made = _hooks(binding).deal_record(state) or {}
    names = [str(p.get("name", "")) for p in record.get("players", [])]
    steps = [{"text": f"Deal {record.get('deal')} dealt", **_position(binding, state)}]
    for entry in record.get("actions", []):
        after = engine.apply(state, entry["player"], entry["action"])
        if isinstance(after, Rejection):  # cannot happen: each was applied once already
            break
        text = engine.describe(state, entry["player"], entry["action"], names, after=after)
        state = after
        steps.append({"text": text, **_position(binding, state)})
    outcome = engine.outcome(state)
    reveal = engine.reveal(state)
    dealt = (
        {
            "deck": list(made["deck"]),
            "order": list(made["order"]),
            "dealt": [str(where) for where in made["dealt"]],
            **({"dealer": made["dealer"]} if "dealer" in made else {}),
        }
        if made
        else {}
    )
    return {
        **record,
        **dealt,
        "scores": {
            "board": engine.scoreboard(state, names).as_data(),
            "reveal": [line.as_data() for line in reveal] if reveal is not None else None,
            "outcome": {"winners": list(outcome.winners), "scores": list(outcome.scores)}
            if outcome is not None
            else None,
        },
        "steps": steps,
    }


def take_records(table: Table) -> list[bytes]:
    """The records of the hands this change finished, as JSON, taken off the slot (the room
    service writes them with the commit)."""
    slot = table.game
    pending: list[dict[str, Any]] = []
    if slot is not None:
        pending = getattr(slot, _DONE, None) or []
        setattr(slot, _DONE, None)
    if table.fair_revealed:  # free play's shuffles the host revealed
        pending = [*pending, *table.fair_revealed]
        table.fair_revealed = []
    return [json.dumps(r, separators=(",", ":")).encode() for r in pending]


def contribute(table: Table, actor: Actor, deal: int, value: str) -> Change:
    """A seated person's page adds its value to the deal that is waiting for it (in free play
    with fair shuffles on, to the next shuffle: :mod:`server.table.fairplay`)."""
    slot = table.game
    pending = slot.fair_next if slot is not None else table.fair_shuffle
    what = "deal" if slot is not None else "shuffle"
    if actor.seat is None:
        raise CardtableError(
            NOT_SEATED, f"Only a seated player's page adds randomness to a {what}."
        )
    if pending is None or pending.deal != deal:
        waiting = f"{what} {pending.deal}" if pending is not None else "none"
        raise CardtableError(
            WRONG_DEAL, f"The {what} {deal} is not waiting for randomness ({waiting} is)."
        )
    if slot is not None and slot.state is not None and actor.seat not in slot.seats:
        raise CardtableError(FORBIDDEN, "Your seat is not playing in this game.")
    if not fair.valid_value(value):
        raise CardtableError(BAD_REQUEST, "A value is 32 lowercase hex characters.")
    if actor.seat in pending.values:
        raise CardtableError(
            ALREADY_SENT, f"Your page has added its randomness to {what} {deal} already."
        )
    pending.values[actor.seat] = value
    return Change(
        game_changed=slot is not None,
        players_changed=slot is None,  # free play: the shuffle's ``fair`` goes with the players
        log=_sent_line(table, list(pending.values), what, deal),
        # Every seated page answers a commitment at once: one line that grows, not one each.
        burst=f"fair {what} {deal}",
    )


def _sent_line(table: Table, seats: list[int], what: str, deal: int) -> str:
    """``Ana's page added its randomness to deal 2``; with several pages, in the order they
    sent: ``Ana's, Ben's and Cy's pages added their randomness to deal 2``."""
    seated = table.seated()
    names = [f"{seated[s].name}'s" if s in seated else f"seat {s + 1}'s" for s in seats]
    if len(names) == 1:
        return f"{names[0]} page added its randomness to {what} {deal}"
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} pages added their randomness to {what} {deal}"


def view(table: Table) -> dict[str, Any] | None:
    """What the game view says of the deal waiting for values: its number, the commitment,
    and the table seats whose pages sent theirs (no seed, no value)."""
    slot = table.game
    pending = slot.fair_next if slot is not None else None
    if pending is None:
        return None
    return {
        "deal": pending.deal,
        "commitment": pending.commitment,
        "sent": sorted(pending.values),
    }
