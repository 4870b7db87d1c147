"""``cardtable simulate`` measuring the computers' levels against each other: level names in a
lineup, seats rotating over shared deals, each level's win rate with its Wilson interval."""

from __future__ import annotations

from typing import Any

import pytest

from plugins.gin_rummy import ENGINE as GIN
from plugins.gin_rummy import choose_action as gin_normal
from plugins.simulate import (
    level_bots,
    level_lineup,
    main,
    period,
    random_legal,
    rotated,
    simulate,
    wilson,
)
from plugins.spades import ENGINE as SPADES
from plugins.spades import GAME as SPADES_GAME
from plugins.spades import choose_action as spades_normal
from tests.plugins.test_simulate import RACE, FirstGrab, grabber


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0 and 0.69 < wilson(10, 10)[0] < 0.73
    assert wilson(0, 10)[0] == 0.0


def test_lineups_rotate_one_seat_until_they_repeat() -> None:
    assert rotated(["hard", "normal", "hard", "normal"], 1) == ("normal", "hard", "normal", "hard")
    assert period(["hard", "normal", "hard", "normal"]) == 2
    assert period(["easy", "normal", "hard"]) == 3 and period(["hard", "hard"]) == 1
    state = SPADES.new_game(4, {}, 1)
    assert level_lineup(SPADES, state, ["hard", "normal"]) == ("hard", "normal", "hard", "normal")
    assert level_lineup(GIN, GIN.new_game(2, {}, 1), ["easy", "hard"]) == ("easy", "hard")


def test_levels_come_from_the_registered_game_or_are_given() -> None:
    bots = level_bots(SPADES)
    assert set(bots) == {"easy", "normal", "hard"}
    assert bots["normal"] is spades_normal and bots["hard"] is SPADES_GAME.bot_at("hard")
    assert level_bots(SPADES, {"easy": random_legal})["easy"] is random_legal
    assert level_bots(RACE) == {}  # not registered: no level is known
    with pytest.raises(ValueError, match="No bot plays level hard"):
        simulate(RACE, grabber, 1, 1, lineup=["hard", "bot"])
    with pytest.raises(ValueError, match="Unknown lineup roles"):
        simulate(RACE, grabber, 1, 1, lineup=["expert", "bot"])


def test_rotation_swaps_the_seats_so_the_first_seat_advantage_cancels() -> None:
    levels = {"hard": grabber, "normal": grabber}
    fixed = simulate(RACE, grabber, 4, 1, lineup=["hard", "normal"], levels=levels)
    assert fixed.role_wins == {"hard": 4, "normal": 0}  # player 0 grabs first, always
    turning = simulate(RACE, grabber, 4, 1, lineup=["hard", "normal"], levels=levels, rotate=True)
    assert turning.role_wins == {"hard": 2, "normal": 2}
    assert (turning.bot_wins, turning.other_wins, turning.mixed_wins) == (0, 0, 0)
    assert turning.rate("hard") == 0.5 and turning.interval("hard") == wilson(2, 4)
    assert turning.decisions == {"hard": 8, "normal": 8} and turning.think["hard"] > 0
    first: Any = FirstGrab()  # the first to grab wins for their partnership
    sides = simulate(
        first,
        grabber,
        4,
        1,
        lineup=["easy", "hard", "easy", "hard"],
        rotate=True,
        levels={"easy": grabber, "hard": grabber},
    )
    assert sides.role_wins == {"easy": 2, "hard": 2}


def test_the_same_bot_at_two_levels_splits_evenly_on_the_same_deals() -> None:
    """Seats rotate over shared seeds: the same deterministic bot wins exactly half."""
    report = simulate(
        GIN, gin_normal, 6, 2, lineup=["easy", "normal"], levels={"easy": gin_normal}, rotate=True
    )
    assert report.finished == 6 and report.role_wins == {"easy": 3, "normal": 3}


def test_a_random_legal_level_loses_to_normal_spades() -> None:
    report = simulate(
        SPADES,
        spades_normal,
        8,
        3,
        lineup=["easy", "normal", "easy", "normal"],
        levels={"easy": random_legal},
        rotate=True,
    )
    assert report.finished == 8 and not report.failures
    assert report.role_wins["normal"] == 8 and report.interval("normal")[0] > 0.5
    assert report.average_scores["normal"] > report.average_scores["easy"]


def test_a_random_legal_level_loses_to_normal_gin() -> None:
    report = simulate(
        GIN,
        gin_normal,
        8,
        3,
        lineup=["easy", "normal"],
        levels={"easy": random_legal},
        rotate=True,
    )
    assert report.finished == 8 and report.role_wins["normal"] == 8


def test_command_prints_each_levels_win_rate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gin_rummy", "--levels", "hard,normal", "--games", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for words in ("Gin Rummy", "hard vs normal", "95 % interval", "Win rate", "ms/decision"):
        assert words in out, words
    assert main(["spades", "--levels", "easy, hard", "--games", "2", "--no-progress"]) == 0
    assert "easy vs hard" in capsys.readouterr().out


@pytest.mark.parametrize("levels", ["hard", "hard,expert", "hard,hard"])
def test_command_refuses_bad_levels(levels: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spades", "--levels", levels, "--no-progress"]) == 2
    assert "--levels takes two or more" in capsys.readouterr().out


def test_runs_with_levels_are_reproducible() -> None:
    a = simulate(GIN, gin_normal, 2, 5, lineup=["hard", "normal"], rotate=True)
    b = simulate(GIN, gin_normal, 2, 5, lineup=["hard", "normal"], rotate=True)
    assert (a.actions, a.role_wins) == (b.actions, b.role_wins)
