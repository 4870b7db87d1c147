"""Rule-plugin rooms: table operations become engine actions, and the engine's state is
projected back onto the table.

This is the "plugin binding" step of the data flow (room service → here → table model). The
engine decides what is legal; the table only ever shows the projection of the engine's state,
through the same per-seat visibility as every other room.
"""

from __future__ import annotations

import secrets
from typing import Any

import msgspec

from plugins.base import Cosmetic, GameBinding, MoveIntent, Projection, Rejection
from plugins.registry import GAMES
from server.errors import BAD_REQUEST, FORBIDDEN, RULES, UNKNOWN_OBJECT, CardtableError
from server.table import ops as O
from server.table.apply import Actor, Change, Limits, apply_op, check_ov, new_id
from server.table.objects import Card, Hand, Stack, Table, hand_id
from server.table.view import card_visible, in_other_hand

_enc = msgspec.msgpack.Encoder()


def binding_for(table: Table) -> GameBinding | None:
    if table.game is None:
        return None
    return GAMES[table.game["name"]]


def _state(table: Table, binding: GameBinding) -> Any:
    assert table.game is not None
    return binding.engine.load(table.game["state"])


def start_game(table: Table, name: object, options: object, seed: int | None = None) -> Change:
    """Turn ``table`` into a fresh game of ``name``: clear it, deal, and lay the cards out."""
    if not isinstance(name, str) or name not in GAMES:
        raise CardtableError(BAD_REQUEST, f"Unknown game {name!r}; games: {', '.join(GAMES)}.")
    binding = GAMES[name]
    if options is not None and not isinstance(options, dict):
        raise CardtableError(BAD_REQUEST, "Game options must be an object.")
    opts = binding.info.resolve_options(options)
    if isinstance(opts, Rejection):
        raise CardtableError(BAD_REQUEST, opts.message, detail=opts.code)
    if table.seats < binding.info.min_players:
        raise CardtableError(BAD_REQUEST, f"{binding.info.title} needs "
                             f"{binding.info.min_players} seats; this room has {table.seats}.")
    seed = secrets.randbits(63) if seed is None else seed
    players = min(table.seats, binding.info.max_players)
    state = binding.engine.new_game(players, opts, seed)
    before = _encoded(table)
    for oid, obj in list(table.objects.items()):
        if not isinstance(obj, Hand):
            del table.objects[oid]
        else:
            obj.cards = []
    table.undo.clear()
    table.game = {"name": name, "options": opts, "state": binding.engine.dump(state),
                  "deal": None, "zones": []}
    change = _project(table, binding, state, before)
    change.log = f"A game of {binding.info.title} started"
    return change


def stop_game(table: Table) -> Change:
    """Back to free play: the cards stay where they are and move freely again."""
    binding = binding_for(table)
    if binding is None:
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    zones = set(table.game["zones"]) if table.game else set()
    table.game = None
    version = table.version + 1
    change = Change(game_changed=True, log=f"{binding.info.title} rules are off: free play")
    for obj in table.objects.values():
        if isinstance(obj, Stack) and (obj.id in zones or obj.locked):
            # The game's zones become ordinary piles: unlocked, and gone once emptied.
            obj.holder = obj.holder and not obj.cards
            obj.locked = False
            obj.v = version
            change.dirty.add(obj.id)
    table.version = version
    return change


def apply_game_op(table: Table, actor: Actor, op: O.Op, limits: Limits) -> Change:
    """A table operation in a game room: a drag the rules understand, or a refusal."""
    binding = binding_for(table)
    assert binding is not None
    title = binding.info.title
    if actor.seat is None:
        return apply_op(table, actor, op, limits)  # raises not_seated
    intent: MoveIntent | None = None
    oid: str = getattr(op, "id", "")
    target = table.objects.get(oid)
    if target is not None and in_other_hand(table, target, actor.seat):
        # Answered exactly like an id that never existed: old ids can't be probed.
        raise CardtableError(UNKNOWN_OBJECT, f"There is no object {oid!r} on this table.")
    if isinstance(op, O.Move) and op.to is not None:
        card = table.objects.get(op.id)
        if isinstance(card, Card) and card.parent is not None:
            check_ov(card, op.ov)
            intent = MoveIntent(actor.seat, card.face, card.parent, op.to)
            _check_top_or_own(table, card, actor)
    elif isinstance(op, O.Take) and op.n == 1:
        stack = table.objects.get(op.id)
        if isinstance(stack, Stack) and stack.cards:
            top = table.objects[stack.cards[-1]]
            assert isinstance(top, Card)
            intent = MoveIntent(actor.seat, top.face, stack.id, hand_id(actor.seat))
    if intent is None:
        raise CardtableError(RULES, f"{title} rules are on: cards move only by the game's "
                             "moves. Drag cards between the piles and your hand, or use the "
                             "game buttons.", detail="not_a_game_move")
    state = _state(table, binding)
    answer = binding.action_for_move(state, intent)
    if isinstance(answer, Cosmetic):
        if intent.source != intent.dest:
            raise CardtableError(RULES, "That move isn't allowed while the rules are on.",
                                 detail="not_a_game_move")
        return apply_op(table, actor, op, limits)
    if isinstance(answer, Rejection):
        raise CardtableError(RULES, answer.message, detail=answer.code)
    return run_action(table, actor, answer)


def run_action(table: Table, actor: Actor, action: object) -> Change:
    """A game command (or an interpreted drag) for the engine; the table follows its state."""
    binding = binding_for(table)
    if binding is None:
        raise CardtableError(BAD_REQUEST, "No game is running in this room.")
    if actor.seat is None:
        raise CardtableError(FORBIDDEN, "Spectators can't make game moves.")
    if not isinstance(action, dict):
        raise CardtableError(BAD_REQUEST, "A game action must be an object with a 'type'.")
    state = _state(table, binding)
    new = binding.engine.apply(state, actor.seat, action)
    if isinstance(new, Rejection):
        raise CardtableError(RULES, new.message, detail=new.code)
    assert table.game is not None
    table.game["state"] = binding.engine.dump(new)
    change = _project(table, binding, new, _encoded(table))
    change.log = _describe(actor.name, action)
    table.undo.clear()
    return change


def bot_move(table: Table, rng: Any) -> tuple[str, dict[str, Any]] | None:
    """The next computer player's (player id, action), if a bot has something to do."""
    binding = binding_for(table)
    bots = [p for p in table.players.values() if p.bot and p.seat is not None]
    if binding is None or not bots:
        return None
    state = _state(table, binding)
    for player in bots:
        if player.seat is not None:
            action = binding.bot_action(state, player.seat, rng)
            if action is not None:
                return player.id, action
    return None


def game_view(table: Table, seat: int | None) -> dict[str, Any] | None:
    binding = binding_for(table)
    if binding is None:
        return None
    state = _state(table, binding)
    players = min(table.seats, binding.info.max_players)
    legal = binding.engine.legal_actions(state, seat) if seat is not None and seat < players \
        else []
    assert table.game is not None
    return {"name": binding.info.name, "title": binding.info.title,
            "options": table.game["options"], "view": binding.engine.view(state, seat),
            "legal": legal}


def _check_top_or_own(table: Table, card: Card, actor: Actor) -> None:
    holder = table.objects[card.parent] if card.parent else None
    if isinstance(holder, Hand) and holder.seat != actor.seat:
        raise CardtableError(FORBIDDEN, "That card is in another player's hand.")
    if isinstance(holder, Stack) and holder.layout != "row" and holder.cards[-1] != card.id:
        raise CardtableError(RULES, "Only the top card of a pile can be taken.")


_VERBS = {"draw": "drew a card", "take_upcard": "took the upcard",
          "pass": "passed the upcard", "knock": "knocked", "big_gin": "declared Big Gin!",
          "finish_layoff": "finished laying off", "next_hand": "dealt the next hand"}


def _describe(name: str, action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "discard":
        return f"{name} discarded {action.get('card')}"  # discards are face up: public
    if kind == "lay_off":
        return f"{name} laid off {action.get('card')}"
    if kind == "draw" and action.get("source") == "discard":
        return f"{name} took the top discard"
    return f"{name} {_VERBS.get(str(kind), str(kind))}"


Encoded = dict[str, tuple[bytes, tuple[bool, ...], int | None]]


def _encoded(table: Table) -> Encoded:
    """Each object's bytes, for cards who may see its face, and the seat whose hand holds it:
    what a delta must follow."""
    views = [None, *range(table.seats)]
    objs = table.objects
    out: Encoded = {}
    for oid, obj in objs.items():
        if isinstance(obj, Card):
            holder = objs.get(obj.parent) if obj.parent is not None else None
            out[oid] = (_enc.encode(obj), tuple(card_visible(table, obj, s) for s in views),
                        holder.seat if isinstance(holder, Hand) else None)
        else:
            out[oid] = (_enc.encode(obj), (), None)
    return out


def _project(table: Table, binding: GameBinding, state: Any, old: Encoded) -> Change:
    """Make the table show ``binding.project(state)``; report what changed for the deltas.

    Cards keep their ids only where that tells nobody anything: between zones, from a zone
    into a hand, and within one hand. A card that leaves a hand (a discard, a meld laid down,
    the face-down knock discard) is a new card with a new id, like every card of a new deal.
    """
    proj: Projection = binding.project(state)
    assert table.game is not None
    fresh = table.game.get("deal") != proj.deal
    pool: dict[str, list[str]] = {}  # cards outside hands, by face: reusable anywhere
    held: dict[str, list[str]] = {}  # cards in hands, by face: only their own hand keeps them
    if fresh:
        # A new deal: every card gets a new id, unlinkable to anything seen before.
        for oid, obj in list(table.objects.items()):
            if isinstance(obj, Card):
                del table.objects[oid]
    else:
        for obj in table.objects.values():
            if isinstance(obj, Card):
                in_hand = obj.parent is not None and isinstance(
                    table.objects.get(obj.parent), Hand)
                (held if in_hand else pool).setdefault(obj.face, []).append(obj.id)

    def card_for(face: str, up: bool, parent: str, x: float, y: float) -> str:
        ids = pool.get(face)
        if ids:
            cid = ids.pop()
            card = table.objects[cid]
            assert isinstance(card, Card)
        else:
            card = Card(id=new_id("c"), face=face)
            table.objects[card.id] = card
        card.up, card.parent, card.x, card.y = up, parent, x, y
        return card.id

    zone_ids = []
    for z in proj.zones:
        stack = table.objects.get(z.id)
        if not isinstance(stack, Stack):
            stack = Stack(id=z.id)
            table.objects[z.id] = stack
        stack.holder, stack.label, stack.layout = True, z.label, z.layout
        stack.x, stack.y, stack.w, stack.h, stack.locked = z.x, z.y, z.w, z.h, True
        stack.cards = [card_for(f, z.up, z.id, z.x, z.y) for f in z.faces]
        zone_ids.append(z.id)
    for oid in table.game.get("zones", []):
        if oid not in zone_ids and oid in table.objects:
            del table.objects[oid]
    table.game["zones"] = zone_ids
    for seat, faces in proj.hands.items():
        hand = table.objects[hand_id(seat)]
        assert isinstance(hand, Hand)
        want = list(faces)
        kept = []
        for cid in hand.cards:  # cards that stay keep the player's own order
            card = table.objects.get(cid)
            if isinstance(card, Card) and card.face in want and cid in held.get(card.face, ()):
                want.remove(card.face)
                held[card.face].remove(cid)
                card.parent, card.up = hand.id, False
                kept.append(cid)
        hand.cards = kept + [card_for(f, False, hand.id, hand.x, hand.y) for f in want]
    for ids in [*pool.values(), *held.values()]:  # cards the projection no longer shows
        for cid in ids:
            del table.objects[cid]
    table.game["deal"] = proj.deal
    version = table.version + 1
    change = Change(game_changed=True)
    for oid, now in _encoded(table).items():
        if oid not in old:
            change.created.add(oid)
        if old.get(oid) != now:
            table.objects[oid].v = version
            change.dirty.add(oid)
    change.removed = {oid for oid in old if oid not in table.objects}
    change.held = {oid: seat for oid, (_, _, seat) in old.items()
                   if seat is not None and (oid in change.dirty or oid in change.removed)}
    table.version = version
    return change
