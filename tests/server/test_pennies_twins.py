"""Pennies plays with two decks, so every face is on two cards: the projection must never let
a card's id tell where its twin lies ("Hidden information" in docs/architecture.md).

Each viewer (both players, a spectator) is held to :func:`judge`, over every message it
received through real sockets and, without sockets, over random self-play projected move by
move onto a table: no id seen with a face lies face down later; a face-down pile only loses
cards from its top (the ids that stay keep their places), and a stock rebuilt from the discard
pile holds only ids its viewer never saw; a new round only ids never seen. Without sockets the
table itself is judged too: an id a viewer saw face up is in another player's hand only when
everyone saw it taken there (the top discard bought, a set given back).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest
from msgspec.structs import replace

from plugins.pennies.rules import ENGINE, PenniesState
from plugins.registry import get
from plugins.simulate import drive, random_legal
from server.game import rules as games
from server.net.http import ROOMS_KEY
from server.table.objects import Card, Hand, Stack, Table
from server.table.templates import new_table
from server.table.view import card_visible
from tests.plugins.test_pennies_rules import deal, ok
from tests.server.helpers import game_after
from tests.server.test_rule_shuffles_unlink import close, people_and_a_spectator, settle

# A frame is what one viewer sees at one version: each card it sees (parent, face up, face
# shown), each pile's cards bottom first, the round and the stock's rebuilds so far.
Frame = tuple[dict[str, tuple[str | None, bool, bool]], dict[str, list[str]], int, int]


def judge(frames: Iterable[Frame], who: object) -> int:
    """Hold one viewer's frames, in order, to the rules in the module docstring. Returns how
    many face-down pile cards were judged."""
    seen: set[str] = set()  # every card id this viewer was ever shown
    seen_face: set[str] = set()  # the ids it saw face up or with their face
    before: Frame | None = None
    judged = 0
    for n, frame in enumerate(frames):
        cards, piles, round_no, rebuilds = frame
        where = f"{who} at frame {n}"
        if before is not None and round_no != before[2]:
            old = set(cards) & seen
            assert not old, f"{where}: round {round_no} holds {len(old)} ids seen before"
        for pile, ids in piles.items():
            down = [cid for cid in ids if not cards[cid][1]]
            judged += len(down)
            linked = set(down) & seen_face
            assert not linked, f"{where}: {linked} face down in {pile}, seen with a face"
            if before is None or round_no != before[2]:
                continue
            was = [cid for cid in before[1].get(pile, []) if not before[0][cid][1]]
            if rebuilds != before[3] and pile == "stock":
                assert not set(down) & seen, f"{where}: a rebuilt stock holds ids seen before"
                continue
            keep = 0
            while keep < min(len(was), len(down)) and was[keep] == down[keep]:
                keep += 1
            moved = set(down[keep:]) & seen
            assert not moved, (
                f"{where}: {moved} face down in {pile}, not where they lay "
                f"(bottom {keep} of {len(was)} kept, {len(down)} now)"
            )
        seen |= set(cards)
        seen_face |= {cid for cid, (_, up, face) in cards.items() if up or face}
        before = frame
    return judged


def frames_received(c: Any, since: int) -> list[Frame]:
    """What client ``c`` saw at each version from ``since`` on, replayed from its messages."""
    snap = next(p for name, p in c.received if name == "snapshot")
    deltas = {p["v"]: p for name, p in c.received if name == "delta" and p["v"] > snap["v"]}
    objs: dict[str, dict[str, Any]] = {}
    view: dict[str, Any] = {}
    game: dict[str, Any] | None = None
    out: list[Frame] = []
    for p in [snap, *(deltas[v] for v in sorted(deltas))]:
        for oid in p.get("del", []):
            objs.pop(oid, None)
        objs.update({o["id"]: o for o in p.get("objects", p.get("set", []))})
        game = game_after(game, p)
        view = (game or {}).get("view") or view
        cards = {
            oid: (o.get("parent"), bool(o["up"]), "face" in o)
            for oid, o in objs.items()
            if o["t"] == "card"
        }
        piles = {oid: list(o["cards"]) for oid, o in objs.items() if o["t"] == "stack"}
        if p["v"] >= since:
            out.append((cards, piles, view["round_no"], view["reshuffles"]))
    return out


def frame_of(table: Table, seat: int | None, state: PenniesState) -> Frame:
    """What ``seat`` (``None``: a spectator) sees of ``table`` now."""
    objs = table.objects
    cards: dict[str, tuple[str | None, bool, bool]] = {}
    for obj in objs.values():
        if isinstance(obj, Card):
            holder = objs.get(obj.parent) if obj.parent is not None else None
            if isinstance(holder, Hand) and holder.seat != seat:
                continue
            cards[obj.id] = (obj.parent, obj.up, card_visible(table, obj, seat))
    piles = {o.id: list(o.cards) for o in objs.values() if isinstance(o, Stack)}
    return cards, piles, state.round_no, state.reshuffles


def taken_in_sight(
    table: Table, frames: list[list[Frame]], hands: list[dict[str, str]], seats: list[int | None]
) -> None:
    """The table's side of the rule: an id a viewer saw face up that now lies in another
    player's hand was, the move before, in everyone's sight (a pile's top, a meld) - it was
    seen taken there. ``hands[i]`` maps each card of seat ``i``'s hand to where it came from
    and is kept up to date."""
    objs = table.objects
    for i, seat in enumerate(seats):
        if seat is None:
            continue
        hand = objs[f"hand{seat}"]
        assert isinstance(hand, Hand)
        came = hands[i]
        for cid in hand.cards:
            if cid in came:
                continue
            came[cid] = "new"
            for j, other in enumerate(seats):
                if j == i or len(frames[j]) < 2:
                    continue
                earlier = frames[j][:-1]
                if not any(cid in f[0] and (f[0][cid][1] or f[0][cid][2]) for f in earlier):
                    continue
                last = frames[j][-2][0].get(cid)
                assert last is not None and last[2], (
                    f"seat {seat}'s hand holds {cid}, which {other} saw face up, but was not "
                    "in sight the move before: it did not go there in sight"
                )
        for cid in list(came):
            if cid not in hand.cards:
                del came[cid]


def project_play(seed: int, steps: int) -> tuple[int, int]:
    """Pennies self-play (two random-legal players: they rebuild the stock often and have
    sets given back) for ``steps`` actions, each state put on
    a table by the server's projection; every seat and a spectator judged. Returns the
    face-down cards judged and the stock rebuilds seen."""
    start = ENGINE.new_game(2, {}, seed)
    states: list[PenniesState] = []
    rng = random.Random(seed)
    drive(
        ENGINE,
        start,
        [random_legal, random_legal],
        [rng] * 2,
        observe=lambda _b, _p, _a, s: states.append(s),
        max_steps=steps,
    )
    trng = random.Random(seed + 1)
    table = new_table("TWINROOM01", "blank", 2, 0.0, trng)
    games.start_with(table, "pennies", None, [0, 1], seed, trng, 0.0)
    seats: list[int | None] = [0, 1, None]
    frames: list[list[Frame]] = [[], [], []]
    hands: list[dict[str, str]] = [{}, {}, {}]
    rebuilds = 0
    for state in [start, *states]:
        games.set_state(table, ENGINE.dump(state), trng, 0.0)
        for i, seat in enumerate(seats):
            frames[i].append(frame_of(table, seat, state))
        taken_in_sight(table, frames, hands, seats)
        lm = state.last_move
        rebuilds += bool(lm is not None and lm.reshuffled)
    judged = sum(judge(f, seat) for f, seat in zip(frames, seats, strict=True))
    return judged, rebuilds


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_self_play_projected_links_no_twin(seed: int) -> None:
    judged, rebuilds = project_play(seed, steps=1200)
    assert judged > 0 and rebuilds > 5, (judged, rebuilds)


# --- over real sockets: a position with twins everywhere -----------------------------------

ANA = ["C5", "D5", "H5", "C7", "D8", "H10", "S11", "C12", "D13", "H3", "H1"]
BEN = ["C6", "D7", "H8", "S9", "C10", "D11", "H12", "S13", "C3", "D4", "H6"]


def twins_position() -> PenniesState:
    """Round 1, Ana to move. The stock holds four cards (top first): a 9 of diamonds, the
    other 9 of diamonds lower; the last card's twin lies in the discard pile, where the rest
    of the decks lie face up under the upcard (a 2 of spades), at the place from which the
    stock's rebuild (rule 9: its shuffle is the seed's) puts it at the bottom of the new stock:
    where the last card lay."""
    base = deal(2, [ANA, BEN], "S2", ["C2"])
    rest = list(base.stock)
    for face in ("D9", "D9", "S4", "S4"):
        rest.remove(face)
    last = next(f for f in rest if rest.count(f) == 2 and f[0] != "C")
    rest.remove(last)
    order = list(range(len(rest)))
    random.Random(f"pennies:{base.seed}:1:reshuffle:0").shuffle(order)
    twin = rest.index(last)
    rest[twin], rest[order[-1]] = rest[order[-1]], rest[twin]
    stock = ("D9", "S4", "D9", last)
    state = replace(base, stock=stock, discard=(*rest, "S4", "S2"))
    assert ENGINE.load(ENGINE.dump(state)) == state
    return state


def twins_script(state: PenniesState) -> list[tuple[int, dict[str, Any], PenniesState]]:
    """Ana draws the top 9 (its twin lower in the stock); Ben buys the upcard with two stock
    cards (the twin among them); Ana lays the fives toward her first meld (one set: short),
    discards, and gets them back; Ben buys her discard with the stock down to one card, so the
    stock is rebuilt from the discard pile (the last card's twin in it); Ben discards, Ana
    draws from the rebuilt stock and buys nothing more."""
    script: list[tuple[int, dict[str, Any]]] = [
        (0, {"type": "decline"}),
        (1, {"type": "buy"}),  # offered the upcard
        (0, {"type": "meld", "melds": [{"cards": ["C5", "D5", "H5"]}]}),
        (0, {"type": "discard", "card": "H1"}),
        (1, {"type": "buy"}),
        (1, {"type": "discard", "card": "H12"}),
        (0, {"type": "decline"}),
    ]
    out: list[tuple[int, dict[str, Any], PenniesState]] = []
    for player, action in script:
        state = ok(state, player, action)
        out.append((player, action, state))
    return out


def to_next_round(state: PenniesState, after: int) -> list[tuple[Any, dict[str, Any], Any]]:
    """The registered bots play on from ``state`` to the end of its round and ``after``
    actions into the next: each step as (player, action, state after)."""
    bot = get("pennies").bot
    steps: list[tuple[Any, dict[str, Any], Any]] = []
    first = state.round_no

    def into(s: PenniesState) -> int:
        return sum(1 for _, _, t in steps if t.round_no != first)

    played = drive(
        ENGINE,
        state,
        [bot] * 2,
        [random.Random(4)] * 2,
        observe=lambda _b, p, a, s: steps.append((p, a, s)),
        stop=lambda s: into(s) >= after,
    )
    assert played.ok and into(state) >= after, played.failure
    return steps


async def play_over_sockets(
    server: Any, start: PenniesState, script: list[tuple[int | None, dict[str, Any], Any]]
) -> list[Any]:
    code, people, eve = await people_and_a_spectator(server, "pennies", 2)
    everyone = [*people, eve]
    try:
        await server.app[ROOMS_KEY].set_game_state(code, ENGINE.dump(start))
        table = await settle(server, code, everyone)
        since = table.version
        for player, action, after in script:
            assert table.game is not None
            if ENGINE.to_act(ENGINE.load(table.game.state)):
                assert player is not None
                await people[player].request("game", {"action": action})
            else:
                await eve.wait_for(lambda v=table.version: eve.version > v)
            table = await settle(server, code, everyone)
            assert table.game is not None
            assert table.game.state == ENGINE.dump(after), action
        return [(c.seat, frames_received(c, since)) for c in everyone]
    finally:
        await close(*everyone)


async def test_twins_in_the_stock_discard_hands_and_melds_over_sockets(server):
    """Draws, buys, a first meld given back, a stock rebuilt under a one-card stock whose
    card's twin is in the discard pile, the bots' play to the round's end and into the next:
    every message each viewer got is judged."""
    start = twins_position()
    script = twins_script(start)
    script += to_next_round(script[-1][2], after=3)
    rebuilt = next(s for _, _, s in script if s.last_move is not None and s.last_move.reshuffled)
    assert rebuilt.stock[-1] == start.stock[-1]  # the bottom card's face, as before
    assert any(s.last_move is not None and s.last_move.returned for _, _, s in script)
    for seat, frames in await play_over_sockets(server, start, script):
        assert judge(frames, seat) > 0
