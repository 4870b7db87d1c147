"""One click to play against computers, and "Play again" (issue 20 item 3), on the server: a
computer has a level (``host {action: "bot", level}``, shown in the player list and the game
view, stored with the room; rooms stored before levels read ``normal``), the server plays each
computer with its level's bot, ``POST /api/rooms`` with ``computers`` makes a room where one
person's join starts the game, and ``host {action: "again"}`` deals a finished game again to
the same seats."""

from __future__ import annotations

import random
from typing import Any

import aiohttp
import msgspec
import pytest

from cardtable_client import OpFailed, TableClient
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE as GIN
from server.game import rules as games
from server.net.http import ROOMS_KEY
from server.room.players import hash_token
from server.room.reducer import Auto, Env, GameCommand, Host, Join, Presence, SetUpGame, reduce
from server.table.objects import Player, Table, decode_table, encode_table
from server.table.templates import new_table
from server.table.view import players_view
from tests.server.game_counting import counted, slot
from tests.server.helpers import server_table


async def _refused(coro: Any) -> dict[str, Any]:
    with pytest.raises(OpFailed) as err:
        await coro
    return err.value.payload


async def _create(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as http, http.post(f"{url}/api/rooms", json=body) as r:
        return r.status, await r.json()


def _game_over_state() -> Any:
    """A finished Gin Rummy game from real play (the computer plays both sides)."""
    rng = random.Random(5)
    state = GIN.new_game(2, {}, 5)
    while GIN.outcome(state) is None:
        player = GIN.to_act(state)[0]
        state = GIN.apply(state, player, choose_action(GIN, state, player, rng))
    return state


def _computers(table: Table) -> list[tuple[int | None, str]]:
    return sorted((p.seat, p.level) for p in table.players.values() if p.bot)


# --- a computer's level --------------------------------------------------------------------


async def test_the_host_seats_computers_at_a_level(server, make_client):
    status, body = await _create(server.url, {"game": "spades"})
    assert status == 201
    code = body["code"]
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")
    v = (await server_table(server, code)).version
    for bad in ("expert", "", 3, ["hard"]):
        err = await _refused(ana.request("host", {"action": "bot", "seat": 1, "level": bad}))
        assert err["code"] == "bad_request", err
    err = await _refused(ana.request("host", {"action": "start", "level": "hard"}))
    assert err["code"] == "bad_request", err
    table = await server_table(server, code)
    assert table.version == v and _computers(table) == []  # refused: nothing changed
    await ana.request("host", {"action": "bot", "seat": 1, "level": "hard"})
    await ana.request("host", {"action": "bot", "seat": 2})  # no level: normal
    ack = await ana.request("host", {"action": "bot", "seat": 3, "level": "easy"})
    await ana.wait_version(ack["v"])
    table = await server_table(server, code)
    assert _computers(table) == [(1, "hard"), (2, "normal"), (3, "easy")]
    seen = {p["seat"]: p for p in ana.players}
    assert [seen[s].get("level") for s in range(4)] == [None, "hard", "normal", "easy"]
    assert ana.game is not None and not ana.game["waiting"]  # every seat taken: started
    in_game = {p["seat"]: p for p in ana.game["players"]}
    assert [in_game[s].get("level") for s in range(4)] == [None, "hard", "normal", "easy"]
    assert any(line.endswith("seated Computer 2 (hard)") for line in ana.log)


def test_a_room_stored_before_levels_loads_its_computers_as_normal() -> None:
    table = new_table("OLDROOM1", "blank", 2, 0.0, random.Random(1))
    table.players["p1"] = Player(id="p1", name="Computer 2", token_hash="x", seat=1, bot=True)
    old = msgspec.msgpack.decode(encode_table(table))
    for player in old["players"].values():
        del player["level"]  # as stored before computers had levels
    loaded = decode_table(msgspec.msgpack.encode(old))
    assert loaded.players["p1"].level == "normal"
    assert players_view(loaded)[0]["level"] == "normal"


def _levelled_room(name: str, level: str, rng: random.Random) -> tuple[Table, Env]:
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    table = new_table("LEVELROOM", "blank", 2, 0.0, rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame(name), env)
    reduce(table, Host("ana", "bot", {"seat": 1, "level": level}), env)
    assert games.started(table)
    return table, env


def _play(table: Table, env: Env, rng: random.Random, server_moves: int) -> int:
    """The person in seat 0 plays any legal move; the server plays the rest. Returns how many
    moves the server made (up to ``server_moves``)."""
    made = 0
    for _ in range(40 * server_moves):
        if made >= server_moves:
            break
        view = games.game_view(table, 0)
        assert view is not None
        now = max(env.now, float(slot(table, "deadline") or 0.0), float(table.bot_due or 0.0))
        env = Env(now=now + 0.01, rng=rng, bot_delay=0.0)
        if view["legal"] and view["outcome"] is None:
            reduce(table, GameCommand("ana", rng.choice(view["legal"])), env)
        elif reduce(table, Auto(), env) is not None:
            made += 1
    return made


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_server_plays_a_computer_with_its_levels_bot(level: str) -> None:
    rng = random.Random(4)
    with counted("gin_rummy") as (name, counts):
        table, env = _levelled_room(name, level, rng)
        assert _play(table, env, rng, 5) == 5
        assert counts[f"bot.{level}"] > 0
        others = {f"bot.{other}" for other in ("easy", "normal", "hard")} - {f"bot.{level}"}
        assert [k for k in others if counts[k]] == [], counts


def test_each_seat_plays_at_its_own_level_and_a_filled_seat_at_normal() -> None:
    """Spades: Ana in seat 0, Ben in seat 1 (then away: ``fill`` plays for him), a hard
    computer in seat 2 and an easy one in seat 3."""
    rng = random.Random(6)
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    with counted("spades") as (name, counts):
        table = new_table("FILLROOM1", "blank", 4, 0.0, rng)
        reduce(table, Join("ana", "Ana", hash_token("a"), 0), env)
        reduce(table, Join("ben", "Ben", hash_token("b"), 1), env)
        reduce(table, SetUpGame(name, {"fill": True}), env)
        reduce(table, Host("ana", "bot", {"seat": 2, "level": "hard"}), env)
        reduce(table, Host("ana", "bot", {"seat": 3, "level": "easy"}), env)
        assert games.started(table)
        reduce(table, Presence(frozenset({"ana"}), 60.0, env.now), env)  # Ben's connection gone
        assert table.players["ben"].status != "online"
        counts.clear()
        assert _play(table, env, rng, 12) == 12
        assert counts["bot.hard"] and counts["bot.easy"] and counts["bot.normal"], counts


# --- one click: a room with computers waiting for its person --------------------------------


async def test_a_room_made_with_computers_starts_when_its_person_joins(server, make_client):
    for bad in (
        {"game": "spades", "computers": "expert"},
        {"game": "spades", "computers": 2},
        {"computers": "easy"},
        {"template": "standard", "seats": 4, "computers": "easy"},
        {"library": "crazy_eights", "computers": "easy"},
    ):
        status, body = await _create(server.url, bad)
        assert status == 400 and body["code"] == "bad_request", (bad, body)
    status, body = await _create(server.url, {"game": "spades", "computers": "hard"})
    assert status == 201, body
    code = body["code"]
    table = await server_table(server, code)
    assert not games.started(table)
    assert _computers(table) == [(1, "hard"), (2, "hard"), (3, "hard")]
    ana: TableClient = await make_client()
    await ana.join(code, "Ana")  # seat "auto": the one free seat, 0
    assert ana.seat == 0
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    table = await server_table(server, code)
    assert games.started(table) and table.game is not None and table.game.seats == [0, 1, 2, 3]
    me = table.players[ana.player]
    assert me.host and not me.bot and me.seat == 0
    assert [p["bot"] for p in ana.game["players"]] == [False, True, True, True]


# --- play again ------------------------------------------------------------------------------


async def test_play_again_deals_a_new_game_to_the_same_seats(server, make_client):
    status, body = await _create(
        server.url, {"game": "gin_rummy", "options": {"target": 100}, "computers": "easy"}
    )
    assert status == 201
    code = body["code"]
    ana: TableClient = await make_client()
    eve: TableClient = await make_client()
    await ana.join(code, "Ana")
    await eve.join(code, "Eve", seat=None)
    await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
    rooms = server.app[ROOMS_KEY]

    # Before the end: refused, nothing changed.
    before = await server_table(server, code)
    err = await _refused(ana.request("host", {"action": "again"}))
    assert err["code"] == "bad_request" and err["message"] == "The game is not over."
    err = await _refused(eve.request("host", {"action": "again"}))
    assert err["code"] == "forbidden"
    err = await _refused(ana.request("host", {"action": "again", "seat": 1}))
    assert err["code"] == "bad_request"
    after = await server_table(server, code)
    assert after.version == before.version and after.game == before.game

    over = await rooms.set_game_state(code, GIN.dump(_game_over_state()))
    await ana.wait_version(over.version)
    assert ana.game is not None and ana.game["outcome"] is not None
    ended = await server_table(server, code)
    seats = {p.id: (p.seat, p.bot, p.level) for p in ended.players.values()}

    ack = await ana.request("host", {"action": "again"})
    assert ack["v"] == ended.version + 1
    await ana.wait_version(ack["v"])
    await eve.wait_version(ack["v"])
    again = await server_table(server, code)
    assert again.game is not None and games.started(again)
    assert again.game.seats == [0, 1] and again.game.options == ended.game.options
    assert {p.id: (p.seat, p.bot, p.level) for p in again.players.values()} == seats
    state = GIN.load(again.game.state)
    assert GIN.outcome(state) is None and list(state.scores) == [0, 0]
    assert state.seed != GIN.load(ended.game.state).seed  # a new deal, from a fresh seed
    assert ana.game["outcome"] is None and not ana.game["waiting"]
    assert len(ana.hand()) in (10, 11)  # a new deal in Ana's hand
    assert ana.log[-1].startswith("Ana started a new game of Gin Rummy")
