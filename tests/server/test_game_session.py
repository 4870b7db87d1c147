"""One game session per commit: the engine state is decoded once and kept with the room, projected
once per commit, and what every seat's view shares is built once. Counted with a registered copy
of each game whose engine and binding count the server's calls (tests/server/game_counting.py);
the projection's report of what it touched is judged against an oracle that diffs every object's
encoding and every view's sight of each card, as the server did before."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
import pytest

from plugins.registry import GAMES
from server.errors import CardtableError
from server.game import rules as games
from server.room.players import hash_token
from server.room.reducer import Auto, Edit, Env, GameCommand, Host, Join, Rename, SetUpGame, reduce
from server.room.service import RoomService, build_deltas
from server.store.redis_store import RedisStore
from server.table.objects import Card, GameSlot, Hand, Stack, Table, decode_table, encode_table
from server.table.templates import new_table
from server.table.view import card_visible
from tests.server.game_counting import counted, play, seated_room


@pytest.mark.parametrize(("name", "players"), [("spades", 4), ("gin_rummy", 2)])
def test_a_move_loads_nothing_projects_once_and_builds_the_shared_view_once(
    name: str, players: int
) -> None:
    # (A seed whose game lasts 30 of the person's moves: deals are keyed from the room's
    # committed seeds, docs/fairness.md, so the seed decides how long a random game lasts.)
    with counted(name) as (counted_name, counts):
        rng = random.Random(6)
        table, env = seated_room(counted_name, players, rng)
        person, server = play(table, env, counts, 30, rng)
    assert len(person) == 30 and len(server) > 10
    for c in [*person, *server]:
        assert c["engine.load"] == 0, c
        assert c["binding.project"] == 1 and c["engine.dump"] == 1, c
        assert c["engine.status"] == 1 and c["engine.scoreboard"] == 1, c
        assert c["engine.to_act"] <= 1 and c["engine.outcome"] == 1, c
        # Each view's own part, for the person's seat and the spectators (whose view gives the
        # phase too); the computers' seats get no delta.
        assert c["engine.view"] == 2, c
        assert c["engine.legal_actions"] == 1 and c["binding.controls"] == 1, c


@pytest.mark.parametrize(("name", "players"), [("spades", 4), ("gin_rummy", 2)])
def test_a_seat_s_own_view_and_the_log_line_reuse_what_the_commit_built(
    name: str, players: int
) -> None:
    # Counting the engine's and the binding's calls of the engine too: Gin's hint reads the
    # view the server built, controls take its legal actions, and the log line is written from
    # the state the move made (describe no longer applies it again).
    with counted(name, deep=True) as (counted_name, counts):
        rng = random.Random(6)
        table, env = seated_room(counted_name, players, rng)
        person, server = play(table, env, counts, 30, rng)
    assert len(person) == 30 and len(server) > 10
    for c in [*person, *server]:
        assert c["engine.view"] == 2, c
        assert c["engine.legal_actions"] == 1 and c["binding.controls"] == 1, c
        assert c["engine.apply"] == 1 and c["engine.describe"] == 1, c


@pytest.mark.parametrize(("name", "players"), [("spades", 4), ("gin_rummy", 2)])
def test_the_bot_runs_once_per_state(name: str, players: int) -> None:
    # The decision made for the room's bot_due is kept in the session and is the move the
    # computer then makes: the bot is asked about each state (and player) once, not twice.
    with counted(name) as (counted_name, counts):
        rng = random.Random(7)
        table, env = seated_room(counted_name, players, rng)
        person, server = play(table, env, counts, 30, rng)
    assert sum(c["bot"] for c in server) > 10
    assert [c["bot.again"] for c in [*person, *server] if c["bot.again"]] == []


def test_a_computers_seat_gets_no_delta_a_persons_does() -> None:
    rng = random.Random(6)
    table, env = seated_room("spades", 4, rng)
    reduce(table, Join("eve", "Eve", hash_token("e"), None), env)
    view = games.game_view(table, 0)
    assert view is not None and table.game is not None
    env = Env(now=max(env.now, float(table.bot_due or 0.0)) + 0.01, rng=rng, bot_delay=0.0)
    change = reduce(table, GameCommand("ana", view["legal"][0]) if view["legal"] else Auto(), env)
    assert change is not None
    assert sorted(build_deltas(table, change, "ana")) == ["s0", "spec"]


async def test_the_room_service_keeps_the_session_past_a_refusal_and_checks_a_foreign_state(
    store: RedisStore,
) -> None:
    with counted("gin_rummy") as (counted_name, counts):
        here = RoomService(store, rng=random.Random(2), bot_delay=0.0)
        table = await here.create_room(game=counted_name)
        ana = await here.join(table.code, "Ana", seat=0)
        await here.host_action(table.code, ana.player.id, "bot", {"seat": 1})
        for _ in range(5):  # the computer's turn first, maybe
            view = games.game_view(await here.known_table(table.code), 0)
            assert view is not None
            if view["legal"]:
                break
            await here.auto_step(table.code)
        counts.clear()
        with pytest.raises(CardtableError):
            await here.game_command(table.code, ana.player.id, {"type": "knock_knock"})
        view = games.game_view(await here.known_table(table.code), 0)
        assert view is not None and view["legal"]
        await here.game_command(table.code, ana.player.id, view["legal"][0])
        await here.join(table.code, "Eve", seat=None)  # a snapshot for a newcomer
        assert counts["engine.load"] == 0, counts
        # Another process's commit: its state comes from the store, and is checked once.
        there = RoomService(store, rng=random.Random(3), bot_delay=0.0)
        counts.clear()
        for _ in range(3):
            await there.auto_step(table.code)
        assert counts["engine.load"] == 1, counts


def test_a_room_stored_with_the_game_as_a_map_decodes_and_plays_on() -> None:
    rng = random.Random(8)
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    table = new_table("OLDBLOB001", "blank", 2, 0.0, rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame("gin_rummy"), env)
    reduce(table, Host("ana", "bot", {"seat": 1}), env)
    assert table.game is not None
    # The map rooms held before the slot was typed (a whole-second deadline, as an int).
    data: dict[str, Any] = msgspec.to_builtins(table)
    old_game = {
        "name": "gin_rummy",
        "options": table.game.options,
        "fill": False,
        "state": table.game.state,
        "seats": [0, 1],
        "deal": table.game.deal,
        "zones": table.game.zones,
        "markers": table.game.markers,
        "deadline": 1001,
        "delay": 1,
    }
    data["game"] = old_game
    back = decode_table(msgspec.msgpack.encode(data))
    assert isinstance(back.game, GameSlot)
    assert (back.game.name, back.game.seats, back.game.deadline) == ("gin_rummy", [0, 1], 1001.0)
    assert back.game.state == table.game.state
    # The oldest rooms kept only the name, options and state.
    data["game"] = {"name": "gin_rummy", "options": table.game.options, "state": None}
    oldest = decode_table(msgspec.msgpack.encode(data))
    assert oldest.game is not None and oldest.game.seats == [] and oldest.game.state is None
    # The first room plays on from its stored state (checked by the engine on the way in).
    back.game.deadline = None
    view = games.game_view(back, 0)
    assert view is not None and view["to_act"]
    # Ana's move, or the computer's if it is its turn (who deals first follows the room's seed).
    move = GameCommand("ana", view["legal"][0]) if view["legal"] else Auto()
    assert reduce(back, move, env) is not None
    assert decode_table(encode_table(back)).game == back.game


def test_an_edit_of_the_stored_state_is_read_again() -> None:
    """An operator's (or a test's) edit is a trust boundary: the state kept in memory is
    dropped, and the edited one is loaded (and checked) when next used."""
    rng = random.Random(4)
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    table = new_table("EDITROOM01", "blank", 2, 0.0, rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, Join("ben", "Ben", hash_token("u"), 1), env)
    reduce(table, SetUpGame("gin_rummy"), env)
    assert table.game is not None and table.game.state is not None
    engine = GAMES["gin_rummy"].engine
    state = engine.load(table.game.state)
    first = engine.to_act(state)[0]
    later = next(
        after
        for action in engine.legal_actions(state, first)
        if engine.to_act(after := engine.apply(state, first, action)) == [1 - first]
    )

    def another_state(t: Table) -> None:
        assert t.game is not None and t.game.state is not None
        t.game.state.clear()  # in place: the same map, another state
        t.game.state.update(engine.dump(later))

    assert games.game_view(table, 0)["to_act"] == [first]  # type: ignore[index]
    reduce(table, Edit(another_state), env)
    assert games.game_view(table, 0)["to_act"] == [1 - first]  # type: ignore[index]


# --- the projection's report, against every object's encoding ------------------------------

_enc = msgspec.msgpack.Encoder()


def _encodings(table: Table) -> dict[str, tuple[bytes, tuple[bool, ...], int | None]]:
    """The oracle: each object's encoding (version stamp aside), which views see each card's
    face, and the seat whose hand holds it."""
    views = [None, *range(table.seats)]
    out = {}
    for oid, obj in table.objects.items():
        plain = msgspec.structs.replace(obj, v=0)
        if isinstance(obj, Card):
            holder = table.objects.get(obj.parent) if obj.parent is not None else None
            out[oid] = (
                _enc.encode(plain),
                tuple(card_visible(table, obj, s) for s in views),
                holder.seat if isinstance(holder, Hand) else None,
            )
        else:
            out[oid] = (_enc.encode(plain), (), None)
    return out


@pytest.mark.parametrize(
    ("name", "players"),
    [("gin_rummy", 2), ("spades", 4), ("rummy", 3), ("pennies", 3), ("pennies", 4)],
)
def test_each_commit_reports_exactly_what_the_encodings_say_changed(
    name: str, players: int
) -> None:
    """A person in seat 0 plays at random (and deals on), computers play the others."""
    rng = random.Random(21)
    table, env = seated_room(name, players, rng)
    checked: Counter[str] = Counter()
    for _ in range(600):
        assert table.game is not None
        now = max(env.now, float(table.game.deadline or 0.0), float(table.bot_due or 0.0))
        env = Env(now=now + 0.01, rng=rng, bot_delay=0.0)
        view = games.game_view(table, 0)
        assert view is not None
        if view["phase"] == "game_over":
            break
        old = _encodings(table)
        if view["legal"]:
            change = reduce(table, GameCommand("ana", rng.choice(view["legal"])), env)
        else:
            change = reduce(table, Auto(), env)
        if change is None:
            continue
        new = _encodings(table)
        dirty = {oid for oid, enc in new.items() if old.get(oid) != enc}
        assert change.dirty == dirty
        assert change.created == {oid for oid in new if oid not in old}
        assert change.removed == {oid for oid in old if oid not in new}
        assert change.held == {
            oid: seat
            for oid, (_, _, seat) in old.items()
            if seat is not None and (oid in dirty or oid not in new)
        }
        build_deltas(table, change, "server")
        checked["commits"] += 1
        checked["dirty"] += len(dirty)
    assert checked["commits"] > 50 and checked["dirty"] > checked["commits"]


def _step(table: Table, env: Env, rng: random.Random) -> tuple[Env, Any]:
    """One commit of the game: the person's random legal move, or the server's."""
    assert table.game is not None
    now = max(env.now, float(table.game.deadline or 0.0), float(table.bot_due or 0.0))
    env = Env(now=now + 0.01, rng=rng, bot_delay=0.0)
    view = games.game_view(table, 0)
    assert view is not None
    intent = GameCommand("ana", rng.choice(view["legal"])) if view["legal"] else Auto()
    return env, reduce(table, intent, env)


@pytest.mark.parametrize("between", [False, True])
def test_the_projection_trusts_what_it_showed_only_if_nothing_was_committed_since(
    between: bool,
) -> None:
    # Right after a projection's commit the table shows it, so a zone whose part is the same
    # in the next projection is left alone unlooked at: a card of it knocked out of place
    # behind the room's back (no commit) stays so. After any other commit (a rename here) the
    # projection looks at every zone again, and puts the card back.
    rng = random.Random(8)
    table, env = seated_room("spades", 4, rng)
    for _ in range(12):
        env, _change = _step(table, env, rng)
    assert table.game is not None
    before = {z.id: z for z in games.session(table).projection().zones}
    if between:
        reduce(table, Rename("ana", "Anna"), env)
    knocked = []
    for zid in table.game.zones:
        stack = table.objects[zid]
        assert isinstance(stack, Stack)
        if stack.cards:
            card = table.objects[stack.cards[0]]
            assert isinstance(card, Card)
            card.x += 7
            knocked.append((zid, card.id))
    env, change = _step(table, env, rng)
    assert change is not None
    same = {z.id for z in games.session(table).projection().zones if before.get(z.id) == z}
    unchanged = [(zid, cid) for zid, cid in knocked if zid in same]
    assert len(unchanged) >= 4
    for zid, cid in unchanged:
        stack = table.objects[zid]
        assert isinstance(stack, Stack)
        if between:
            assert cid in change.dirty or cid not in table.objects
        else:
            assert cid not in change.dirty and stack.cards[0] == cid
