"""The Gin Rummy bot: its knock layout (fewest expected lay-offs among equally good layouts),
its win rate against random legal play, and how often its layout differs from the default.

Figures measured here (fixed seeds, so they are exact for this code):
* bot against random-legal players, 200 games in each seat: the bot wins every game;
* over the first 3,000 knocks (not Gin) of bot-against-bot play, the bot's layout differs from
  the engine's default in 51 knocks (1.7%). Against the defenders' real hands (which the bot
  never sees) those layouts blocked lay-offs in 23 knocks and opened one in 6; in total the
  defenders kept 100 more points of deadwood (1,294 against 1,194). With the real hands known,
  an equally good layout would have blocked lay-offs in 24 of the 3,000 knocks (0.8%).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from msgspec.structs import replace

from plugins.base import Rejection
from plugins.gin_rummy import ENGINE, GinState, choose_action
from plugins.gin_rummy.bot import expected_layoffs, knock_layout
from plugins.gin_rummy.rules import GAME_OVER, HAND_OVER
from plugins.melds import arrangements, best_arrangement, best_defence
from plugins.simulate import simulate
from tests.plugins.test_gin_rules import knock_state, ok

# Kept after discarding S13: the run H4-H7 with C4 D4 S4 (the engine's default; H3 and H8 lay
# off), or the run H5-H7 with all four fours (only H8 lays off) - both leave S1 D2 C3 = 6.
KEPT = ["H4", "H5", "H6", "H7", "C4", "D4", "S4", "S1", "D2", "C3"]
BLOCKING = [["C4", "D4", "H4", "S4"], ["H5", "H6", "H7"]]
DEFENDER = ["H3", "C13", "D13", "H13", "C9", "D9", "S10", "C11", "D12", "S2"]


def test_default_layout_is_the_run_of_four() -> None:
    assert best_arrangement(KEPT).melds == [["C4", "D4", "S4"], ["H4", "H5", "H6", "H7"]]
    assert [a.melds for a in arrangements(KEPT)][1] == BLOCKING


def test_bot_lays_out_the_melds_that_block_an_unseen_card() -> None:
    s = knock_state(KEPT, "S13", DEFENDER)
    action = choose_action(ENGINE, s, 0, random.Random(0))
    assert action == {"type": "knock", "card": "S13", "melds": BLOCKING}
    knocked = ok(s, 0, action)
    assert ENGINE.legal_actions(knocked, 1) == [{"type": "finish_layoff"}]  # H3 is stuck
    res = ok(knocked, 1, {"type": "finish_layoff"}).history[-1]
    default = ok(
        ok(s, 0, {"type": "knock", "card": "S13"}), 1, {"type": "lay_off", "card": "H3", "meld": 1}
    )
    assert res.points == ok(default, 1, {"type": "finish_layoff"}).history[-1].points + 3


def test_bot_keeps_the_default_when_the_card_is_already_seen() -> None:
    # H3 lies in the discard pile: neither layout gives the defender anything more.
    s = knock_state(KEPT, "S13", [c for c in DEFENDER if c != "H3"] + ["C1"], pile=["S3", "H3"])
    assert choose_action(ENGINE, s, 0, random.Random(0)) == {"type": "knock", "card": "S13"}


def test_expected_layoffs_weigh_known_cards_fully() -> None:
    melds = [["H5", "H6", "H7"], ["C9", "D9", "S9"]]  # spots: H4, H8, H9
    unseen = {"H4", "H8", "H9", "S13", "C1"}
    assert expected_layoffs(melds, unseen, set(), 0.5) == (1.5, 0.5 * (4 + 8 + 9))
    assert expected_layoffs(melds, unseen, {"H8"}, 0.5) == (2.0, 0.5 * (4 + 9) + 8)
    assert expected_layoffs(melds, {"S13"}, set(), 1.0) == (0.0, 0.0)


def test_knock_layout_reads_what_the_defender_took() -> None:
    # Two layouts of the same cards: which one is better depends on the defender's pick-ups.
    view: dict[str, Any] = {
        "hand": [*KEPT, "S13"],
        "player": 0,
        "discard_pile": [],
        "known_cards": [[], []],
    }
    assert knock_layout(view, "S13") == BLOCKING
    view["discard_pile"] = ["H3"]
    assert knock_layout(view, "S13") is None
    single = ["H4", "H5", "H6", "C4", "D4", "S4", "S1", "D2", "C3", "C8", "S13"]
    assert len(arrangements(single[:-1])) == 1
    assert knock_layout({**view, "discard_pile": [], "hand": single}, "S13") is None
    gin = ["H1", "H2", "H3", "H4", "C4", "D4", "S4", "C12", "D12", "H12", "S13"]
    assert knock_layout({**view, "hand": gin}, "S13") is None  # Gin: nothing to lay off


def test_bot_beats_random_legal_players_in_both_seats() -> None:
    first = simulate(ENGINE, choose_action, 200, 11, lineup=("bot", "random"))
    second = simulate(ENGINE, choose_action, 200, 12, lineup=("random", "bot"))
    for report in (first, second):
        assert report.failures == [] and report.finished == 200
        assert report.win_rate >= 0.9, report.win_rate
    # Measured: 200 of 200 in each seat.
    assert first.bot_wins + second.bot_wins == 400


def test_bot_against_bot_finishes_games_without_rejections() -> None:
    report = simulate(ENGINE, choose_action, 30, 13, lineup=("bot", "bot"))
    assert report.failures == [] and report.finished == 30
    assert min(report.side_wins) >= 8  # neither seat is favoured much


def _knocks(seed: int, wanted: int) -> list[tuple[GinState, dict[str, Any]]]:
    """The first ``wanted`` knocks (not Gin) of bot-against-bot games: (state, action)."""
    rng = random.Random(seed)
    out: list[tuple[GinState, dict[str, Any]]] = []
    while len(out) < wanted:
        s = ENGINE.new_game(2, {}, rng.randrange(10**9))
        while s.phase != GAME_OVER and len(out) < wanted:
            if s.phase == HAND_OVER:
                s = ok(s, 0, {"type": "next_hand"})
                continue
            player = ENGINE.to_act(s)[0]
            action = choose_action(ENGINE, s, player, rng)
            assert action is not None
            after = ENGINE.apply(s, player, action)
            assert not isinstance(after, Rejection), (action, after)
            knock = after.knock
            if action["type"] == "knock" and knock is not None and knock.kind == "knock":
                out.append((s, action))
            s = after
    return out


@pytest.mark.slow
def test_bot_layout_choice_over_three_thousand_knocks() -> None:
    knocks = _knocks(21, 3000)
    changed = blocked = 0
    kept_default = kept_chosen = 0
    for state, action in knocks:
        knocker = state.turn
        assert knocker is not None
        kept = [c for c in state.hands[knocker] if c != action["card"]]
        default = best_arrangement(kept)
        if "melds" not in action:
            continue
        changed += 1
        chosen = action["melds"]
        assert chosen != default.melds
        assert chosen in [a.melds for a in arrangements(kept)]  # equally little deadwood
        # Against the defender's real hand (which the bot never saw):
        defender = state.hands[1 - knocker]
        left_default = best_defence(default.melds, defender)[1].points
        left_chosen = best_defence(chosen, defender)[1].points
        kept_default += left_default
        kept_chosen += left_chosen
        blocked += left_chosen > left_default
        # The engine accepts it and scores the same knocker deadwood.
        after = ok(state, knocker, action)
        assert after.knock is not None and after.knock.points == default.points
        plain = ok(state, knocker, {"type": "knock", "card": action["card"]})
        assert replace(after, knock=None) == replace(plain, knock=None)
    share = changed / len(knocks)
    # Measured with these seeds: 51 of 3000 knocks (1.7%); 23 of them blocked real lay-offs.
    assert 0.01 <= share <= 0.04, share
    assert kept_chosen >= kept_default and blocked >= changed // 3
