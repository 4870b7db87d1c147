"""The generic simulator: how it drives any contract-v2 engine (several players able to act, a
bot passing its chance, scheduled actions, ties, stuck or endless games, rejected actions),
what it reports for Spades, the registry and the ``cardtable simulate`` command."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from plugins.base import GameInfo, Outcome, Rejection, Scheduled
from plugins.game import Game
from plugins.registry import GAMES, GameNotAvailable, load_games, registered
from plugins.simulate import (
    available_games,
    default_lineup,
    drive,
    load_game,
    main,
    one_at_random,
    random_legal,
    simulate,
)
from plugins.spades import ENGINE, choose_action

# ----------------------------------------------------------------- a tiny engine: grab race


@dataclass(frozen=True)
class Race:
    points: tuple[int, int] = (0, 0)
    open: bool = True


class GrabRace:
    """Two players may both grab while the table is open; each grab closes it until the
    scheduled ``reopen``. Four grabs end the game; the most grabs win (2-2 is a shared win)."""

    info = GameInfo(name="race", title="Race", min_players=2, max_players=2)

    def new_game(
        self, players: int, options: dict[str, Any], seed: int, deck: Sequence[str] | None = None
    ) -> Race:
        return Race()

    def teams(self, state: Race) -> list[list[int]]:
        return [[0], [1]]

    def to_act(self, state: Race) -> list[int]:
        return [0, 1] if state.open and sum(state.points) < 4 else []

    def legal_actions(self, state: Race, player: int) -> list[dict[str, Any]]:
        return [{"type": "grab"}] if player in self.to_act(state) else []

    def apply(self, state: Race, player: int | None, action: dict[str, Any]) -> Race | Rejection:
        if action.get("type") == "reopen" and player is None and not state.open:
            return replace(state, open=True)
        if action.get("type") != "grab" or player not in self.to_act(state):
            return Rejection("bad", "No.")
        assert player is not None
        points = list(state.points)
        points[player] += 1
        return Race((points[0], points[1]), open=False)

    def scheduled(self, state: Race) -> Scheduled | None:
        if not state.open and sum(state.points) < 4:
            return Scheduled(2.0, {"type": "reopen"})
        return None

    def outcome(self, state: Race) -> Outcome | None:
        if sum(state.points) < 4:
            return None
        best = max(state.points)
        return Outcome(tuple(p for p in (0, 1) if state.points[p] == best), state.points)


RACE: Any = GrabRace()


def grabber(engine: Any, state: Race, player: int, rng: random.Random) -> dict[str, Any] | None:
    return {"type": "grab"}


def passer(engine: Any, state: Race, player: int, rng: random.Random) -> dict[str, Any] | None:
    return None


def two_then_pass(
    engine: Any, state: Race, player: int, rng: random.Random
) -> dict[str, Any] | None:
    return {"type": "grab"} if state.points[player] < 2 else None


def cheater(engine: Any, state: Race, player: int, rng: random.Random) -> dict[str, Any] | None:
    return {"type": "steal"}


def test_players_are_asked_in_turn_order_and_scheduled_actions_run_at_once() -> None:
    report = simulate(RACE, grabber, 5, 1)
    assert report.lineup == ("bot", "random")
    assert report.teams == ((0,), (1,))
    assert (report.finished, report.bot_wins, report.other_wins, report.ties) == (5, 5, 0, 0)
    assert report.side_wins == [5, 0]
    assert report.actions == 5 * 7  # 4 grabs and 3 scheduled reopens per game
    assert report.average_scores == {"bot": 4.0, "random": 0.0}
    assert report.win_rate == 1.0 and report.actions_per_game == 7.0


def test_a_bot_returning_none_passes_its_chance() -> None:
    report = simulate(RACE, passer, 3, 1)
    assert (report.bot_wins, report.other_wins, report.side_wins) == (0, 3, [0, 3])
    assert report.average_scores == {"bot": 0.0, "random": 4.0}
    swapped = simulate(RACE, grabber, 3, 1, lineup=["random", "bot"])
    assert swapped.other_wins == 3  # the random player sits first in turn order


def test_shared_wins_count_as_ties() -> None:
    report = simulate(RACE, two_then_pass, 4, 1)
    assert (report.ties, report.bot_wins, report.other_wins) == (4, 0, 0)
    assert report.side_wins == [0, 0]


def test_a_shared_win_is_a_tie_even_when_every_seat_is_a_bot() -> None:
    report = simulate(RACE, two_then_pass, 4, 1, lineup=["bot", "bot"])
    assert report.finished == 4
    assert (report.ties, report.bot_wins, report.other_wins) == (4, 0, 0)
    assert report.side_wins == [0, 0]
    outright = simulate(RACE, grabber, 3, 1, lineup=["bot", "bot"])  # player 0 grabs first
    assert (outright.ties, outright.bot_wins, outright.side_wins) == (0, 3, [3, 0])


class FirstGrab:
    """Four players in two sides (0 & 2, 1 & 3); the first to grab wins for their side."""

    info = GameInfo(name="first", title="First", min_players=4, max_players=4)

    def new_game(
        self, players: int, options: dict[str, Any], seed: int, deck: Sequence[str] | None = None
    ) -> list[int]:
        return []

    def teams(self, state: list[int]) -> list[list[int]]:
        return [[0, 2], [1, 3]]

    def to_act(self, state: list[int]) -> list[int]:
        return [] if state else [0, 1, 2, 3]

    def legal_actions(self, state: list[int], player: int) -> list[dict[str, Any]]:
        return [{"type": "grab"}] if not state else []

    def apply(
        self, state: list[int], player: int | None, action: dict[str, Any]
    ) -> list[int] | Rejection:
        return [player] if player is not None and not state else Rejection("bad", "No.")

    def scheduled(self, state: list[int]) -> Scheduled | None:
        return None

    def outcome(self, state: list[int]) -> Outcome | None:
        if not state:
            return None
        side = state[0] % 2
        return Outcome((side, side + 2), tuple(int(p % 2 == side) for p in range(4)))


def test_a_side_of_mixed_seats_winning_is_neither_a_bot_nor_a_random_win() -> None:
    first: Any = FirstGrab()
    mixed = simulate(first, grabber, 2, 1, lineup=["bot", "random", "random", "bot"])
    assert (mixed.finished, mixed.ties, mixed.mixed_wins) == (2, 0, 2)
    assert mixed.bot_wins == mixed.other_wins == 0 and mixed.side_wins == [2, 0]
    partners = simulate(first, grabber, 2, 1, lineup=["bot", "random", "bot", "random"])
    assert (partners.bot_wins, partners.mixed_wins, partners.ties) == (2, 0, 0)


def test_failures_are_reported_not_raised() -> None:
    stuck = simulate(RACE, passer, 2, 1, lineup=["bot", "bot"])
    assert stuck.finished == 0 and len(stuck.failures) == 2
    assert "none of players [0, 1] acted" in stuck.failures[0].reason
    bad = simulate(RACE, cheater, 1, 1)
    assert "rejected" in bad.failures[0].reason and "steal" in bad.failures[0].reason
    capped = simulate(RACE, grabber, 2, 1, max_steps=3)
    assert capped.finished == 0 and capped.failures[0].reason == "no result after 3 actions"
    assert capped.win_rate == 0.0
    assert [f.game for f in capped.failures] == [0, 1]


def test_drive_shows_every_transition_and_stops_when_asked() -> None:
    seen: list[tuple[int | None, str]] = []
    played = drive(
        RACE,
        Race(),
        [grabber, grabber],
        [random.Random(0)] * 2,
        observe=lambda before, p, action, after: seen.append((p, action["type"])),
    )
    assert played.ok and played.steps == 7 and RACE.outcome(played.state) is not None
    assert seen == [(0, "grab"), (None, "reopen")] * 3 + [(0, "grab")]  # turn order: 0 first
    early = drive(
        RACE, Race(), [grabber, grabber], [random.Random(0)] * 2, stop=lambda s: sum(s.points) == 2
    )
    assert early.ok and early.steps == 3 and early.state.points == (2, 0)
    stuck = drive(RACE, Race(), [passer, passer], [random.Random(0)] * 2)
    assert not stuck.ok and stuck.steps == 0 and "none of players [0, 1]" in (stuck.failure or "")


def test_one_at_random_asks_one_of_several_players_drawn_from_the_rng() -> None:
    asked: list[int] = []

    def record(engine: Any, state: Race, player: int, rng: random.Random) -> dict[str, Any]:
        asked.append(player)
        return {"type": "grab"}

    rng = random.Random(5)
    played = drive(RACE, Race(), [record, record], [rng, rng], pick=one_at_random(rng))
    assert played.ok and len(asked) == 4
    mirror = random.Random(5)
    assert asked == [mirror.choice([0, 1]) for _ in range(4)]
    assert list(one_at_random(rng)([3])) == [3]  # a lone player: nothing drawn
    legal = random_legal(RACE, Race(), 1, random.Random(0))
    assert legal == {"type": "grab"} and random_legal(RACE, Race((1, 0), False), 1, rng) is None


def test_lineup_is_checked() -> None:
    with pytest.raises(ValueError, match="2 seats for 4 players"):
        simulate(ENGINE, choose_action, 1, 1, lineup=["bot", "random"], players=4)
    with pytest.raises(ValueError, match="Unknown lineup roles"):
        simulate(RACE, grabber, 1, 1, lineup=["bot", "human"])


# --------------------------------------------------------------------------------- Spades


def test_spades_bot_side_against_random_players() -> None:
    report = simulate(ENGINE, choose_action, 6, 3)
    assert report.lineup == ("bot", "random", "bot", "random")
    assert report.teams == ((0, 2), (1, 3))
    assert not report.failures and report.finished == 6
    assert report.bot_wins == 6 and report.side_wins == [6, 0]
    assert report.average_scores["bot"] >= 500 > report.average_scores["random"]
    assert report.actions_per_game > 13 * 5  # several whole deals per game
    assert report.games_per_second > 0


def test_spades_runs_are_reproducible() -> None:
    a = simulate(ENGINE, choose_action, 3, 9, lineup=["bot"] * 4)
    b = simulate(ENGINE, choose_action, 3, 9, lineup=["bot"] * 4)
    c = simulate(ENGINE, choose_action, 3, 10, lineup=["bot"] * 4)
    assert (a.actions, a.side_wins, a.score_sums) == (b.actions, b.side_wins, b.score_sums)
    assert a.actions != c.actions
    assert sum(a.side_wins) + a.ties == a.finished == 3
    assert a.bot_wins == 3  # every winner sits in a bot seat
    assert set(a.score_sums) == {"bot"}


def test_progress_bar_does_not_change_results() -> None:
    quiet = simulate(ENGINE, choose_action, 2, 4)
    shown = simulate(ENGINE, choose_action, 2, 4, progress=True)
    assert (quiet.actions, quiet.bot_wins) == (shown.actions, shown.bot_wins)


def test_default_lineup_puts_the_bot_in_player_0_and_partners() -> None:
    state = ENGINE.new_game(4, {}, 1)
    assert default_lineup(ENGINE, state) == ("bot", "random", "bot", "random")
    assert default_lineup(RACE, Race()) == ("bot", "random")


# ------------------------------------------------------------------- registry and command


def test_registry_loads_spades_and_skips_missing_games() -> None:
    game = load_game("spades")
    assert game.engine is ENGINE and game.bot is choose_action and game is GAMES["spades"]
    assert game.binding.engine is ENGINE and game.info is ENGINE.info
    assert available_games() == ["gin_rummy", "spades", "rummy", "pennies"]
    assert list(load_games(["plugins.no_such_game", "plugins.spades"])) == ["spades"]
    with pytest.raises(GameNotAvailable, match="does not export GAME"):
        load_games(["plugins.cards"])
    with pytest.raises(ValueError, match="Two modules"):
        load_games(["plugins.spades", "plugins.spades"])
    with pytest.raises(GameNotAvailable, match="No game called 'chess'; known: gin_rummy"):
        load_game("chess")


def test_a_game_is_registered_once_for_the_server_and_the_simulator() -> None:
    """One registration: the same entry serves ``simulate`` and the server's ``GAMES``."""
    spades = GAMES["spades"]
    race = Game(engine=RACE, binding=_RaceBinding(), bot=grabber)
    with registered(race):
        assert load_game("race") is race and GAMES["race"] is race
        assert race.move(Race(), 0, random.Random(0)) == {"type": "grab"}
        with pytest.raises(ValueError, match="already registered"):
            registered(race).__enter__()
    assert "race" not in GAMES and GAMES["spades"] is spades
    with pytest.raises(ValueError, match="another engine"):
        Game(engine=RACE, binding=spades.binding, bot=grabber)


class _RaceBinding:
    """Just enough of a binding for the registry (the grab race has no table layout)."""

    info = RACE.info
    engine = RACE
    widgets = ()


def test_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spades", "--games", "2", "--seed", "5", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for words in (
        "Spades",
        "Bot side win rate",
        "Bot vs bot",
        "Wins by side",
        "Average final score (bot)",
        "Games per second",
        "P0 & P2",
    ):
        assert words in out, words


def test_command_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spades", "--players", "3", "--no-progress"]) == 2
    assert "4 to 4 players" in capsys.readouterr().out
    assert main(["spades", "--games", "0"]) == 2
    with pytest.raises(SystemExit):
        main(["chess"])
