"""The contract every registered game keeps, checked over the registry: a new game gets it free.

Each game is played (its bot against random-legal players, through the shared driver
:func:`plugins.simulate.drive`) at every player count it takes, and at every state reached:

- ``load(dump(s)) == s``, and the dump survives msgpack unchanged;
- every action ``legal_actions`` lists is accepted by ``apply``;
- ``to_act`` names exactly the players who have legal actions (none of them while a scheduled
  action is pending or the game is over);
- no view (a player's or a spectator's) carries a card hidden from that viewer. What is hidden
  is read from the game's own projection, not from the engine's view: the cards in other
  players' hands and in face-down zones, less every card that lay face up in a zone this deal
  or the last one, or was revealed at a hand's end (taken from the discard pile, laid off...),
  and less the cards the viewer held itself this deal (Gin's face-down knock discard).

And the same seed gives the same game, move for move. Plus, for every game, ``load`` either
refuses a damaged dump with a sentence or gives a state every method works on.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import msgpack
import msgspec
import pytest

from plugins.base import InvalidState, Rejection
from plugins.cards import JOKERS, STANDARD
from plugins.game import Game
from plugins.registry import GAMES, registered
from plugins.simulate import drive, random_legal

CODES = frozenset(STANDARD) | frozenset(JOKERS)
STEPS = 300  # actions checked per game (a deal or two; the self-play tests play thousands)
CASES = [
    (g.name, n) for g in GAMES.values() for n in range(g.info.min_players, g.info.max_players + 1)
]
IDS = [f"{name}-{n}" for name, n in CASES]


def codes_in(view: Any) -> set[str]:
    """Every card code anywhere in a view, as a value or a key."""
    return CODES.intersection(msgspec.json.encode(view).decode().split('"'))


class Oracle:
    """Who may see which card, from the game's projection alone (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.deal: int | None = None
        self.public: set[str] = set()  # face up at some point this deal
        self.earlier: set[str] = set()  # ... or in the deal before it
        self.held: dict[int, set[str]] = {}  # each player's cards this deal

    def see(self, state: Any) -> None:
        proj = self.game.binding.project(state)
        if proj.deal != self.deal:
            self.deal, self.earlier, self.public, self.held = proj.deal, self.public, set(), {}
        for player, cards in proj.hands.items():
            self.held.setdefault(player, set()).update(cards)
        for zone in proj.zones:
            if zone.up:
                self.public.update(zone.faces)
        for line in self.game.engine.reveal(state) or ():
            self.public.update(line.cards)
            self.public.update(c for meld in line.melds for c in meld)

    def hidden(self, state: Any, viewer: int | None) -> set[str]:
        proj = self.game.binding.project(state)
        out = {c for z in proj.zones if not z.up for c in z.faces}
        for player, cards in proj.hands.items():
            if player != viewer:
                out.update(cards)
        own = self.held.get(viewer, set()) if viewer is not None else set()
        return out - own - self.public - self.earlier


def check_state(game: Game, state: Any, players: int, oracle: Oracle) -> None:
    engine = game.engine
    data = engine.dump(state)
    assert msgpack.unpackb(msgpack.packb(data)) == data, "the dump is not plain data"
    assert engine.load(data) == state, "load(dump(s)) != s"
    to_act = engine.to_act(state)
    with_moves = [p for p in range(players) if engine.legal_actions(state, p)]
    assert to_act == with_moves, (to_act, with_moves)
    for p in with_moves:
        for action in engine.legal_actions(state, p):
            after = engine.apply(state, p, action)
            assert not isinstance(after, Rejection), (p, action, after)
    oracle.see(state)
    for viewer in [None, *range(players)]:
        leaked = codes_in(engine.view(state, viewer)) & oracle.hidden(state, viewer)
        assert not leaked, f"{game.name}: viewer {viewer} sees {sorted(leaked)}"


def played(game: Game, players: int, seed: int, check: bool) -> list[dict[str, Any]]:
    """The dumps of one game's first :data:`STEPS` states: player 0's side the bot, the others
    random-legal; every state checked against the contract when ``check``."""
    engine = game.engine
    state = engine.new_game(players, {}, seed)
    side = next(t for t in engine.teams(state) if 0 in t)
    bots = [game.bot if p in side else random_legal for p in range(players)]
    rngs = [random.Random(f"{seed}:{p}") for p in range(players)]
    oracle = Oracle(game)
    dumps = [engine.dump(state)]
    if check:
        check_state(game, state, players, oracle)

    def observe(before: Any, player: int | None, action: dict[str, Any], after: Any) -> None:
        dumps.append(engine.dump(after))
        if check:
            check_state(game, after, players, oracle)

    result = drive(engine, state, bots, rngs, observe=observe, stop=lambda s: len(dumps) > STEPS)
    assert result.ok, result.failure
    return dumps


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_every_state_keeps_the_contract(name: str, players: int) -> None:
    dumps = played(GAMES[name], players, 7, check=True)
    assert len(dumps) > 20  # the game really went on


@pytest.mark.parametrize("name", list(GAMES))
def test_the_same_seed_gives_the_same_game(name: str) -> None:
    game = GAMES[name]
    players = game.info.min_players
    first = played(game, players, 11, check=False)
    assert played(game, players, 11, check=False) == first
    assert game.engine.new_game(players, {}, 11) == game.engine.new_game(players, {}, 11)
    assert played(game, players, 12, check=False)[0] != first[0]  # another seed, another deal


# ------------------------------------------------------------------------ load: fuzzing


def _leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every value inside ``data`` (dict keys and list indices)."""
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _leaves(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _leaves(v, (*path, i))
    return out


_ODD_VALUES: list[Any] = [
    0,
    1,
    2,
    -1,
    31,
    None,
    True,
    "H1",
    "S13",
    "C7",
    "X",
    [],
    {},
    "draw",
    "layoff",
    "knock",
    "gin",
    "stock",
    "discard",
    "play",
    "bid",
]


def _mutated(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(data)
    path = rng.choice(_leaves(out)[1:])
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    how = rng.randrange(3)
    if how == 0 or not isinstance(parent, list):
        parent[last] = rng.choice(_ODD_VALUES)
    elif how == 1:
        del parent[last]
    else:
        parent.insert(last, copy.deepcopy(parent[last]))
    return out


# Damaged dumps tried per game, and at least how many of them load refuses / accepts.
FUZZ = {"gin_rummy": (1500, 1000, 50)}
FUZZ_DEFAULT = (600, 300, 3)


@pytest.mark.parametrize("name", list(GAMES))
def test_load_either_refuses_a_damaged_state_or_gives_a_working_one(name: str) -> None:
    """Random damage to real states: ``load`` raises InvalidState saying why, or the state
    it gives works with every method of the contract."""
    game = GAMES[name]
    engine = game.engine
    players = game.info.min_players
    rng = random.Random(5)
    dumps = played(game, players, 8, check=False)[::3]
    names = [f"P{p}" for p in range(game.info.max_players)]
    tries, least_refused, least_loaded = FUZZ.get(name, FUZZ_DEFAULT)
    loaded = refused = 0
    for _ in range(tries):
        data = _mutated(rng.choice(dumps), rng)
        try:
            state = engine.load(data)
        except InvalidState as err:
            assert str(err).strip(), "InvalidState must say what is wrong"
            refused += 1
            continue
        loaded += 1  # harmless damage (e.g. a different seed): the state must fully work
        assert engine.load(engine.dump(state)) == state
        for p in (*range(players), None):
            engine.view(state, p)
        engine.status(state, names)
        engine.scoreboard(state, names)
        engine.reveal(state)
        engine.outcome(state)
        game.binding.project(state)
        for p in engine.to_act(state):
            for action in engine.legal_actions(state, p):
                assert not isinstance(engine.apply(state, p, action), Rejection), (p, action)
                engine.describe(state, p, action, names)
    assert refused >= least_refused and loaded >= least_loaded, (refused, loaded)


# ------------------------------------------------------------- the contract test has teeth


class _Broken:
    """Spades with one promise broken, registered under its own name, to show the checks above
    catch it (a game that breaks it would fail them)."""

    def __init__(self, how: str) -> None:
        spades = GAMES["spades"]
        self.how, self.real = how, spades.engine
        self.info = replace(spades.info, name=f"broken_{how}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def view(self, state: Any, player: int | None) -> dict[str, Any]:
        view = self.real.view(state, player)
        if self.how == "view" and player == 0:
            return {**view, "peek": list(state.hands[1])}  # the next player's hand
        return view

    def to_act(self, state: Any) -> list[int]:
        to_act = self.real.to_act(state)
        return to_act[:1] if self.how == "to_act" and state.phase == "deal_over" else to_act

    def dump(self, state: Any) -> dict[str, Any]:
        data = self.real.dump(state)
        return {**data, "bags": [0, 0]} if self.how == "dump" and state.bags != (0, 0) else data


class _BrokenBinding:
    def __init__(self, engine: _Broken) -> None:
        self.engine, self.info, self.widgets = engine, engine.info, ()

    def project(self, state: Any) -> Any:
        return GAMES["spades"].binding.project(state)


@pytest.mark.parametrize("how", ["view", "to_act", "dump"])
def test_a_game_that_breaks_the_contract_fails_it(how: str) -> None:
    engine: Any = _Broken(how)
    game = Game(engine=engine, binding=_BrokenBinding(engine), bot=GAMES["spades"].bot)
    with registered(game), pytest.raises((AssertionError, InvalidState)):
        for seed in range(1, 4):  # bags and a finished deal come within a few deals
            played(GAMES[game.name], 4, seed, check=True)
