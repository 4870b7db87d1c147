"""A registered game that counts how often the server calls its engine and binding.

:func:`counted` registers a copy of a real game under another name (``counted_spades``...), whose
engine and binding pass every call through to the real ones and count them; the bot gets the
real engine, so only the server's own calls are counted, and the bot's runs (``bot``; by the
level the server asked for, ``bot.easy``, ``bot.normal``, ``bot.hard``; and ``bot.again`` when a
player is asked about a state it was asked about before). Nothing of the
real modules is patched. :func:`play` drives a room through the reducer the way the room
service does: each commit's per-view deltas are built (every seat's and the spectators' game
view), a person in seat 0 makes a legal move whenever the game offers one, and computers play
the other seats.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from plugins.game import DEFAULT_LEVEL, LEVELS, Game
from plugins.registry import GAMES, registered
from server.room.players import hash_token
from server.room.reducer import Auto, Env, GameCommand, Host, Join, SetUpGame, reduce
from server.room.service import build_deltas
from server.table.objects import Table
from server.table.templates import new_table


class _Counting:
    """Passes attribute reads through to ``inner``; calls of methods are counted."""

    def __init__(self, inner: Any, counts: Counter[str], prefix: str, info: Any) -> None:
        self._inner, self._counts, self._prefix, self.info = inner, counts, prefix, info

    def __getattr__(self, name: str) -> Any:
        got = getattr(self._inner, name)
        if not callable(got):
            return got
        counts, key = self._counts, f"{self._prefix}.{name}"

        def call(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return got(*args, **kwargs)

        return call


class _CountingBinding(_Counting):
    def __init__(self, inner: Any, engine: _Counting, counts: Counter[str], info: Any) -> None:
        super().__init__(inner, counts, "binding", info)
        self.engine = engine
        self.widgets = inner.widgets


def _deep(inner: Any, counts: Counter[str], prefix: str, info: Any, **attrs: Any) -> Any:
    """A shallow copy of ``inner`` whose public methods count their calls, the object's own
    calls of them (``self.apply`` inside ``describe``) included; ``attrs`` set on the copy."""
    copied = copy.copy(inner)
    for attr in dir(type(inner)):
        got = getattr(copied, attr)
        if attr.startswith("_") or not callable(got) or attr in attrs:
            continue

        def call(*args: Any, _got: Any = got, _key: str = f"{prefix}.{attr}", **kw: Any) -> Any:
            counts[_key] += 1
            return _got(*args, **kw)

        setattr(copied, attr, call)
    for attr, value in {"info": info, **attrs}.items():
        setattr(copied, attr, value)
    return copied


@contextmanager
def counted(name: str, deep: bool = False) -> Iterator[tuple[str, Counter[str]]]:
    """The game ``name`` registered again as ``counted_<name>``, and its call counts. With
    ``deep``, the calls the engine and the binding make of the engine's methods themselves
    (the binding's ``hint`` building a view, ``describe`` applying the move) count too."""
    real = GAMES[name]
    counts: Counter[str] = Counter()
    info = dataclasses.replace(real.info, name=f"counted_{name}")
    engine: Any
    binding: Any
    if deep:
        engine = _deep(real.engine, counts, "engine", info)
        binding = _deep(real.binding, counts, "binding", info, engine=engine)
    else:
        engine = _Counting(real.engine, counts, "engine", info)
        binding = _CountingBinding(real.binding, engine, counts, info)

    asked: set[tuple[bytes, int]] = set()

    def bot(_engine: Any, state: Any, player: int, rng: random.Random) -> Any:
        counts["bot"] += 1
        key = (msgspec.msgpack.encode(state), player)
        if key in asked:
            counts["bot.again"] += 1  # the same player asked again about the same state
        asked.add(key)
        return real.bot(real.engine, state, player, rng)

    def at(level: str) -> Any:
        """The bot of ``level``: the same bot, its runs counted by level too (``bot.hard``)."""

        def leveled(_engine: Any, state: Any, player: int, rng: random.Random) -> Any:
            counts[f"bot.{level}"] += 1
            return bot(_engine, state, player, rng)

        return leveled

    game = Game(
        engine=engine,  # type: ignore[arg-type]
        binding=binding,  # type: ignore[arg-type]
        bot=at(DEFAULT_LEVEL),
        bots={level: at(level) for level in LEVELS},
    )
    with registered(game):
        yield info.name, counts


def slot(table: Table, key: str) -> Any:
    """A field of the room's game slot."""
    return getattr(table.game, key)


def seated_room(name: str, players: int, rng: random.Random) -> tuple[Table, Env]:
    """A started game of ``name``: a person ("ana") in seat 0, computers in the other seats."""
    env = Env(now=1000.0, rng=rng, bot_delay=0.0)
    table = new_table("COUNTROOM1", "blank", players, 0.0, rng)
    reduce(table, Join("ana", "Ana", hash_token("t"), 0), env)
    reduce(table, SetUpGame(name), env)
    for seat in range(1, players):
        reduce(table, Host("ana", "bot", {"seat": seat}), env)
    if slot(table, "state") is None:
        reduce(table, Host("ana", "start"), env)
    assert slot(table, "state") is not None
    return table, env


def play(
    table: Table, env: Env, counts: Counter[str], moves: int, rng: random.Random
) -> tuple[list[Counter[str]], list[Counter[str]]]:
    """Play until the person made ``moves`` moves (or the game is over); the calls counted
    for each of the person's commits and for each of the server's own."""
    person: list[Counter[str]] = []
    server: list[Counter[str]] = []
    from server.game import rules as games

    for _ in range(20 * moves):
        if len(person) >= moves:
            break
        view = games.game_view(table, 0)
        assert view is not None
        now = max(env.now, float(slot(table, "deadline") or 0.0), float(table.bot_due or 0.0))
        env = Env(now=now + 0.01, rng=rng, bot_delay=0.0)
        counts.clear()
        if view["legal"] and view["phase"] != "game_over":
            change = reduce(table, GameCommand("ana", rng.choice(view["legal"])), env)
            mine = True
        else:
            change = reduce(table, Auto(), env)
            mine = False
        if change is None:
            if view["phase"] == "game_over":
                break
            continue
        build_deltas(table, change, "ana" if mine else "server")
        (person if mine else server).append(Counter(counts))
    return person, server
