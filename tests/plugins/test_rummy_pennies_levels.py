"""The computer levels of Rummy and Pennies (issue 20 item 3): ``easy`` and ``hard`` are
registered beside ``normal`` (unchanged), every level plays only legal moves over seeded
self-play in mixed lineups at 2-4 players, ``hard`` decides from its own view alone (states
that differ only in cards it cannot see get the same decision), and the orderings whose margin
is wide over a fixed seed set: measured with ``plugins.simulate.simulate`` over shared deals
with the seats rotating (docs/plugins.md, "Computer levels", has the full measure)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

import plugins.pennies as pennies
import plugins.rummy as rummy
from plugins.cards import sort_key
from plugins.game import Game
from plugins.pennies.bot_easy import choose_action as pennies_easy
from plugins.pennies.bot_hard import choose_action as pennies_hard
from plugins.rummy.bot_easy import choose_action as rummy_easy
from plugins.rummy.bot_hard import choose_action as rummy_hard
from plugins.simulate import drive, simulate

GAMES = {"rummy": rummy.GAME, "pennies": pennies.GAME}
HARD = {"rummy": rummy_hard, "pennies": pennies_hard}
LINEUPS = {
    2: [("easy", "hard"), ("hard", "normal")],
    3: [("easy", "normal", "hard")],
    4: [("hard", "easy", "hard", "normal"), ("easy", "easy", "normal", "hard")],
}


def test_levels_are_registered_and_normal_is_unchanged() -> None:
    assert rummy.GAME.bot_at("easy") is rummy_easy and rummy.GAME.bot_at("hard") is rummy_hard
    assert pennies.GAME.bot_at("easy") is pennies_easy
    assert pennies.GAME.bot_at("hard") is pennies_hard
    for game, normal in ((rummy.GAME, rummy.choose_action), (pennies.GAME, pennies.choose_action)):
        assert game.bot is normal and game.bot_at("normal") is normal


def checked(game: Game, level: str) -> Any:
    """The level's bot, checking each of its moves: Rummy's is one of the legal actions (its
    list is complete); Pennies lists melds only by example, so there the kind must be legal
    (the driver fails the game if the engine rejects the move)."""
    bot = game.bot_at(level)

    def play(engine: Any, state: Any, player: int, rng: random.Random) -> Any:
        action = bot(engine, state, player, rng)
        legal = engine.legal_actions(state, player)
        assert action is not None, f"{level} passed when asked to move"
        if game is rummy.GAME:
            assert action in legal, (level, action)
        else:
            assert action["type"] in {a["type"] for a in legal} | {"pass"}, (level, action)
        return action

    return play


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_level_plays_only_legal_moves(name: str, players: int) -> None:
    game = GAMES[name]
    for lineup in LINEUPS[players]:
        for seed in range(3):
            state = game.engine.new_game(players, {}, 100 * players + seed)
            rngs = [random.Random(f"{seed}:{p}") for p in range(players)]
            played = drive(game.engine, state, [checked(game, lv) for lv in lineup], rngs)
            assert played.ok, played.failure
            assert game.engine.outcome(played.state) is not None


def other_world(state: Any, player: int, rng: random.Random) -> Any:
    """``state`` with the cards ``player`` cannot see (the other hands and the stock) dealt
    among those places again, each keeping its size."""
    others = [q for q in range(state.players) if q != player]
    pool = [c for q in others for c in state.hands[q]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    for q in others:
        size = len(state.hands[q])
        hands[q], pool = tuple(sorted(pool[:size], key=sort_key)), pool[size:]
    return msgspec.structs.replace(state, hands=tuple(hands), stock=tuple(pool))


def same_move_in_other_worlds(game: Game, bot: Any) -> tuple[int, int]:
    """Play a few games with ``bot`` in the even seats; at each of its decisions, ask it again
    in a world where the others' hands and the stock are dealt differently (same ``rng``
    state) and assert the same move. Returns the decisions compared and how many of those
    worlds really differed."""
    compared = differed = 0
    shuffler = random.Random(0)
    for seed in range(3):

        def watch(engine: Any, state: Any, player: int, rng: random.Random) -> Any:
            nonlocal compared, differed
            tie = rng.getstate()
            action = bot(engine, state, player, rng)
            after = rng.getstate()
            rng.setstate(tie)
            world = other_world(state, player, shuffler)
            differed += world != state
            assert bot(engine, world, player, rng) == action, "the move depends on hidden cards"
            rng.setstate(after)
            compared += 1
            return action

        players = 2 + seed
        state = game.engine.new_game(players, {}, 7 + seed)
        bots = [watch if p % 2 == 0 else game.bot for p in range(players)]
        rngs = [random.Random(f"{seed}:{p}") for p in range(players)]
        played = drive(game.engine, state, bots, rngs)
        assert played.ok, played.failure
    return compared, differed


@pytest.mark.parametrize("name", sorted(GAMES))
def test_hard_decides_from_its_own_view_only(name: str) -> None:
    compared, differed = same_move_in_other_worlds(GAMES[name], HARD[name])
    assert compared > 300 and differed > compared // 2


def test_the_view_check_catches_a_bot_that_peeks_at_the_stock() -> None:
    """The check has teeth: hard Rummy, but taking the discard whenever the stock's top card
    is worth more, is caught."""

    def peeker(engine: Any, state: Any, player: int, rng: random.Random) -> Any:
        if state.phase == "draw" and state.stock and state.discard:
            top, card = state.stock[-1], state.discard[-1]
            return {"type": "draw", "source": "discard" if top > card else "stock"}
        return rummy_hard(engine, state, player, rng)

    with pytest.raises(AssertionError, match="hidden cards"):
        same_move_in_other_worlds(rummy.GAME, peeker)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "stronger", "weaker", "games", "least"),
    [
        ("rummy", "hard", "normal", 120, 0.6),
        ("rummy", "hard", "easy", 120, 0.6),
        ("pennies", "normal", "easy", 120, 0.75),
    ],
)
def test_the_stronger_level_wins_most_two_player_games(
    name: str, stronger: str, weaker: str, games: int, least: float
) -> None:
    game = GAMES[name]
    report = simulate(game.engine, game.bot, games, 11, lineup=[stronger, weaker], rotate=True)
    assert not report.failures, report.failures[:3]
    low, _ = report.interval(stronger)
    print(f"{name} {stronger} vs {weaker}: {report.rate(stronger):.1%}, interval from {low:.1%}")
    assert report.rate(stronger) >= least and low > 0.5
