"""The server's own moves: the room records when a computer may next move and every step
honours it; a room where nothing can happen by itself is neither timed nor read; the table of
per-room locks follows the rooms in use."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE
from server.app import HANDLERS_KEY
from server.game import rules as games
from server.net.http import ROOMS_KEY
from server.room.players import hash_token
from server.room.reducer import Auto, Env, GameCommand, Host, Join, SetUpGame, reduce
from server.room.service import RoomService
from server.table.objects import Table
from server.table.templates import new_table
from tests.conftest import make_config, start_server


class CountingStore:
    """The real store, counting the room reads (``load``) and commit attempts per room."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.loads: dict[str, int] = {}
        self.commits: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def load(self, code: str) -> Any:
        self.loads[code] = self.loads.get(code, 0) + 1
        return await self.store.load(code)

    async def commit(self, code: str, *args: Any, **kwargs: Any) -> Any:
        self.commits[code] = self.commits.get(code, 0) + 1
        return await self.store.commit(code, *args, **kwargs)


def _gin_with_a_computer(env: Env) -> Table:
    table = new_table("PACETABLE1", "blank", 2, 0.0, env.rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame("gin_rummy"), env)
    reduce(table, Host("ana", "bot", {"seat": 1}), env)
    assert games.started(table)
    return table


def test_a_computer_moves_only_once_the_pause_recorded_in_the_room_is_over() -> None:
    rng = random.Random(4)
    now = 1000.0
    table = _gin_with_a_computer(Env(now=now, rng=rng, bot_delay=2.0))
    assert table.game is not None
    computer_moves = 0
    while computer_moves < 6:
        state = ENGINE.load(table.game.state)
        assert state.phase not in ("hand_over", "game_over")
        if 0 in ENGINE.to_act(state):  # Ana's turn: nothing for the server to do
            assert table.bot_due is None and games.next_wake(table) is None
            now += 0.5
            reduce(
                table,
                GameCommand("ana", choose_action(ENGINE, state, 0, rng)),
                Env(now=now, rng=rng, bot_delay=2.0),
            )
            continue
        # The computer's turn: the room says when, 2 s after the last commit, on any process.
        assert table.bot_due == now + 2.0 == games.next_wake(table)
        version = table.version
        assert reduce(table, Auto(), Env(now=now + 1.999, rng=rng, bot_delay=2.0)) is None
        assert table.version == version  # a timer that fires early finds nothing due
        now += 2.0
        assert reduce(table, Auto(), Env(now=now, rng=rng, bot_delay=2.0)) is not None
        assert table.log[-1].startswith("Computer") and table.log_at[-1] == now
        computer_moves += 1


def test_a_hand_over_that_only_a_person_deals_on_wants_no_server_move() -> None:
    rng = random.Random(6)
    env = Env(now=1000.0, rng=rng)
    table = _gin_with_a_computer(env)
    assert table.game is not None
    state = ENGINE.load(table.game.state)
    while state.phase != "hand_over":
        player = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, player, choose_action(ENGINE, state, player, rng))
    assert ENGINE.to_act(state) == [0, 1]  # the computer could deal on, but never does
    from server.room.reducer import GameState

    reduce(table, GameState(ENGINE.dump(state)), env)
    assert table.bot_due is None and games.next_wake(table) is None
    assert reduce(table, Auto(), Env(now=env.now + 3600, rng=rng)) is None


async def test_the_lock_table_follows_the_rooms_in_use(store) -> None:
    counting = CountingStore(store)
    rooms = RoomService(counting)  # type: ignore[arg-type]
    codes = [(await rooms.create_room("standard", seats=4)).code for _ in range(30)]
    joined = await asyncio.gather(*(rooms.join(code, f"P{i}") for code in codes for i in range(3)))
    assert len(joined) == 90
    assert rooms.locked_rooms() == set()  # every room's entry went with its last user
    # Mutual exclusion still holds while entries come and go: operations on one room keep
    # arriving while others wait, and none loses a version race to another of this process's
    # (an entry dropped while someone waited would let a newcomer run beside the holder).
    code = codes[0]
    before = counting.commits[code]
    pid = joined[0].player.id

    async def renames(i: int) -> None:
        for k in range(3):
            await rooms.rename(code, pid, f"Name {i}.{k}")

    await asyncio.gather(*(renames(i) for i in range(10)))
    assert counting.commits[code] - before == 30
    assert rooms.locked_rooms() == set()


async def _beats(handlers: Any, n: int) -> None:
    for _ in range(n):
        await handlers.heartbeat()


async def test_a_room_where_nothing_can_happen_is_not_read_again(redis_server) -> None:
    """A Gin hand is over, a computer is seated, only a person deals on: no timer keeps the
    room, and the heartbeat doesn't read it from Redis; nor once everyone has left."""
    srv = await start_server(
        make_config(redis_server.url, heartbeat_seconds=3600.0, grace_seconds=0.0)
    )
    try:
        rooms = srv.app[ROOMS_KEY]
        handlers = srv.app[HANDLERS_KEY]  # heartbeats run only when the test calls them
        counting = CountingStore(rooms.store)
        rooms.store = counting  # type: ignore[assignment]
        ana = await srv.client()
        created = await rooms.create_room(game="gin_rummy")
        code = created.code
        await ana.join(code, "Ana")
        await ana.request("host", {"action": "bot", "seat": 1})
        table = await rooms.load_table(code)
        state = ENGINE.load(table.game.state)
        rng = random.Random(8)
        while state.phase != "hand_over":
            player = ENGINE.to_act(state)[0]
            state = ENGINE.apply(state, player, choose_action(ENGINE, state, player, rng))
        await rooms.set_game_state(code, ENGINE.dump(state))
        await ana.wait_for(lambda: ana.game is not None and ana.game["phase"] == "hand_over")
        assert handlers.scheduler.pending(code) is None  # nothing to wake up for
        counting.loads.clear()
        await _beats(handlers, 3)  # Ana still here
        assert handlers.scheduler.pending(code) is None
        assert counting.loads.get(code, 0) == 0
        await ana.close()
        for _ in range(200):  # the server sees the disconnect
            if not handlers.sessions:
                break
            await asyncio.sleep(0.02)
        for _ in range(5):  # grace 0: the next beats remove Ana and let the room go
            await _beats(handlers, 1)
            if code not in handlers.hosted_rooms:
                break
        assert code not in handlers.hosted_rooms
        counting.loads.clear()
        await _beats(handlers, 3)
        assert handlers.scheduler.pending(code) is None
        assert counting.loads.get(code, 0) == 0
        assert code not in rooms.cached_rooms()
    finally:
        await srv.stop()
