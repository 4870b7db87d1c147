"""Gin Rummy on plugin contract v2: teams, to_act, scheduled, dealing a given deck, log lines,
status, scoreboard, reveal, outcome, and ``load`` refusing states that cannot happen."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from msgspec.structs import replace

from plugins.base import Engine, InvalidState, Outcome, Rejection, RevealLine, Scoreboard
from plugins.cards import deck as full_deck
from plugins.gin_rummy import ENGINE, GinState
from plugins.gin_rummy.rules import DISCARD, DRAW, GAME_OVER, HAND_OVER, LAYOFF, UPCARD
from tests.plugins.test_contract import _mutated
from tests.plugins.test_gin_rules import (
    DEFENDER_12,
    DEFENDER_21,
    KNOCKER_MELDS,
    _knocked,
    knock_state,
    make,
    ok,
    rejected,
)

NAMES = ["Ana", "Ben"]
# A deck order for new_game(deck=...): seed 1 makes player 1 the dealer, so player 0 gets the
# even positions 0, 2, ... 18 and player 1 the odd ones; DECK[20] is the upcard.
SEED = 1
P0 = ["S4", "S5", "S6", "C7", "D7", "H7", "D10", "D11", "D12", "H3"]
P1 = ["C9", "H9", "S9", "H4", "H5", "H6", "H13", "C8", "C2", "C1"]
UP = "C12"
STOCK = ["C13", "S7", "D13"]  # the first three stock cards, in drawing order
DECK = [c for pair in zip(P0, P1, strict=True) for c in pair] + [UP] + STOCK
DECK += [c for c in full_deck() if c not in set(DECK)]


def dealt() -> GinState:
    return ENGINE.new_game(2, {}, SEED, deck=DECK)


def test_engine_satisfies_contract_v2() -> None:
    engine: Engine[GinState] = ENGINE
    for method in (
        "teams",
        "to_act",
        "scheduled",
        "describe",
        "status",
        "scoreboard",
        "reveal",
        "outcome",
        "new_game",
        "legal_actions",
        "apply",
        "view",
        "dump",
        "load",
    ):
        assert callable(getattr(engine, method))


# --------------------------------------------------------------------------- new_game(deck=)


def test_new_game_deals_the_given_deck_in_order() -> None:
    s = dealt()
    assert s.dealer == 1 and s.turn == 0 and s.phase == UPCARD
    assert sorted(s.hands[0]) == sorted(P0) and sorted(s.hands[1]) == sorted(P1)
    assert s.discard == (UP,)
    assert s.stock[-3:] == tuple(reversed(STOCK)) and len(s.stock) == 31  # top is last
    s = ok(ok(s, 0, {"type": "pass"}), 1, {"type": "pass"})
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    assert s.drawn == "C13" and "C13" in s.hands[0]
    # Only the first deal follows the given order; the next hands are shuffled from the seed.
    seeded = ENGINE.new_game(2, {}, SEED)
    assert seeded.dealer == s.dealer and seeded.hands != s.hands
    s = ok(s, 0, {"type": "knock", "card": "C13"})
    s = ok(ok(s, 1, {"type": "finish_layoff"}), 1, {"type": "next_hand"})
    again = ok(ok(dealt(), 0, {"type": "pass"}), 1, {"type": "pass"})
    again = ok(again, 0, {"type": "draw", "source": "stock"})
    again = ok(again, 0, {"type": "knock", "card": "C13"})
    again = ok(ok(again, 1, {"type": "finish_layoff"}), 0, {"type": "next_hand"})
    assert again.hands == s.hands and again.stock == s.stock  # reproducible from the seed


def test_new_game_deals_from_the_seed_exactly_as_before() -> None:
    # The deal before the deck option: shuffle, then pop cards off the end of the list.
    for seed in range(5):
        cards = full_deck()
        random.Random(f"gin_rummy:{seed}:1").shuffle(cards)
        dealer = random.Random(f"gin_rummy:{seed}:first_dealer").randrange(2)
        hands: tuple[list[str], list[str]] = ([], [])
        for i in range(20):
            hands[(1 - dealer + i) % 2].append(cards.pop())
        upcard = cards.pop()
        s = ENGINE.new_game(2, {}, seed)
        assert s.dealer == dealer and s.discard == (upcard,) and s.stock == tuple(cards)
        assert [sorted(h) for h in s.hands] == [sorted(h) for h in hands]


@pytest.mark.parametrize(
    "deck",
    [DECK[:-1], [*DECK[:-1], DECK[0]], [*DECK[:-1], "Z1"], [*DECK, "J1"], []],
)
def test_new_game_refuses_a_deck_that_is_not_the_52_cards(deck: list[str]) -> None:
    with pytest.raises(ValueError, match="52 cards exactly once"):
        ENGINE.new_game(2, {}, SEED, deck=deck)


# --------------------------------------------------------------------------- who acts


def test_teams_to_act_and_no_scheduled_moves() -> None:
    s = dealt()
    assert ENGINE.teams(s) == [[0], [1]]
    seen: dict[str, list[int]] = {}

    def record(state: GinState) -> GinState:
        seen.setdefault(state.phase, ENGINE.to_act(state))
        assert ENGINE.scheduled(state) is None
        for p in (0, 1):
            assert bool(ENGINE.legal_actions(state, p)) == (p in ENGINE.to_act(state))
        return state

    s = record(s)
    s = record(ok(s, 0, {"type": "pass"}))
    assert ENGINE.to_act(s) == [1]
    s = record(ok(s, 1, {"type": "pass"}))
    s = record(ok(s, 0, {"type": "draw", "source": "stock"}))
    s = record(ok(s, 0, {"type": "knock", "card": "C13"}))
    s = record(ok(s, 1, {"type": "finish_layoff"}))
    assert seen == {UPCARD: [0], DRAW: [0], DISCARD: [0], LAYOFF: [1], HAND_OVER: [0, 1]}
    over = ok(
        _knocked("H3", DEFENDER_21, scores=(82, 40), hands_won=(3, 2)), 1, {"type": "finish_layoff"}
    )
    assert over.phase == GAME_OVER and ENGINE.to_act(over) == [] and ENGINE.scheduled(over) is None


def test_apply_without_a_player_is_refused() -> None:
    s = dealt()
    for action in ({"type": "pass"}, {"type": "next_hand"}, {}):
        r = ENGINE.apply(s, None, action)
        assert isinstance(r, Rejection) and r.code == "no_scheduled_moves"
        assert r.message == "Gin Rummy has no automatic moves; players make every move."
    assert ENGINE.legal_actions(s, None) == []  # type: ignore[arg-type]


# --------------------------------------------------------------------------- describe


def describe(state: GinState, player: int | None, action: dict[str, Any]) -> str:
    return ENGINE.describe(state, player, action, NAMES)


def test_describe_names_cards_in_words() -> None:
    s = dealt()
    assert describe(s, 0, {"type": "take_upcard"}) == "Ana took the upcard, the queen of clubs"
    assert describe(s, 0, {"type": "pass"}) == "Ana passed on the upcard"
    s = ok(s, 0, {"type": "pass"})
    assert describe(s, 1, {"type": "pass"}) == "Ben passed on the upcard too; Ana draws first"
    s = ok(s, 1, {"type": "pass"})
    line = describe(s, 0, {"type": "draw", "source": "stock"})
    assert line == "Ana drew from the stock"  # the stock card (king of clubs) stays unnamed
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    assert describe(s, 0, {"type": "discard", "card": "C13"}) == "Ana discarded the king of clubs"
    line = describe(s, 0, {"type": "knock", "card": "C13"})
    assert line == "Ana knocked with 3 deadwood" and "king" not in line  # face down
    s = ok(s, 0, {"type": "discard", "card": "C13"})
    assert describe(s, 1, {"type": "draw", "source": "discard"}) == (
        "Ben took the king of clubs from the discard pile"
    )
    assert describe(s, 1, {"type": "draw", "source": "stock"}) == "Ben drew from the stock"


def test_describe_lay_offs_and_hand_results() -> None:
    defender = ["C9", "H9", "S9", "H4", "H5", "H6", "S3", "D13", "C2", "C8"]
    s = _knocked("H8", defender)
    assert describe(s, 1, {"type": "lay_off", "card": "S3", "meld": 2}) == (
        "Ben laid off the 3 of spades"
    )
    s = ok(
        ok(s, 1, {"type": "lay_off", "card": "S3", "meld": 2}),
        1,
        {"type": "lay_off", "card": "D13", "meld": 1},
    )
    assert describe(s, 1, {"type": "finish_layoff"}) == "Ben finished laying off: Ana scores 2"
    under = ["C8", "D8", "H8", "S8", "C12", "H12", "S12", "S2", "C2", "C1"]
    assert describe(_knocked("H5", under), 1, {"type": "finish_layoff"}) == (
        "Ben finished laying off: Ben undercut Ana and scores 25"
    )
    gin = knock_state([*KNOCKER_MELDS, "D13"], "H5", DEFENDER_12)
    assert describe(gin, 0, {"type": "knock", "card": "H5"}) == "Ana went Gin: Ana scores 37"
    big = knock_state([*KNOCKER_MELDS, "D13"], "D9", DEFENDER_12)
    assert describe(big, 0, {"type": "big_gin"}) == "Ana declared Big Gin: Ana scores 43"
    end = _knocked("H3", DEFENDER_21, scores=(90, 40), hands_won=(3, 2))
    assert describe(end, 1, {"type": "finish_layoff"}) == (
        "Ben finished laying off: Ana scores 18; Ana wins the game, 308 to 90"
    )
    over = ok(_knocked("H3", DEFENDER_21), 1, {"type": "finish_layoff"})
    assert describe(over, 1, {"type": "next_hand"}) == "Ben dealt on: hand 2, Ana deals"


def test_describe_a_drawn_hand_and_refused_moves() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_size=3)
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    assert describe(s, 0, {"type": "discard", "card": "C1"}) == (
        "Ana discarded the ace of clubs; only 2 cards are left in the stock, so the hand is a draw"
    )
    for player, action in (
        (1, {"type": "discard", "card": "D1"}),
        (0, {"type": "jump"}),
        (None, {"type": "discard", "card": "C1"}),
    ):
        line = describe(s, player, action)
        assert line.endswith("tried a move the rules don't allow") and " of " not in line
    assert ENGINE.describe(s, 0, {"type": "draw", "source": "stock"}, []).startswith("Player 1")


# --------------------------------------------------------------------------- status


def test_status_says_who_does_what() -> None:
    s = dealt()
    assert ENGINE.status(s, NAMES) == "Ana to take the upcard or pass"
    s = ok(ok(s, 0, {"type": "pass"}), 1, {"type": "pass"})
    assert ENGINE.status(s, NAMES) == "Ana to draw from the stock"
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    assert ENGINE.status(s, NAMES) == "Ana to discard"
    d = ok(s, 0, {"type": "discard", "card": "C13"})
    assert ENGINE.status(d, NAMES) == "Ben to draw"
    k = ok(s, 0, {"type": "knock", "card": "C13"})
    assert ENGINE.status(k, NAMES) == "Ana knocked: Ben may lay off"
    assert ENGINE.status(ok(k, 1, {"type": "finish_layoff"}), NAMES) == "Ana scores 18"
    end = ok(
        _knocked("H3", DEFENDER_21, scores=(90, 40), hands_won=(3, 2)), 1, {"type": "finish_layoff"}
    )
    assert ENGINE.status(end, NAMES) == "Ana wins the game, 308 to 90"
    tie = ok(
        _knocked("H3", DEFENDER_21, scores=(89, 82), hands_won=(0, 6)), 1, {"type": "finish_layoff"}
    )
    assert ENGINE.status(tie, NAMES) == "The game is a tie at 232"
    drawn = make((full_deck()[:10], full_deck()[13:23]), stock_size=3)
    drawn = ok(
        ok(drawn, 0, {"type": "draw", "source": "stock"}), 0, {"type": "discard", "card": "C1"}
    )
    assert ENGINE.status(drawn, NAMES) == "The hand is a draw"


# --------------------------------------------------------------------------- scoreboard


def _big_gin_hands(hands: int) -> GinState:
    """``hands`` hands in a row where Ana declares Big Gin (50) against 21 deadwood."""
    s = knock_state([*KNOCKER_MELDS, "D13"], "D9", DEFENDER_21, options={"big_gin_bonus": 50})
    template = s
    for n in range(hands):
        s = ok(s, 0, {"type": "big_gin"})
        if n + 1 < hands:
            s = ok(s, 1, {"type": "next_hand"})
            s = replace(
                template,
                hand_no=s.hand_no,
                dealer=s.dealer,
                scores=s.scores,
                hands_won=s.hands_won,
                history=s.history,
            )
    return s


def test_scoreboard_one_row_per_hand() -> None:
    s = ok(_knocked("H3", DEFENDER_21), 1, {"type": "finish_layoff"})
    board = ENGINE.scoreboard(s, NAMES)
    assert board == Scoreboard(
        columns=("Ana", "Ben"),
        rows=(("Hand 1 (knock)", (18, 0)),),
        totals=(18, 0),
        note="First to 100",
    )
    assert board.as_data()["rows"] == [{"label": "Hand 1 (knock)", "cells": [18, 0]}]
    fresh = ENGINE.scoreboard(dealt(), NAMES)
    assert fresh.rows == () and fresh.totals == (0, 0)
    assert ENGINE.scoreboard(ENGINE.new_game(2, {"target": 250}, 3), NAMES).note == "First to 250"
    under = ["C8", "D8", "H8", "S8", "C12", "H12", "S12", "S2", "C2", "C1"]
    u = ok(_knocked("H5", under), 1, {"type": "finish_layoff"})
    assert ENGINE.scoreboard(u, NAMES).rows == (("Hand 1 (undercut)", (0, 25)),)


def test_scoreboard_shows_the_game_breakdown() -> None:
    s = _big_gin_hands(2)
    assert s.phase == GAME_OVER
    board = ENGINE.scoreboard(s, NAMES)
    assert board.rows == (
        ("Hand 1 (big gin)", (71, 0)),
        ("Hand 2 (big gin)", (71, 0)),
        ("Shutout (hand points doubled)", (142, 0)),
        ("Game bonus", (100, 0)),
        ("Line bonus (25 a hand won)", (50, 0)),
    )
    assert board.totals == (434, 0)
    assert tuple(sum(int(cells[i]) for _, cells in board.rows) for i in (0, 1)) == board.totals
    assert ENGINE.outcome(s) == Outcome(winners=(0,), scores=(434, 0))


# --------------------------------------------------------------------------- reveal / outcome


def test_reveal_after_a_knock_with_layoffs() -> None:
    defender = ["C9", "H9", "S9", "H4", "H5", "H6", "S3", "D13", "C2", "C8"]
    s = _knocked("H8", defender)
    assert ENGINE.reveal(s) is None  # mid-hand
    s = ok(
        ok(s, 1, {"type": "lay_off", "card": "S3", "meld": 2}),
        1,
        {"type": "lay_off", "card": "D13", "meld": 1},
    )
    s = ok(s, 1, {"type": "finish_layoff"})
    assert ENGINE.reveal(s) == [
        RevealLine(
            player=0,
            melds=(("C7", "D7", "H7"), ("D10", "D11", "D12", "D13"), ("S3", "S4", "S5", "S6")),
            cards=("H8",),
            points=8,
            note="Knocked with 8 deadwood; discarded the king of clubs face down; scores 2",
        ),
        RevealLine(
            player=1,
            melds=(("C9", "H9", "S9"), ("H4", "H5", "H6")),
            cards=("C2", "C8"),
            points=10,
            note="Laid off the 3 of spades and king of diamonds",
        ),
    ]
    assert ENGINE.reveal(ok(s, 0, {"type": "next_hand"})) is None


def test_reveal_after_gin_undercut_and_draw() -> None:
    gin = ok(
        knock_state([*KNOCKER_MELDS, "D13"], "H5", DEFENDER_12), 0, {"type": "knock", "card": "H5"}
    )
    lines = ENGINE.reveal(gin)
    assert lines is not None
    assert lines[0].note == "Gin; discarded the 5 of hearts face down; scores 37"
    assert lines[0].cards == () and lines[0].points == 0
    assert lines[1].points == 12 and lines[1].note == ""
    under = ["C8", "D8", "H8", "S8", "C12", "H12", "S12", "S2", "C2", "C1"]
    u = ENGINE.reveal(ok(_knocked("H5", under), 1, {"type": "finish_layoff"}))
    assert u is not None and u[1].note == "Scores 25" and u[1].points == 5
    assert u[0].note == "Knocked with 5 deadwood; discarded the king of clubs face down"
    drawn = make((full_deck()[:10], full_deck()[13:23]), stock_size=3)
    drawn = ok(
        ok(drawn, 0, {"type": "draw", "source": "stock"}), 0, {"type": "discard", "card": "C1"}
    )
    d = ENGINE.reveal(drawn)
    assert d is not None and [line.note for line in d] == ["The hand is a draw"] * 2
    assert [line.player for line in d] == [0, 1]
    assert all(len(line.cards) + sum(map(len, line.melds)) == 10 for line in d)
    big = ENGINE.reveal(_big_gin_hands(1))
    assert big is not None and big[0].note == "Big Gin; scores 71"
    assert sum(map(len, big[0].melds)) == 11


def test_outcome_only_once_the_game_is_over() -> None:
    assert ENGINE.outcome(dealt()) is None
    s = _knocked("H3", DEFENDER_21, scores=(81, 40), hands_won=(3, 2))
    assert ENGINE.outcome(ok(s, 1, {"type": "finish_layoff"})) is None
    tie = ok(
        _knocked("H3", DEFENDER_21, scores=(89, 82), hands_won=(0, 6)), 1, {"type": "finish_layoff"}
    )
    assert ENGINE.outcome(tie) == Outcome(winners=(0, 1), scores=(232, 232))
    lost = ok(
        _knocked("H3", DEFENDER_21, scores=(82, 99), hands_won=(0, 9)), 1, {"type": "finish_layoff"}
    )
    assert ENGINE.outcome(lost) == Outcome(winners=(1,), scores=(225, 324))


# --------------------------------------------------------------------------- load


def _played() -> dict[str, GinState]:
    """Real states of a short game: phase name -> state (layoff after a knock, and so on)."""
    out: dict[str, GinState] = {}
    s = dealt()
    out[UPCARD] = s
    s = ok(ok(s, 0, {"type": "pass"}), 1, {"type": "pass"})
    out[DRAW] = s
    s = ok(s, 0, {"type": "draw", "source": "stock"})
    out[DISCARD] = s
    s = ok(s, 0, {"type": "knock", "card": "C13"})
    out[LAYOFF] = s
    s = ok(s, 1, {"type": "finish_layoff"})
    out[HAND_OVER] = s
    s = ok(s, 1, {"type": "next_hand"})
    out["hand2"] = s
    first = s.turn
    assert first is not None
    s = ok(s, first, {"type": "take_upcard"})
    out["took"] = s
    return out


def test_load_round_trips_real_states() -> None:
    for s in _played().values():
        assert ENGINE.load(ENGINE.dump(s)) == s
    took = _played()["took"]
    assert took.picked[took.turn or 0] == (took.drawn,)  # the upcard is public knowledge
    old = ENGINE.dump(_played()[DRAW])
    del old["picked"]  # states stored before "picked" existed still load
    assert ENGINE.load(old) == _played()[DRAW]


Mutation = Callable[[dict[str, Any]], None]


def _swap_first_stock_card(d: dict[str, Any]) -> None:
    d["stock"][0] = d["hands"][0][0]


def _drop_stock_card(d: dict[str, Any]) -> None:
    d["stock"].pop()


def _hand_to_stock(d: dict[str, Any]) -> None:
    d["stock"].append(d["hands"][0].pop())


def _both_hands_swap(d: dict[str, Any]) -> None:
    d["hands"][1].append(d["hands"][0].pop())


def _lay_off_c9(d: dict[str, Any]) -> None:
    d["hands"][1].remove("C9")
    d["knock"]["layoffs"] = [{"card": "C9", "meld": 0}]


def _knock_in_draw_phase(d: dict[str, Any]) -> None:
    d["knock"] = {**copy.deepcopy(_LAYOFF_KNOCK), "discard": None}


BAD_STATES: list[tuple[str, Mutation, str]] = [
    (DRAW, _swap_first_stock_card, "Cards appear more than once: the "),
    (DRAW, _drop_stock_card, "Cards are missing: the "),
    (DRAW, _hand_to_stock, "hands should hold 10 and 10 cards, not 9 and 10"),
    (UPCARD, _both_hands_swap, "hands should hold 10 and 10 cards, not 9 and 11"),
    (DRAW, lambda d: d.update(phase="dancing"), "Unknown phase 'dancing'"),
    (DRAW, lambda d: d.update(turn=2), "The player to move must be 0 or 1"),
    (DRAW, lambda d: d.update(turn=None), "A hand in play needs a player to move"),
    (HAND_OVER, lambda d: d.update(turn=0), "Nobody moves once the hand is over"),
    (DRAW, lambda d: d.update(dealer=3), "The dealer must be player 0 or 1"),
    (DRAW, lambda d: d.update(phase=5), "Not a Gin Rummy state"),
    (DRAW, lambda d: d.pop("hands"), "Not a Gin Rummy state"),
    (DRAW, lambda d: d["stock"].__setitem__(0, "X9"), "Not card codes: 'X9'"),
    (DRAW, lambda d: d["options"].update(knock_limit=11), "Bad options"),
    (DRAW, lambda d: d.update(scores=[5, 0]), "Player 0's score does not match"),
    (DRAW, lambda d: d.update(hand_no=3), "history should hold 2 hands, not 0"),
    (DRAW, lambda d: d.update(stock_only=False, passes=3), "passed twice at most"),
    (UPCARD, lambda d: d.update(turn=1), "offered to the non-dealer first"),
    (DISCARD, lambda d: d.update(drawn=None, drawn_from=None), "must have drawn this turn"),
    (DISCARD, lambda d: d.update(drawn="S13"), "must be in the drawer's hand"),
    (DRAW, lambda d: d.update(drawn="S13", drawn_from="stock"), "only have been drawn"),
    (DRAW, lambda d: d.update(picked=[["S13"], []]), "must still be in the hand"),
    (LAYOFF, lambda d: d.update(turn=0), "the defender lays off"),
    (LAYOFF, lambda d: d["knock"].update(points=2), "deadwood counts 3, not 2"),
    (LAYOFF, lambda d: d["knock"]["melds"][0].pop(), "must be valid and share no card"),
    (LAYOFF, lambda d: d["knock"].update(kind="gin"), "the defender lays off"),
    (
        LAYOFF,
        lambda d: d["knock"].update(layoffs=[{"card": "S3", "meld": 0}]),
        "Cards appear more than once: the 3 of spades",
    ),
    (LAYOFF, _lay_off_c9, "The 9 of clubs can't be laid off onto meld 0"),
    (
        LAYOFF,
        lambda d: d["stock"].insert(0, d["hands"][1].pop()),
        "hands should hold 10 and 10 cards, not 10 and 9",
    ),
    (DRAW, _knock_in_draw_phase, "A knock belongs to the lay-off phase"),
    (HAND_OVER, lambda d: d.update(knock=None), "Cards are missing: the king of clubs"),
    (HAND_OVER, lambda d: d.update(phase=GAME_OVER), "reaches the target"),
    (HAND_OVER, lambda d: d["history"][0].update(points=40), "points do not follow from"),
    (HAND_OVER, lambda d: d["history"][0]["seats"][1].update(points=30), "points do not follow"),
    (
        HAND_OVER,
        lambda d: (
            d["options"].update(gin_bonus=20)
            or d["history"][0].update(kind="gin", bonus=25, points=46)
        ),
        "Hand 1's points do not follow from its deadwood",
    ),
    (
        HAND_OVER,
        lambda d: (
            d["knock"].update(layoffs=[])
            or d["history"][0].update(layoffs=[{"card": "S3", "meld": 2}])
        ),
        "does not match the knock on the table",
    ),
    (HAND_OVER, lambda d: d.update(game_result=d["history"][0]), "Not a Gin Rummy state"),
]
_LAYOFF_KNOCK = ENGINE.dump(_played()[LAYOFF])["knock"]


@pytest.mark.parametrize(("phase", "mutate", "message"), BAD_STATES)
def test_load_refuses_states_that_cannot_happen(phase: str, mutate: Mutation, message: str) -> None:
    data = copy.deepcopy(ENGINE.dump(_played()[phase]))
    mutate(data)
    with pytest.raises(InvalidState, match=message.replace("(", r"\(").replace(")", r"\)")):
        ENGINE.load(data)


def test_load_refuses_a_reached_target_that_did_not_end_the_game() -> None:
    over = ok(
        _knocked("H3", DEFENDER_21, scores=(82, 40), hands_won=(3, 2)), 1, {"type": "finish_layoff"}
    )
    with pytest.raises(InvalidState):
        ENGINE.load(ENGINE.dump(over))  # made-up scores without the hands that earned them
    with pytest.raises(InvalidState, match="must be a mapping"):
        ENGINE.load(["not", "a", "state"])  # type: ignore[arg-type]
    real = _big_gin_hands(2)
    assert ENGINE.load(ENGINE.dump(real)) == real
    data = ENGINE.dump(real)
    data["game_result"]["totals"] = [435, 0]
    with pytest.raises(InvalidState, match="game result does not match"):
        ENGINE.load(data)


def test_rejections_name_cards_in_words() -> None:
    s = make((full_deck()[:10], full_deck()[13:23]), stock_top=["H13"], pile=["H7"])
    taken = ok(s, 0, {"type": "draw", "source": "discard"})
    r = rejected(taken, 0, {"type": "discard", "card": "H7"}, "discard_taken_card")
    assert r.message == "You can't discard the 7 of hearts: you just took it from the discard pile."
    r = rejected(taken, 0, {"type": "knock", "card": "S12"}, "not_in_hand")
    assert r.message == "You don't hold the queen of spades."


# --------------------------------------------------------------------------- load: fuzzing


# The damage is the registry-wide contract test's (tests/plugins/test_contract.py, which runs it
# on every game); here Gin's own hand-made states of every phase, and Gin's stricter counts and
# messages.


def test_load_either_refuses_a_damaged_state_or_gives_a_working_one() -> None:
    """Random damage to real states of every phase: ``load`` raises InvalidState with a
    sentence, or every method works."""
    rng = random.Random(5)
    states: list[GinState] = list(_played().values())
    s = ENGINE.new_game(2, {}, 8)
    while len(states) < 80:
        if s.phase == GAME_OVER:
            s = ENGINE.new_game(2, {}, rng.randrange(1000))
        player = ENGINE.to_act(s)[0]
        s = ok(s, player, rng.choice(ENGINE.legal_actions(s, player)))
        states.append(s)
    loaded = refused = 0
    for _ in range(1500):
        data = _mutated(ENGINE.dump(rng.choice(states)), rng)
        try:
            state = ENGINE.load(data)
        except InvalidState as err:
            assert str(err) and str(err)[0].isupper()
            refused += 1
            continue
        loaded += 1  # harmless damage (e.g. a different seed): the state must fully work
        assert ENGINE.load(ENGINE.dump(state)) == state
        for p in (0, 1, None):
            ENGINE.view(state, p)
        ENGINE.status(state, NAMES)
        ENGINE.scoreboard(state, NAMES)
        ENGINE.reveal(state)
        ENGINE.outcome(state)
        for p in ENGINE.to_act(state):
            for action in ENGINE.legal_actions(state, p):
                assert not isinstance(ENGINE.apply(state, p, action), Rejection)
                ENGINE.describe(state, p, action, NAMES)
    assert refused > 1000 and loaded > 50
