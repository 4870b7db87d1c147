"""Rule games on the table: table operations become engine actions, and the engine's state is
projected back onto the table.

This is the "plugin binding" step of the data flow (room service → reducer → here → table
model). It knows no game: a game is an engine, a binding and a bot (``plugins/<game>/``). The
engine decides what is legal; the table only ever shows the projection of the engine's state,
through the same per-seat visibility as every other room.

``table.game`` is the room's :class:`~server.table.objects.GameSlot` (name, options, the
engine's dump, which table seat each engine player plays from, the ids the projection owns, the
scheduled action's deadline). The engine's state itself is read from the slot's session
(:mod:`server.game.session`): decoded once, projected once per commit, and the part of the game
view every seat shares built once; each seat adds only its own ``view``, ``controls``, ``hint``
and ``legal``.

Who plays engine player ``p``: whoever sits in ``seats[p]``. When that is a computer, or the
seat is empty (or its person away) and the room's ``fill`` option is on, the server plays it.
Computer players never start the next deal: people look at the score first. A computer moves
no sooner than the room's ``bot_due`` (:func:`bot_due`, recorded by the reducer at every
commit), so its pause holds whichever process's timer fires.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Sequence
from typing import Any

import msgspec

from plugins.base import (
    Binding,
    Cosmetic,
    Drop,
    InvalidState,
    Projection,
    Rejection,
    ZoneSpec,
)
from plugins.game import DEFAULT_LEVEL
from plugins.registry import GAMES
from server.errors import (
    BAD_REQUEST,
    FORBIDDEN,
    RULES,
    UNKNOWN_OBJECT,
    CardtableError,
)
from server.game import fairness
from server.game.session import Session, begin, kept, session
from server.table import ops as O
from server.table.apply import Actor, Change, Limits, check_ov, new_id, table_change
from server.table.change import merge
from server.table.objects import (
    Card,
    Chips,
    Counter,
    GameSlot,
    Hand,
    Label,
    Obj,
    Stack,
    Table,
    hand_id,
    kind_of,
)
from server.table.view import in_other_hand

# The table objects a binding's markers may be (plugins/base.py Marker.kind), by kind.
MARKERS: dict[str, type[Chips | Counter | Label]] = {kind_of(c): c for c in (Chips, Counter, Label)}


def binding_for(table: Table) -> Binding | None:
    if table.game is None:
        return None
    return GAMES[table.game.name].binding


def _state(table: Table) -> Any:
    return session(table).state


def started(table: Table) -> bool:
    return table.game is not None and table.game.state is not None


def names(table: Table) -> list[str]:
    """Engine players' display names, in turn order."""
    assert table.game is not None
    seated = table.seated()
    out = []
    for seat in table.game.seats:
        p = seated.get(seat)
        out.append(p.name if p is not None else f"Seat {seat + 1}")
    return out


def player_for_seat(table: Table, seat: int | None) -> int | None:
    """The engine player a table seat plays, if any."""
    if seat is None or not started(table):
        return None
    assert table.game is not None
    seats = table.game.seats
    return seats.index(seat) if seat in seats else None


# --- setting up, starting and stopping -----------------------------------------------------


def set_up(table: Table, name: object, options: object) -> Change:
    """Turn ``table`` into a room for a game of ``name``: cleared, waiting for its players.
    It starts by itself once every seat it can use is taken (see :func:`maybe_start`)."""
    if not isinstance(name, str) or name not in GAMES:
        raise CardtableError(BAD_REQUEST, f"Unknown game {name!r}; games: {', '.join(GAMES)}.")
    binding = GAMES[name].binding
    if options is not None and not isinstance(options, dict):
        raise CardtableError(BAD_REQUEST, "Game options must be an object.")
    opts = dict(options or {})
    fill = opts.pop("fill", False)
    if not isinstance(fill, bool):
        raise CardtableError(BAD_REQUEST, "Option fill must be true or false.")
    resolved = binding.info.resolve_options(opts)
    if isinstance(resolved, Rejection):
        raise CardtableError(BAD_REQUEST, resolved.message, detail=resolved.code)
    if table.seats < binding.info.min_players:
        raise CardtableError(
            BAD_REQUEST,
            f"{binding.info.title} needs "
            f"{binding.info.min_players} seats; this room has {table.seats}.",
        )
    change = _clear(table)
    table.game = GameSlot(name=name, options=resolved, fill=fill)
    change.log = f"{binding.info.title}: waiting for players"
    return change


def _clear(table: Table) -> Change:
    """The table emptied for a new game: every object but the seats' hands goes, and the hands
    are emptied."""
    change = Change(game_changed=True)
    change.held = {
        cid: h.seat for h in table.objects.values() if isinstance(h, Hand) for cid in h.cards
    }
    for oid, obj in list(table.objects.items()):
        if isinstance(obj, Hand):
            if obj.cards:
                obj.cards = []
                change.dirty.add(oid)
        else:
            del table.objects[oid]
            change.removed.add(oid)
    table.undo.clear()
    return change


def seats_for(table: Table) -> list[int]:
    """The seats that would play if the game started now."""
    return sorted(table.seated())


def maybe_start(
    table: Table, rng: random.Random, now: float, *, force: bool = False
) -> Change | None:
    """Start a waiting game once every usable seat is taken (or now, if ``force``). A game
    chosen just now first commits to the seed of its first deal (:mod:`server.game.fairness`),
    so the seated pages can add their values before it is dealt."""
    binding = binding_for(table)
    if binding is None or started(table):
        return None
    said = ""
    assert table.game is not None
    if table.game.fair_next is None and fairness.supported(binding):
        said = fairness.commit_to(table, 1, rng)
    begun = _maybe_start(table, binding, rng, now, force=force)
    if not said:
        return begun
    first = Change(game_changed=True, log=said)
    return first if begun is None else merge(first, begun)


def _maybe_start(
    table: Table, binding: Binding, rng: random.Random, now: float, *, force: bool
) -> Change | None:
    seats = seats_for(table)
    info = binding.info
    usable = min(table.seats, info.max_players)
    if len(seats) < info.min_players:
        if force:
            raise CardtableError(
                BAD_REQUEST, f"{info.title} needs at least {info.min_players} players seated."
            )
        return None
    if len(seats) > info.max_players:
        raise CardtableError(
            BAD_REQUEST,
            f"{info.title} takes at most {info.max_players} players: ask the others to watch.",
        )
    if not force and len(seats) < usable:
        return None
    if not force and fairness.supported(binding) and fairness.awaits_values(table, seats, now):
        return None  # deal 1 waits for the person's value, or its deadline (auto_step)
    return _begin(table, binding, seats, rng.getrandbits(63), rng, now)


def _begin(
    table: Table, binding: Binding, seats: list[int], seed: int, rng: random.Random, now: float
) -> Change:
    slot = table.game
    assert slot is not None
    slot.seats = seats
    slot.start_due = None
    pending = slot.fair_next
    said = ""
    if pending is not None and fairness.supported(binding):
        key = fairness.key_for(table, pending)
        state = binding.engine.new_game(len(seats), slot.options, seed, deal_key=key)  # type: ignore[call-arg]
    else:
        state = binding.engine.new_game(len(seats), slot.options, seed)
    sess = begin(slot, binding, state)
    fair_deal = pending is not None and fairness.supported(binding)
    if fair_deal and pending is not None and sess.projection().deal == pending.deal:
        said = fairness.dealt(table, sess.dump, rng)
    change = _project(table, sess, rng, now)
    change.log = "; ".join(
        line for line in (f"A game of {binding.info.title} started", said) if line
    )
    return change


def start_with(
    table: Table,
    name: str,
    options: dict[str, Any] | None,
    seats: list[int],
    seed: int,
    rng: random.Random,
    now: float,
) -> Change:
    """Set up and start a game at once, for these seats and from this seed (tests, replays)."""
    first = set_up(table, name, options)
    binding = binding_for(table)
    assert binding is not None
    return merge(first, _begin(table, binding, seats, seed, rng, now))


def play_again(table: Table, rng: random.Random, now: float) -> Change:
    """A finished game played again: a fresh game of the same name and options, started at
    once by whoever sits now (the same people and computers, in the same seats), dealt from a
    new seed drawn from ``rng`` (so its first dealer is drawn anew)."""
    binding = binding_for(table)
    if binding is None or not started(table):
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    assert table.game is not None
    if binding.engine.outcome(_state(table)) is None:
        raise CardtableError(BAD_REQUEST, "The game is not over.")
    old = table.game
    change = _clear(table)
    # The seed of the next game's first deal was committed to when this game ended.
    table.game = GameSlot(
        name=old.name, options=old.options, fill=old.fill, fair_next=old.fair_next
    )
    begun = maybe_start(table, rng, now, force=True)
    assert begun is not None
    return merge(change, begun)


def stop_game(table: Table) -> Change:
    """Back to free play: the cards stay where they are and move freely again."""
    binding = binding_for(table)
    if binding is None:
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    assert table.game is not None
    owned = set(table.game.zones) | set(table.game.markers)
    table.game = None
    # players_changed: the players delta carries free play's next shuffle (``fair``) to the pages.
    change = Change(
        game_changed=True,
        players_changed=True,
        log=f"{binding.info.title} rules are off: free play",
    )
    for obj in table.objects.values():
        if obj.id in owned or (isinstance(obj, Stack) and obj.locked):
            # The game's zones become ordinary piles: unlocked, and gone once emptied.
            if isinstance(obj, Stack):
                obj.holder = obj.holder and not obj.cards
            obj.locked = False
            change.dirty.add(obj.id)
    return change


# --- moves -------------------------------------------------------------------------------


def _where(table: Table, container: str, seat: int) -> str:
    """A container as the binding names it: ``hand`` for the mover's own hand."""
    return "hand" if container == hand_id(seat) else container


def drop_for(table: Table, actor: Actor, op: O.Op) -> Drop | None:
    """The game move a table operation makes, if it is one."""
    assert actor.seat is not None
    player = player_for_seat(table, actor.seat)
    if player is None:
        return None
    objs = table.objects
    if isinstance(op, O.Move) and op.to is not None:
        card = objs.get(op.id)
        if isinstance(card, Card) and card.parent is not None:
            check_ov(card, op.ov)
            _check_top_or_own(table, card, actor)
            return Drop(
                player,
                (card.face,),
                _where(table, card.parent, actor.seat),
                _where(table, op.to, actor.seat),
            )
    elif isinstance(op, O.MoveMany):
        cards = [objs.get(cid) for cid in op.ids]
        if all(isinstance(c, Card) for c in cards):
            parents = {c.parent for c in cards if isinstance(c, Card)}
            if len(parents) == 1 and None not in parents:
                for c in cards:
                    assert isinstance(c, Card)
                    _check_top_or_own(table, c, actor)
                src = next(iter(parents))
                assert src is not None
                return Drop(
                    player,
                    tuple(c.face for c in cards if isinstance(c, Card)),
                    _where(table, src, actor.seat),
                    _where(table, op.to, actor.seat),
                )
    elif isinstance(op, O.Take) and op.n == 1:
        stack = objs.get(op.id)
        if isinstance(stack, Stack) and stack.cards:
            check_ov(stack, op.ov)
            top = objs[stack.cards[-1]]
            assert isinstance(top, Card)
            return Drop(player, (top.face,), stack.id, "hand")
    return None


def game_op(
    table: Table, actor: Actor, op: O.Op, limits: Limits, rng: random.Random, now: float
) -> Change:
    """A table operation in a game room: a drag the rules understand, or a refusal."""
    binding = binding_for(table)
    assert binding is not None
    title = binding.info.title
    if actor.seat is None:
        return table_change(table, actor, op, limits, rng)  # raises not_seated
    oid: str = getattr(op, "id", "")
    target = table.objects.get(oid)
    if target is not None and in_other_hand(table, target, actor.seat):
        # Answered exactly like an id that never existed: old ids can't be probed.
        raise CardtableError(UNKNOWN_OBJECT, f"There is no object {oid!r} on this table.")
    if not started(table):
        raise CardtableError(
            RULES, f"The game of {title} starts once the players are seated.", detail="not_started"
        )
    drop = drop_for(table, actor, op)
    if drop is None:
        raise CardtableError(
            RULES,
            f"{title} rules are on: cards move only by the game's "
            "moves. Drag cards between the piles and your hand, or use the "
            "game's buttons.",
            detail="not_a_game_move",
        )
    answer = binding.interpret(_state(table), drop)
    if isinstance(answer, Cosmetic):
        if drop.source != drop.dest:
            raise CardtableError(
                RULES, "That move isn't allowed while the rules are on.", detail="not_a_game_move"
            )
        return table_change(table, actor, op, limits, rng)
    if isinstance(answer, Rejection):
        raise CardtableError(RULES, answer.message, detail=answer.code)
    return game_action(table, actor, answer, rng, now)


def game_action(
    table: Table, actor: Actor, action: object, rng: random.Random, now: float
) -> Change:
    """A game command (or an interpreted drag) for the engine; the table follows its state."""
    binding = binding_for(table)
    if binding is None:
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    if actor.seat is None:
        raise CardtableError(FORBIDDEN, "Spectators can't make game moves.")
    if not isinstance(action, dict):
        raise CardtableError(BAD_REQUEST, "A game action must be an object with a 'type'.")
    if not started(table):
        raise CardtableError(
            RULES,
            f"The game of {binding.info.title} starts once the players are seated.",
            detail="not_started",
        )
    player = player_for_seat(table, actor.seat)
    if player is None:
        raise CardtableError(
            FORBIDDEN,
            "Your seat is not playing in this game; watch, or sit down before the next game.",
        )
    return _apply(table, binding, player, action, rng, now)


def _apply(
    table: Table,
    binding: Binding,
    player: int | None,
    action: dict[str, Any],
    rng: random.Random,
    now: float,
) -> Change:
    old = session(table)
    state = old.state
    slot = table.game
    assert slot is not None
    fair_on = fairness.supported(binding) and (
        slot.fair_next is not None or slot.fair_now is not None
    )
    pending = slot.fair_next if fair_on else None
    # A move that deals anew deals from the committed seed and the values sent so far; the key
    # goes with every move (a later one replaces it), as the move that deals is not known yet.
    keyed = (
        fairness.deal_with(binding, state, fairness.key_for(table, pending))
        if pending is not None
        else state
    )
    new = binding.engine.apply(keyed, player, action)
    if isinstance(new, Rejection):
        raise CardtableError(RULES, new.message, detail=new.code)
    proj = binding.project(new) if fair_on else None
    sess = begin(slot, binding, new, proj)
    said: list[str] = []
    if proj is not None and proj.deal != old.projection().deal:
        said.append(fairness.maybe_over(table, binding, True))  # a deal replaced unfinished
        if pending is not None and pending.deal == proj.deal:
            said.append(fairness.dealt(table, sess.dump, rng))
    elif fair_on:
        fairness.note_action(slot, player, action)
    if fair_on:
        said.append(fairness.maybe_over(table, binding, sess.reveal() is not None))
        if sess.outcome() is not None and (slot.fair_next is None or slot.fair_next.deal != 1):
            said.append(fairness.commit_to(table, 1, rng))  # the first deal of the next game
    change = _project(table, sess, rng, now, old)
    change.log = "; ".join(
        line
        for line in (binding.engine.describe(state, player, action, names(table), after=new), *said)
        if line
    )
    table.undo.clear()
    return change


def set_state(table: Table, data: dict[str, Any], rng: random.Random, now: float) -> Change:
    """Put the running game in state ``data`` (checked by the engine's ``load``)."""
    binding = binding_for(table)
    if binding is None or not started(table):
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    try:
        state = binding.engine.load(data)
    except InvalidState as exc:
        raise CardtableError(BAD_REQUEST, f"Not a possible state: {exc}") from None
    assert table.game is not None
    old = kept(table)
    fairness.position_set(table.game)
    return _project(table, begin(table.game, binding, state), rng, now, old)


# --- what the server does by itself: timed moves and computer players ---------------------


def _played_by_server(table: Table, player: int) -> bool:
    assert table.game is not None
    seat = table.game.seats[player]
    p = table.seated().get(seat)
    if p is not None and p.bot:
        return True
    return table.game.fill and (p is None or p.status != "online")


def _level(table: Table, player: int) -> str:
    """The level the server plays engine player ``player`` at: the computer's in that seat; a
    seat the server fills in for (``fill``: empty, or its person away) plays ``normal``."""
    assert table.game is not None
    p = table.seated().get(table.game.seats[player])
    return p.level if p is not None and p.bot else DEFAULT_LEVEL


def _bot_move(
    table: Table, binding: Binding, rng: random.Random
) -> tuple[int, dict[str, Any]] | None:
    """The computers' move in this state. The bot runs once per state: the decision made for
    :func:`bot_due` is kept in the session and is the move made when the pause is over (while
    the server plays the same players); a process with no session kept decides anew."""
    sess = session(table)
    state = sess.state
    players = tuple((p, _level(table, p)) for p in sess.to_act() if _played_by_server(table, p))
    kept = sess.bot_move
    if kept is not None and kept[0] == players:
        return kept[1]
    found: tuple[int, dict[str, Any]] | None = None
    for player, level in players:
        action = GAMES[binding.info.name].move(state, player, rng, level)
        if action is not None and not str(action.get("type", "")).startswith("next_"):
            found = player, action
            break
    sess.bot_move = (players, found)
    return found


def bot_due(table: Table, now: float, bot_delay: float, rng: random.Random) -> float | None:
    """When a computer player may next move, for the reducer to record in the room at a commit
    made at ``now`` (:attr:`Table.bot_due`): ``bot_delay`` later, if a computer has a move to
    make now; ``None`` if none has (it is a person's turn, the game waits for people, or a hand
    is over and only a person deals on), so nothing wakes for it."""
    binding = binding_for(table)
    if binding is None or not started(table):
        return None
    # The decision is kept for the move itself, so its tie-breaks must not be predictable from
    # the state: a source seeded from the room's own (drawn only when a computer may be asked).
    if not any(_played_by_server(table, p) for p in session(table).to_act()):
        return None
    if _bot_move(table, binding, random.Random(rng.getrandbits(64))) is None:
        return None
    return now + bot_delay


def next_wake(table: Table) -> float | None:
    """When the server should look at this room again (:func:`auto_step`), as its state records
    it: the engine's scheduled action's deadline, or the time a computer player may move,
    whichever comes first (a computer offered a discard answers before the offer lapses);
    ``None``: nothing will happen by itself. The same answer on every process. A game not
    started yet: when its wait for the people's values for deal 1 ends."""
    if table.game is None:
        return None
    if not started(table):
        return table.game.start_due
    deadline = table.game.deadline
    times = [float(t) for t in (deadline, table.bot_due) if t is not None]
    return min(times) if times else None


def auto_step(table: Table, rng: random.Random, now: float) -> Change | None:
    """The engine's scheduled action, once due; else a computer player's move, once the room's
    recorded pause is over (:attr:`Table.bot_due`); else None. A timer that fires early, on any
    process, finds nothing to do."""
    binding = binding_for(table)
    if binding is None:
        return None
    assert table.game is not None
    if not started(table):  # a full room whose wait for values for deal 1 is over starts
        due = table.game.start_due
        return maybe_start(table, rng, now) if due is not None and now >= due else None
    deadline = table.game.deadline
    state = _state(table)
    if deadline is not None and now >= deadline:
        sched = binding.engine.scheduled(state)
        if sched is not None:
            return _apply(table, binding, sched.player, sched.action, rng, now)
    if table.bot_due is None or now < table.bot_due:
        return None
    move = _bot_move(table, binding, rng)
    if move is None:
        return None
    return _apply(table, binding, move[0], move[1], rng, now)


# --- what each seat sees -------------------------------------------------------------------


def game_view(table: Table, seat: int | None) -> dict[str, Any] | None:
    """The game as ``seat`` sees it (``None``: a spectator). What every seat shares comes from
    the game's session, built once per state; only ``view``, ``controls``, ``hint`` and
    ``legal`` are this seat's own."""
    binding = binding_for(table)
    if binding is None:
        return None
    slot = table.game
    assert slot is not None
    info = binding.info
    base: dict[str, Any] = {
        "name": info.name,
        "title": info.title,
        "options": slot.options,
        "fill": slot.fill,
        "min_players": info.min_players,
        "max_players": min(info.max_players, table.seats),
        "widgets": list(binding.widgets),
    }
    if not started(table):
        sitting = len(table.seated())
        need = min(info.max_players, table.seats)
        return {
            **base,
            "waiting": True,
            "players": [],
            "me": None,
            "phase": "waiting",
            "status": f"Waiting for players: {sitting} of {need} seated",
            "to_act": [],
            "timer": None,
            "controls": [],
            "hint": None,
            "scoreboard": None,
            "reveal": None,
            "outcome": None,
            "slots": [],
            "view": None,
            "legal": [],
            "fair": fairness.view(table),
        }
    sess = session(table)
    who = names(table)
    shared = sess.shared(who)
    me = player_for_seat(table, seat)
    team_of = shared["team_of"]
    seated = table.seated()
    players = [
        {
            "player": p,
            "seat": s,
            "name": who[p],
            "team": team_of.get(p, p),
            "bot": bool(seated.get(s) and seated[s].bot),
        }
        for p, s in enumerate(slot.seats)
    ]
    for entry in players:
        if entry["bot"]:
            entry["level"] = seated[entry["seat"]].level
    deadline = slot.deadline
    timer = {"ends": deadline, "seconds": slot.delay} if deadline is not None else None
    own = sess.own(me) if me is not None else None
    return {
        **base,
        "waiting": False,
        "players": players,
        "me": me,
        "phase": shared["phase"],
        "status": shared["status"],
        "to_act": shared["to_act"],
        "timer": timer,
        "controls": own["controls"] if own is not None else [],
        "hint": own["hint"] if own is not None else None,
        "scoreboard": shared["scoreboard"],
        "reveal": shared["reveal"],
        "outcome": shared["outcome"],
        "slots": shared["slots"],
        "view": own["view"] if own is not None else sess.public(),
        "legal": own["legal"] if own is not None else [],
        "fair": fairness.view(table),
    }


def _check_top_or_own(table: Table, card: Card, actor: Actor) -> None:
    holder = table.objects[card.parent] if card.parent else None
    if isinstance(holder, Hand) and holder.seat != actor.seat:
        raise CardtableError(FORBIDDEN, "That card is in another player's hand.")
    if isinstance(holder, Stack) and holder.layout != "row" and holder.cards[-1] != card.id:
        raise CardtableError(
            RULES, "Only the top card of a pile can be taken.", detail="top_card_only"
        )


# --- projection: the engine's state onto the table -----------------------------------------


def _look(objs: dict[str, Obj], card: Card) -> tuple[object, ...]:
    """What of a card a delta must follow besides its face and id (which a card never changes):
    where it lies, face up or not, and whether its pile shows its face (a pile its top card,
    a row every card). With the holder's kind, that decides every view's sight of its face."""
    parent = objs.get(card.parent) if card.parent is not None else None
    shown = (
        card.up
        and isinstance(parent, Stack)
        and (parent.layout == "row" or (bool(parent.cards) and parent.cards[-1] == card.id))
    )
    return (card.up, card.parent, card.x, card.y, type(parent), shown)


def _fields(obj: Obj | None) -> tuple[object, ...] | None:
    """Every stored field of a non-card object (and its kind), to tell whether it changed."""
    return None if obj is None else (type(obj), *msgspec.structs.astuple(obj))


def _lying(objs: dict[str, Obj], stack: Stack, z: ZoneSpec) -> int:
    """How many of the bottom cards of ``stack`` lie already as zone ``z`` shows them (the same
    faces, in the same order, the same side up, in the same place)? The projection leaves
    those, and their ids, as they are: a draw from the stock changes its top card only."""
    if stack.layout != z.layout:
        return 0
    n = 0
    for cid, face in zip(stack.cards, z.faces, strict=False):
        card = objs.get(cid)
        if (
            not isinstance(card, Card)
            or card.face != face
            or card.up != z.up
            or card.parent != z.id
            or card.x != z.x
            or card.y != z.y
        ):
            break
        n += 1
    return n


def _same_start(was: Sequence[str], now: Sequence[str]) -> int:
    """How many faces at the start of ``now`` are those at the start of ``was``?"""
    n = min(len(was), len(now))
    if was[:n] == now[:n]:
        return n
    i = 0
    while was[i] == now[i]:
        i += 1
    return i


def _same_place(stack: Stack, z: ZoneSpec, owner: int | None) -> bool:
    return (
        stack.holder,
        stack.label,
        stack.layout,
        stack.x,
        stack.y,
        stack.w,
        stack.h,
        stack.locked,
        stack.owner,
    ) == (True, z.label, z.layout, z.x, z.y, z.w, z.h, True, owner)


def _settled_hand(objs: dict[str, Obj], hand: Hand, faces: Sequence[str]) -> bool:
    """Does ``hand`` hold exactly these cards already (in the player's own order)?"""
    if len(hand.cards) != len(faces):
        return False
    held = []
    for cid in hand.cards:
        card = objs.get(cid)
        if not isinstance(card, Card) or card.up or card.parent != hand.id:
            return False
        held.append(card.face)
    return sorted(held) == sorted(faces)


def _project(
    table: Table, sess: Session, rng: random.Random, now: float, prev: Session | None = None
) -> Change:
    """Make the table show the session's projection, and report what that touched for the
    deltas: the objects it made, moved or changed (a card whose place, side or visibility on
    top of its pile changed), the ones it removed, and which hand held each changed card.

    ``prev`` is the session of the state before. When the last commit was its projection's
    (nothing else changed the table since), a zone or hand it showed as this projection shows
    it is left alone without looking at its cards, and so is a marker it showed as it is.

    Cards keep their ids only where that tells nobody anything: between zones, from a zone
    into a hand, and within one hand. A card that leaves a hand (a discard, a meld laid down,
    the face-down knock discard) is a new card with a new id, like every card of a new deal,
    and so is a card seen face up that now lies face down in a zone (a rebuilt stock).
    """
    proj: Projection = sess.projection()
    slot = table.game
    assert slot is not None
    objs = table.objects
    seats: Sequence[int] = slot.seats
    fresh = slot.deal != proj.deal

    def seat_of(owner: int | None) -> int | None:
        return seats[owner] if owner is not None and owner < len(seats) else None

    # Zones and hands that show their part of the projection already are left alone: most
    # moves change two or three places, and the stock, the tricks won and the other hands stay.
    settled: set[str] = set()
    lying: dict[str, int] = {}  # of the other zones, how many bottom cards stay as they are
    staying_put: set[str] = set()  # those cards
    recheck: list[str] = []  # the top one of each: it may become, or stop being, the top card
    shown = prev.shown if prev is not None else None
    if shown is not None and shown[0] == table.version:  # the table as that projection left it
        was_zones = {z.id: z for z in shown[1].zones}
        was_hands = shown[1].hands
        was_markers = {m.id: m for m in shown[1].markers}
    else:
        was_zones, was_hands, was_markers = {}, {}, {}
    if not fresh:
        for z in proj.zones:
            was = was_zones.get(z.id)
            if (was is z or was == z) and not z.shuffled:
                settled.add(z.id)
                continue
            stack = objs.get(z.id)
            if not isinstance(stack, Stack) or z.shuffled:
                continue  # a shuffled zone's cards are all new
            if was is not None and (was.layout, was.up, was.x, was.y) == (
                z.layout,
                z.up,
                z.x,
                z.y,
            ):
                n = _same_start(was.faces, z.faces)  # its cards lie as that projection put them
            else:
                n = _lying(objs, stack, z)
            if n == len(z.faces) == len(stack.cards) and _same_place(stack, z, seat_of(z.owner)):
                settled.add(z.id)
            elif n:
                lying[z.id] = n
                staying_put.update(stack.cards[:n])
                recheck.append(stack.cards[n - 1])
        for player, faces in proj.hands.items():
            hand = objs.get(hand_id(seats[player]))
            if isinstance(hand, Hand) and (
                was_hands.get(player) == faces or _settled_hand(objs, hand, faces)
            ):
                settled.add(hand.id)
    looks: dict[str, tuple[object, ...]] = {}  # each card moved or removed, before
    in_hand: dict[str, int] = {}  # the seat whose hand held each of those cards before
    touched: dict[str, tuple[object, ...] | None] = {}  # other objects set: fields before
    placed: list[str] = []  # the cards the projection put somewhere
    pool: dict[str, list[str]] = {}  # cards outside hands, by face: reusable anywhere
    held: dict[str, list[str]] = {}  # cards in hands, by face: only their own hand keeps them
    rechecked = set(recheck)
    for obj in objs.values():
        if isinstance(obj, Card) and obj.parent not in settled:
            if obj.id in staying_put:  # it stays: only a pile's new top card is looked at again
                if obj.id in rechecked:
                    looks[obj.id] = _look(objs, obj)
                continue
            looks[obj.id] = _look(objs, obj)
            holder = objs.get(obj.parent) if obj.parent is not None else None
            if isinstance(holder, Hand):
                in_hand[obj.id] = holder.seat
            if not fresh:
                (held if isinstance(holder, Hand) else pool).setdefault(obj.face, []).append(obj.id)
    if fresh:
        # A new deal: every card gets a new id, unlinkable to anything seen before.
        for oid in looks:
            del objs[oid]

    # A card that stays in a face-up zone keeps its id before any other card of the same face
    # (two decks) may take one. (In a face-down zone only the bottom cards that lie as shown
    # keep theirs: see card_for.)
    staying: dict[tuple[str | None, str], list[str]] = {}
    wanted: collections.Counter[tuple[str | None, str]] = (
        collections.Counter(
            (z.id, f)
            for z in proj.zones
            if z.id not in settled and z.up and not z.shuffled
            for f in z.faces[lying.get(z.id, 0) :]
        )
        if pool
        else collections.Counter()
    )
    for face, ids in pool.items():
        for cid in list(ids):
            key = (objs[cid].parent, face)  # type: ignore[union-attr]
            if len(staying.get(key, ())) < wanted[key]:
                staying.setdefault(key, []).append(cid)
                ids.remove(cid)

    def note(oid: str) -> None:
        if oid not in touched:
            touched[oid] = _fields(objs.get(oid))

    def reuse(ids: list[str] | None, into_hand: bool) -> str | None:
        """An id from ``ids`` for a card placed here. Into a hand, only a card that lay face
        down or in sight (a pile's top, a row): a card can be taken from nowhere else, so an id
        seen face up lower in a pile (shuffled into a rebuilt stock) marks no card in a hand."""
        if not ids:
            return None
        if not into_hand:
            return ids.pop()
        for i in range(len(ids) - 1, -1, -1):
            up, shown = looks[ids[i]][0], looks[ids[i]][5]
            if shown or not up:
                return ids.pop(i)
        return None

    shuffled = {z.id for z in proj.zones if z.shuffled}

    def card_for(face: str, up: bool, parent: str, x: float, y: float) -> str:
        # A card placed face down in a zone above the bottom cards that lie as shown is a new
        # card, and so is every card of a shuffled zone: an id seen face up (a stock rebuilt
        # from the discard pile, a trick gathered) would tell that card's face, and a face-down
        # id that moved (to its twin's place, two decks) where that face lies.
        into_hand = isinstance(objs.get(parent), Hand)
        cid = None
        if into_hand or (up and parent not in shuffled):
            cid = reuse(staying.get((parent, face)), into_hand) or reuse(pool.get(face), into_hand)
        if cid is not None:
            card = objs[cid]
            assert isinstance(card, Card)
        else:
            card = Card(id=new_id("c", rng), face=face)
            objs[card.id] = card
        card.up, card.parent, card.x, card.y = up, parent, x, y
        placed.append(card.id)
        return card.id

    zone_ids = []
    for z in proj.zones:
        if z.id in settled:
            zone_ids.append(z.id)
            continue
        note(z.id)
        stack = objs.get(z.id)
        if not isinstance(stack, Stack):
            stack = Stack(id=z.id)
            objs[z.id] = stack
        stack.holder, stack.label, stack.layout = True, z.label, z.layout
        stack.x, stack.y, stack.w, stack.h, stack.locked = z.x, z.y, z.w, z.h, True
        stack.owner = seat_of(z.owner)
        n = lying.get(z.id, 0)
        stack.cards = [*stack.cards[:n], *(card_for(f, z.up, z.id, z.x, z.y) for f in z.faces[n:])]
        zone_ids.append(z.id)
    marker_ids = []
    for m in proj.markers:
        kind = MARKERS.get(m.kind)
        if kind is None:
            continue
        was_marker = was_markers.get(m.id)
        if (was_marker is m or was_marker == m) and m.id in objs:  # shown as it is: left alone
            marker_ids.append(m.id)
            continue
        note(m.id)
        found = objs.get(m.id)
        marker: Chips | Counter | Label = (
            found
            if isinstance(found, Chips | Counter | Label) and isinstance(found, kind)
            else kind(id=m.id)
        )
        objs[m.id] = marker
        marker.x, marker.y, marker.locked, marker.owner = m.x, m.y, True, seat_of(m.owner)
        if isinstance(marker, Chips):
            marker.count, marker.color, marker.label = m.value, m.color, m.label
        elif isinstance(marker, Counter):
            marker.value, marker.label = m.value, m.label
        else:
            marker.text = m.text or m.label
        marker_ids.append(m.id)
    keep = set(zone_ids) | set(marker_ids)
    for oid in [*slot.zones, *slot.markers]:
        if oid not in keep and oid in objs:
            note(oid)
            del objs[oid]
    slot.zones, slot.markers = zone_ids, marker_ids
    for player, faces in proj.hands.items():
        hand = objs[hand_id(seats[player])]
        assert isinstance(hand, Hand)
        if hand.id in settled:
            continue
        note(hand.id)
        want = list(faces)
        kept = []
        for cid in hand.cards:  # cards that stay keep the player's own order
            card = objs.get(cid)
            if isinstance(card, Card) and card.face in want and cid in held.get(card.face, ()):
                want.remove(card.face)
                held[card.face].remove(cid)
                card.parent, card.up = hand.id, False
                kept.append(cid)
                placed.append(cid)
        hand.cards = kept + [card_for(f, False, hand.id, hand.x, hand.y) for f in want]
    for ids in [*pool.values(), *held.values(), *staying.values()]:  # no longer shown
        for cid in ids:
            del objs[cid]
    slot.deal = proj.deal
    sched = sess.binding.engine.scheduled(sess.state)
    slot.deadline = now + sched.delay if sched is not None else None
    slot.delay = sched.delay if sched is not None else None
    change = Change(game_changed=True)
    for cid in [*placed, *recheck]:
        before = looks.get(cid)
        if before is None:
            change.created.add(cid)
            change.dirty.add(cid)
        elif before != _look(objs, objs[cid]):  # type: ignore[arg-type]
            change.dirty.add(cid)
    for oid, fields in touched.items():
        now_at = objs.get(oid)
        if now_at is None:
            if fields is not None:
                change.removed.add(oid)
        elif fields is None:
            change.created.add(oid)
            change.dirty.add(oid)
        elif fields != _fields(now_at):
            change.dirty.add(oid)
    change.removed |= {oid for oid in looks if oid not in objs}
    change.held = {
        oid: seat for oid, seat in in_hand.items() if oid in change.dirty or oid in change.removed
    }
    sess.shown = (table.version + 1, proj)  # stamped with the next version when committed
    return change
