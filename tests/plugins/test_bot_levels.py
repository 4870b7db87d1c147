"""The computers' levels for Spades and Gin Rummy: ``easy`` plays like a casual beginner (and
only legal moves), ``hard`` is measurably stronger than ``normal`` and reads only its view.

The levels' win rates against each other are measured with ``cardtable simulate GAME --levels
A,B`` (docs/plugins.md, "Computer levels"); here, small fixed seed sets check the direction.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from msgspec.structs import replace

from plugins.cards import rank
from plugins.game import Bot, Game
from plugins.gin_rummy import GAME as GIN_GAME
from plugins.gin_rummy import bot_easy as gin_easy
from plugins.gin_rummy import bot_hard as gin_hard
from plugins.simulate import drive, simulate
from plugins.spades import GAME as SPADES_GAME
from plugins.spades import bot_easy as spades_easy
from tests.plugins.test_gin_rules import make
from tests.plugins.test_spades_bot import after_plays, deal

GAMES = {"spades": SPADES_GAME, "gin_rummy": GIN_GAME}


# ----------------------------------------------------------------------------- all levels


@pytest.mark.parametrize("name", GAMES)
def test_every_level_is_registered(name: str) -> None:
    game = GAMES[name]
    assert set(game.bots) == {"easy", "hard"}
    assert len({game.bot_at("easy"), game.bot_at("normal"), game.bot_at("hard")}) == 3


def hidden_twin(game: Game, state: Any, seat: int, rng: random.Random) -> Any:
    """``state`` with the cards ``seat`` cannot see dealt around again: the other hands (less
    the cards shown face up) and the stock shuffled together, each keeping its size."""
    if game is GIN_GAME:
        other = 1 - seat
        shown = set(state.picked[other])
        hidden = [c for c in state.hands[other] if c not in shown] + list(state.stock)
        rng.shuffle(hidden)
        keep = [c for c in state.hands[other] if c in shown]
        n = len(state.hands[other]) - len(keep)
        hands = list(state.hands)
        hands[other] = tuple(keep + hidden[:n])
        return replace(state, hands=tuple(hands), stock=tuple(hidden[n:]))
    others = [p for p in range(4) if p != seat]
    pool = [c for p in others for c in state.hands[p]]
    rng.shuffle(pool)
    hands = list(state.hands)
    for p in others:
        size = len(state.hands[p])
        hands[p], pool = tuple(pool[:size]), pool[size:]
    return replace(state, hands=tuple(hands))


def decisions_on_twins(game: Game, bot: Bot, seat: int, states: int) -> list[tuple[Any, Any]]:
    """``bot``'s action for ``seat`` and its action on a hidden twin, over self-play states
    (Spades deals with a blind nil exchange are left out: a passed card is known)."""
    seen: list[Any] = []
    players = game.info.min_players
    state = game.engine.new_game(players, {}, 5)

    def watch(before: Any, player: Any, action: Any, after: Any) -> None:
        if seat in game.engine.to_act(after) and getattr(after, "exchange", None) is None:
            seen.append(after)

    bots = [game.bot] * players
    bots[seat] = bot
    drive(
        game.engine,
        state,
        bots,
        [random.Random(p) for p in range(players)],
        observe=watch,
        stop=lambda s: len(seen) >= states,
    )
    shuffler = random.Random(9)
    out = []
    for s in seen:
        twin = hidden_twin(game, s, seat, shuffler)
        assert game.engine.view(twin, seat) == game.engine.view(s, seat)
        out.append(
            (
                bot(game.engine, s, seat, random.Random(3)),
                bot(game.engine, twin, seat, random.Random(3)),
            )
        )
    return out


@pytest.mark.parametrize("name", GAMES)
def test_the_hard_bot_decides_only_from_what_its_seat_sees(name: str) -> None:
    game = GAMES[name]
    pairs = decisions_on_twins(game, game.bot_at("hard"), 1, 150)
    assert len(pairs) >= 50 and all(a == b for a, b in pairs)


def test_the_twin_check_catches_a_bot_that_peeks() -> None:
    """A Gin bot that draws from the discard pile when the stock's top card is worse is caught."""

    def peeker(engine: Any, state: Any, seat: int, rng: random.Random) -> Any:
        action = gin_hard.choose_action(engine, state, seat, rng)
        if action == {"type": "draw", "source": "stock"} and rank(state.stock[-1]) > 5:
            return {"type": "draw", "source": "discard"}
        return action

    pairs = decisions_on_twins(GIN_GAME, peeker, 1, 150)
    assert any(a != b for a, b in pairs)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("level", ["easy", "hard"])
def test_a_level_plays_only_legal_moves_to_the_end(name: str, level: str) -> None:
    """A rejected move ends a simulated game as a failure; against each other levels too."""
    game = GAMES[name]
    players = game.info.min_players
    for other in ("normal", "easy"):
        lineup = [level, other] * (players // 2)
        report = simulate(game.engine, game.bot, 4, 11, lineup=lineup, rotate=True)
        assert not report.failures and report.finished == 4


# ----------------------------------------------------------------------------- Spades easy


def test_spades_easy_bids_its_high_cards_and_never_nil() -> None:
    assert spades_easy.easy_bid(["S1", "S13", "S12", "H1", "D13", "C2"]) == 5
    assert spades_easy.easy_bid(["S2", "H3", "D4"]) == 1  # no high card: still 1, not nil
    weak = ["S2", "S3", "H2", "H3", "H4", "H5", "D2", "D3", "D4", "C2", "C3", "C4", "C5"]
    action = SPADES_GAME.move(deal({0: weak}), 0, random.Random(0), "easy")
    assert action == {"type": "bid", "bid": 1}
    assert SPADES_GAME.move(deal({0: weak}), 0, random.Random(0)) == {"type": "bid", "bid": 0}


def test_spades_easy_wins_with_its_highest_card_even_over_its_partner() -> None:
    # Player 0 leads H2, 1 plays H5, partner 2 wins with the HA; player 3 (easy) holds HK H3.
    fixed = {0: ["H2"], 1: ["H5"], 2: ["H1"], 3: ["H13", "H3"]}
    state = after_plays(fixed, [3, 3, 3, 3], ["H2", "H5", "H1"])
    assert SPADES_GAME.move(state, 3, random.Random(0), "easy") == {"type": "play", "card": "H3"}
    # Player 1 (easy) with HK HQ H3 over the H2: its highest winner, the king.
    fixed = {0: ["H2"], 1: ["H13", "H12", "H3"]}
    state = after_plays(fixed, [3, 3, 3, 3], ["H2"])
    assert SPADES_GAME.move(state, 1, random.Random(0), "easy") == {"type": "play", "card": "H13"}


# -------------------------------------------------------------------------------- Gin easy


def test_gin_easy_takes_a_discard_only_to_complete_a_meld() -> None:
    hand = ["H4", "H5", "C9", "D9", "S13", "D12", "C1", "S2", "H10", "C6"]
    assert gin_easy.completes_meld(hand, "H6") and gin_easy.completes_meld(hand, "S9")
    assert not gin_easy.completes_meld(hand, "S1")  # lowers deadwood, but no meld
    assert not gin_easy.completes_meld(hand, None)


def test_gin_easy_throws_its_highest_lonely_card_and_sometimes_slips() -> None:
    hand = ["H4", "H5", "H6", "C9", "D9", "S13", "D12", "D11", "C1", "S2", "H10"]
    allowed = list(hand)
    picks = [gin_easy.easy_discard(hand, allowed, random.Random(seed)) for seed in range(200)]
    assert set(picks) == {"S13", "D12"}  # the lonely king; the near-run D11-D12 one time in 5
    assert 20 <= picks.count("D12") <= 60


def test_gin_easy_knocks_as_soon_as_it_may() -> None:
    # Seat 0 drew S13: C7 D7 H7, D10-D12, S4-S6 melded, deadwood C1 after throwing S13.
    knock = make(
        (
            ["S4", "S5", "S6", "C7", "D7", "H7", "D10", "D11", "D12", "C1", "S13"],
            ["C9", "H9", "S9", "H4", "H5", "H6", "H13", "C8", "C2", "H1"],
        ),
        phase="discard",
        drawn="S13",
        drawn_from="stock",
    )
    assert GIN_GAME.move(knock, 0, random.Random(0), "easy") == {"type": "knock", "card": "S13"}


# ----------------------------------------------------------------------------- hard levels


def test_spades_hard_plays_under_an_opponents_winning_nil() -> None:
    # Player 1 bid nil and wins the trick with the H9; player 2 holds H10 H8 H3.
    fixed = {0: ["H2"], 1: ["H9"], 2: ["H10", "H8", "H3"]}
    state = after_plays(fixed, [3, 0, 3, 3], ["H2", "H9"])
    assert SPADES_GAME.move(state, 2, random.Random(0), "hard") == {"type": "play", "card": "H8"}
    assert SPADES_GAME.move(state, 2, random.Random(0)) == {"type": "play", "card": "H10"}


def test_spades_hard_bids_a_little_under_normals_estimate() -> None:
    from plugins.spades.bot import estimate_tricks
    from plugins.spades.bot_hard import hard_bid

    hand = ["S1", "S13", "S5", "H1", "H13", "H4", "D13", "D5", "D1", "C7", "C6", "C3", "D2"]
    assert round(estimate_tricks(hand), 2) == 5.6
    normal = SPADES_GAME.move(deal({0: hand}), 0, random.Random(0))
    assert normal == {"type": "bid", "bid": 6}
    hard = SPADES_GAME.move(deal({0: hand}), 0, random.Random(0), "hard")
    assert hard == {"type": "bid", "bid": 5} and hard_bid(hand, None) == 5
    assert hard_bid(hand, 10) == 3  # never past what the partner's bid leaves


@pytest.mark.parametrize(("name", "games"), [("spades", 40), ("gin_rummy", 20)])
def test_hard_beats_normal_over_a_fixed_seed_set(name: str, games: int) -> None:
    """Duplicate games: the same bot at both levels would split them exactly."""
    game = GAMES[name]
    lineup = ["hard", "normal"] * (game.info.min_players // 2)
    report = simulate(game.engine, game.bot, games, 1, lineup=lineup, rotate=True)
    assert report.finished == games
    assert report.role_wins["hard"] > report.role_wins["normal"]
