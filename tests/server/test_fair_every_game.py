"""Fair deals in a room of each of the four rule games, through the room's one transition
function (no sockets): a person sits with computers, her page's value goes into deal 1 and deal
2; each deal, played to its end (her moves chosen by a seeded random source, the computers'
their own), leaves a record whose deck, order and dealt are the engine's and which
``plugins.fair.verify`` accepts, with her values in her seat and null for the computers."""

from __future__ import annotations

import random
from typing import Any

import pytest

from plugins import fair
from server.game import fairness
from server.game import rules as games
from server.room.players import hash_token
from server.room.reducer import Auto, Env, FairValue, GameCommand, Host, Join, SetUpGame, reduce
from server.table.objects import Table
from server.table.templates import new_table

PLAYERS = {"spades": 4, "gin_rummy": 2, "rummy": 3, "pennies": 3}


def _room(name: str, rng: random.Random) -> tuple[Table, Env]:
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    table = new_table("FAIRROOM01", "blank", PLAYERS[name], 0.0, rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame(name), env)
    return table, env


def _play_deal(table: Table, rng: random.Random, now: float) -> tuple[list[bytes], float]:
    """Play until the deal in progress is over; the records the commits queued."""
    done: list[bytes] = []
    for _ in range(3000):
        view = games.game_view(table, 0)
        assert view is not None
        if view["reveal"] is not None or view["outcome"] is not None:
            return done, now
        now += 5.0
        env = Env(now=now, rng=rng, bot_delay=0.0)
        mine = [a for a in view["legal"] if not str(a.get("type", "")).startswith("next_")]
        reduce(table, GameCommand("ana", rng.choice(mine)) if mine else Auto(), env)
        done += fairness.take_records(table)
    raise AssertionError("the deal did not end")


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_each_game_deals_from_the_committed_seed_and_the_values(name: str) -> None:
    rng = random.Random(21)
    table, env = _room(name, rng)
    values = ["a1" * 16, "b2" * 16]
    reduce(table, FairValue("ana", 1, values[0]), env)
    for seat in range(1, PLAYERS[name]):
        reduce(table, Host("ana", "bot", {"seat": seat}), env)
    assert table.game is not None and table.game.state is not None
    records: list[dict[str, Any]] = []
    now = env.now
    for deal in (1, 2):
        if deal == 2:
            assert table.game.fair_next is not None and table.game.fair_next.deal == 2
            reduce(table, FairValue("ana", 2, values[1]), env)
            view = games.game_view(table, 0)
            assert view is not None
            deal_on = next(a for a in view["legal"] if str(a["type"]).startswith("next_"))
            reduce(table, GameCommand("ana", deal_on), Env(now=now, rng=rng, bot_delay=0.0))
        done, now = _play_deal(table, rng, now)
        assert len(done) == 1
        records.append(fairness.served(done[0]))
    for deal, (record, value) in enumerate(zip(records, values, strict=True), 1):
        assert record["deal"] == deal and record["game"] == name
        assert record["values"] == [value] + [None] * (PLAYERS[name] - 1)
        assert len(record["order"]) == len(record["deck"]) > 0
        verdict = fair.verify(record)
        assert verdict.ok, (name, deal, verdict.problems)
        assert len(record["steps"]) == len(record["actions"]) + 1
    assert any(
        line.startswith(f"Deal 2 is over: the server's seed was {records[1]['seed']}")
        or f"; Deal 2 is over: the server's seed was {records[1]['seed']}" in line
        for line in table.log
    )
