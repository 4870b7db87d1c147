"""Every registered game on the table, without sockets: computer players alone play through the
room reducer (the same path a room takes), and after every step the table shows exactly the
engine's cards, each seat's hand holds that player's cards, and nobody's view holds a face it
may not see."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from plugins.registry import GAMES
from server.game import rules as games
from server.room.players import hash_token
from server.room.reducer import Auto, Env, GameCommand, GameState, Host, Join, SetUpGame, reduce
from server.table.objects import Card, Hand, Table
from server.table.templates import new_table
from server.table.view import snapshot
from tests.server.helpers import check_table_invariants, oracle_faces


def _table_cards(t: Table) -> Counter:
    return Counter(o.face for o in t.objects.values() if isinstance(o, Card))


@pytest.mark.parametrize(
    ("name", "players"),
    [("gin_rummy", 2), ("spades", 4), ("rummy", 3), ("rummy", 2), ("pennies", 3)],
)
def test_computers_play_a_hand_through_the_reducer(name: str, players: int) -> None:
    rng = random.Random(11)
    env = Env(now=1000.0, rng=rng)
    table = new_table("GLUETABLE1", "blank", GAMES[name].info.max_players, 0.0, rng)
    reduce(table, Join("host", "Host", hash_token("t"), None), env)
    reduce(table, SetUpGame(name), env)
    for seat in range(players - 1):
        reduce(table, Host("host", "bot", {"seat": seat}), env)
    assert not games.started(table) or players == GAMES[name].info.max_players
    if not games.started(table):
        reduce(table, Host("host", "bot", {"seat": players - 1}), env)
    if not games.started(table):
        reduce(table, Host("host", "start"), env)
    assert games.started(table) and table.game is not None
    assert table.game.seats == list(range(players))
    binding = GAMES[name].binding
    steps = 0
    for steps in range(1, 3000):  # noqa: B007 - the count is reported below
        now = float(table.game.deadline or env.now) + 1.0
        env = Env(now=now, rng=rng)
        change = reduce(table, Auto(), env)
        if change is None:
            break
        state = binding.engine.load(table.game.state)
        check_table_invariants(table)
        on_table = _table_cards(table)
        for p, seat in enumerate(table.game.seats):
            hand = table.objects[f"hand{seat}"]
            assert isinstance(hand, Hand)
            mine = Counter(table.objects[c].face for c in hand.cards)
            assert mine == Counter(binding.project(state).hands[p])
        assert sum(on_table.values()) == sum(
            len(z.faces) for z in binding.project(state).zones
        ) + sum(len(h) for h in binding.project(state).hands.values())
        for seat in [None, *range(table.seats)]:
            allowed = oracle_faces(table, seat)
            for obj in snapshot(table, seat)["objects"]:
                if obj["t"] == "card" and "face" in obj:
                    assert allowed.get(obj["id"]) == obj["face"]
    view = games.game_view(table, 0)
    assert view is not None and view["phase"] in (
        "hand_over",
        "deal_over",
        "round_over",
        "game_over",
    ), (view["phase"], steps)
    assert view["scoreboard"]["rows"], view["scoreboard"]
    assert steps > 10


def test_a_computer_offered_a_discard_answers_before_the_offer_lapses() -> None:
    """Pennies: the person declines the upcard, it is offered to the computer, which decides
    after its short pause instead of letting the buy window run out. (A discard is never
    offered back to whoever discarded it, so with two players only the upcard is offered.)"""
    rng = random.Random(3)
    env = Env(now=1000.0, rng=rng)
    table = new_table("GLUETABLE2", "blank", 2, 0.0, rng)
    reduce(table, Join("host", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame("pennies", {"buy_seconds": 20}), env)
    reduce(table, Host("host", "bot", {"seat": 1}), env)
    assert games.started(table) and table.game is not None
    engine = GAMES["pennies"].engine
    start = engine.new_game(2, {"buy_seconds": 20}, 2)  # seed 2: Ana moves first
    assert engine.to_act(start) == [0] and start.phase == "buy"
    reduce(table, GameState(engine.dump(start)), env)
    reduce(table, GameCommand("host", {"type": "decline"}), env)
    state = engine.load(table.game.state)
    assert state.phase == "offer" and engine.to_act(state) == [1]
    deadline = table.game.deadline
    assert deadline == env.now + 20
    wake = games.next_wake(table)
    assert wake == env.now + 0.8 < deadline
    before = table.version
    assert reduce(table, Auto(), Env(now=wake, rng=rng)) is not None  # long before the deadline
    assert table.version == before + 1
    state = engine.load(table.game.state)
    assert state.phase != "offer" or engine.to_act(state) != [1]
