"""Plays whole games of any registered engine: the one self-play driver, and the bot measure.

:func:`drive` plays one game of any contract-version-2 engine (:class:`plugins.base.Engine`)
from a given state with one bot per player (the bot signature of :mod:`plugins.game`:
``bot(engine, state, player, rng) -> action | None``), and returns what happened as a
:class:`Played`: the last state, the actions made and, when it went wrong, why. How a game is
driven: when ``to_act`` is empty the engine's ``scheduled()`` action is applied at once (no
waiting); otherwise the players in ``to_act`` are asked (in turn order, or as ``pick`` says:
:func:`one_at_random` asks one of several, like a room where anybody may deal on) and the first
that acts is applied; ``None`` passes its chance. ``observe(before, player, action, after)`` sees
every transition (the self-play tests check their invariants there) and ``stop(state)`` ends the
game early (after so many hands). A cap on actions, a stuck game (nobody may act and nothing is
scheduled, or nobody asked acted) and a rejected action end it too, as a failure with the
reason. :func:`random_legal` is the random-legal player as a bot. The self-play tests of every
game (``tests/plugins/test_*_selfplay.py``) and the contract test play through :func:`drive`.

``simulate(engine, bot, games, seed)`` plays ``games`` complete games through :func:`drive` and
returns a :class:`SimReport`: how often the side holding the ``"bot"`` seats won, the ties, the
average final score of each lineup role, games per second and actions per game. A win shared by
players of different sides is a tie, whoever sits in those seats. Games that fail are counted as
failures, with the reason. Every game and every seat has its own ``random.Random`` derived from
``seed``, so a run is reproducible.

Levels against each other: a lineup entry may also be a level name (:data:`plugins.game.LEVELS`),
played by ``levels[name]`` or else the registered game's :meth:`Game.bot_at`. With
``rotate=True`` the lineup turns one seat each game until it repeats (two levels in Spades: the
partnerships swap; in a two-player game: the seats), and the games of one turn share a seed, so
each level plays the same deals from each seat (duplicate play: the luck of the deal cancels).
``SimReport.role_wins`` counts the games each role won alone, :func:`wilson` gives the 95 %
interval of a win rate, and ``think`` / ``decisions`` the time each role spent choosing.

``main(argv)`` is the ``cardtable simulate GAME --games N [--seed S] [--players N]
[--levels A,B]`` command: it finds the game in :data:`plugins.registry.GAMES` and prints a rich
table: bot side against random-legal players, bot against bot (the win split by side), average
scores, games per second; with ``--levels`` instead each level's win rate (95 % Wilson interval)
against the others, one side each, seats rotating.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from plugins.base import Engine, Rejection
from plugins.game import LEVELS, Bot, Game
from plugins.registry import GAMES, GameNotAvailable, get

BOT = "bot"
RANDOM = "random"
ROLES = (BOT, RANDOM)
ALL_ROLES = (BOT, RANDOM, *LEVELS)
DEFAULT_MAX_STEPS = 20_000

Picker = Callable[[list[int]], Sequence[int]]
Observer = Callable[[Any, "int | None", "dict[str, Any]", Any], None]

__all__ = ["Bot", "GameNotAvailable", "drive", "random_legal", "simulate"]


def random_legal(
    engine: Engine[Any], state: Any, player: int, rng: random.Random
) -> dict[str, Any] | None:
    """The random-legal player: any of ``player``'s legal actions, uniformly (``None``: none)."""
    legal = engine.legal_actions(state, player)
    return rng.choice(legal) if legal else None


def in_turn_order(to_act: list[int]) -> Sequence[int]:
    """Ask every player who may act, in turn order (the default)."""
    return to_act


def one_at_random(rng: random.Random) -> Picker:
    """Ask one of several players who may act, drawn from ``rng`` (a lone player is asked
    without drawing)."""

    def pick(to_act: list[int]) -> Sequence[int]:
        return [rng.choice(to_act)] if len(to_act) > 1 else to_act

    return pick


@dataclass
class Played:
    """How :func:`drive` left a game: its last ``state``, the ``steps`` (actions applied, a
    rejected one included) and ``failure`` (``None`` when it ended by its outcome or ``stop``)."""

    state: Any
    steps: int = 0
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def drive(
    engine: Engine[Any],
    state: Any,
    bots: Sequence[Bot],
    rngs: Sequence[random.Random],
    *,
    pick: Picker = in_turn_order,
    observe: Observer | None = None,
    stop: Callable[[Any], bool] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Played:
    """Play from ``state`` until the game has an outcome, ``stop(state)`` says so, or it fails
    (see the module docstring). ``bots[p]`` plays player ``p`` with ``rngs[p]`` (pass the same
    generator for every player to share one)."""
    steps = 0
    while engine.outcome(state) is None:
        if stop is not None and stop(state):
            break
        if steps >= max_steps:
            return Played(state, steps, f"no result after {max_steps} actions")
        to_act = engine.to_act(state)
        player: int | None = None
        action: dict[str, Any] | None = None
        if not to_act:
            planned = engine.scheduled(state)
            if planned is None:
                return Played(state, steps, "stuck: nobody may act and nothing is scheduled")
            player, action = planned.player, planned.action
        else:
            for p in pick(to_act):
                action = bots[p](engine, state, p, rngs[p])
                if action is not None:
                    player = p
                    break
            if action is None:
                return Played(state, steps, f"stuck: none of players {to_act} acted")
        after = engine.apply(state, player, action)
        steps += 1
        if isinstance(after, Rejection):
            return Played(
                state,
                steps,
                f"player {player} {action} was rejected: {after.code}: {after.message}",
            )
        if observe is not None:
            observe(state, player, action, after)
        state = after
    return Played(state, steps)


@dataclass(frozen=True)
class Failure:
    """A game that did not finish properly."""

    game: int
    seed: int
    reason: str


@dataclass
class SimReport:
    """What :func:`simulate` measured. ``side_wins[i]`` counts games won by ``teams[i]`` (the
    sides of the first game) alone. ``ties`` counts games with no winner or a win shared by
    players of different sides - also when every seat is a bot. The other finished games were
    won by one side: ``bot_wins`` / ``other_wins`` when its winners all sit in ``"bot"`` /
    ``"random"`` seats, ``mixed_wins`` when they sit in seats of several roles (only with a
    hand-made lineup). ``role_wins[role]`` counts the games won by ``role``'s seats alone (the
    bot, the random players or a level); ``think[role]`` / ``decisions[role]`` are the seconds
    its bot spent choosing and how often it was asked."""

    games: int
    lineup: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...] = ()
    finished: int = 0
    bot_wins: int = 0
    other_wins: int = 0
    ties: int = 0
    mixed_wins: int = 0
    side_wins: list[int] = field(default_factory=list)
    score_sums: dict[str, float] = field(default_factory=dict)
    role_wins: dict[str, int] = field(default_factory=dict)
    think: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    actions: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)

    def rate(self, role: str) -> float:
        """Share of finished games won by ``role``'s seats alone (0 when nothing finished)."""
        return self.role_wins.get(role, 0) / self.finished if self.finished else 0.0

    def interval(self, role: str) -> tuple[float, float]:
        """The 95 % Wilson interval of :meth:`rate`."""
        return wilson(self.role_wins.get(role, 0), self.finished)

    def mean_think(self, role: str) -> float:
        """Mean seconds ``role``'s bot took per decision (0 when it was never asked)."""
        asked = self.decisions.get(role, 0)
        return self.think.get(role, 0.0) / asked if asked else 0.0

    @property
    def win_rate(self) -> float:
        """Share of finished games won by the bot side (0 when nothing finished)."""
        return self.bot_wins / self.finished if self.finished else 0.0

    @property
    def average_scores(self) -> dict[str, float]:
        """Average final score per lineup role, over finished games."""
        if not self.finished:
            return {role: 0.0 for role in self.score_sums}
        return {role: total / self.finished for role, total in self.score_sums.items()}

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def actions_per_game(self) -> float:
        return self.actions / self.games if self.games else 0.0


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``wins`` out of ``n`` (95 % for the default ``z``)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def level_bots(engine: Engine[Any], levels: Mapping[str, Bot] | None = None) -> dict[str, Bot]:
    """The bot of each level: ``levels`` first, else the registered game of ``engine``'s
    (:meth:`Game.bot_at`); a level neither knows is missing."""
    out: dict[str, Bot] = {}
    game = GAMES.get(engine.info.name)
    if game is not None and game.engine is engine:
        out = {level: game.bot_at(level) for level in LEVELS}
    out.update(levels or {})
    return out


def rotated(lineup: Sequence[str], turn: int) -> tuple[str, ...]:
    """``lineup`` turned ``turn`` seats on: seat ``p`` plays the role of seat ``p - turn``."""
    n = len(lineup)
    return tuple(lineup[(p - turn) % n] for p in range(n))


def period(lineup: Sequence[str]) -> int:
    """How many one-seat turns bring ``lineup`` back to itself."""
    return next(k for k in range(1, len(lineup) + 1) if rotated(lineup, k) == tuple(lineup))


def level_lineup(engine: Engine[Any], state: Any, levels: Sequence[str]) -> tuple[str, ...]:
    """One side per level, in turn: side ``i`` (of ``engine.teams``) plays ``levels[i % n]``."""
    teams = engine.teams(state)
    roles: dict[int, str] = {}
    for i, team in enumerate(teams):
        for p in team:
            roles[p] = levels[i % len(levels)]
    return tuple(roles[p] for p in range(len(roles)))


def available_games() -> list[str]:
    """The registered games, in the registry's order."""
    return list(GAMES)


def load_game(name: str) -> Game:
    """The registered game called ``name`` (:class:`GameNotAvailable` if there is none)."""
    return get(name)


def default_lineup(engine: Engine[Any], state: Any) -> tuple[str, ...]:
    """``"bot"`` for player 0 and its partners, ``"random"`` for everyone else."""
    teams = engine.teams(state)
    side = next((t for t in teams if 0 in t), [0])
    players = sum(len(t) for t in teams)
    return tuple(BOT if p in side else RANDOM for p in range(players))


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each game of a run (distinct runs share no games by accident)."""
    rng = random.Random(f"simulate:{seed}")
    return [rng.getrandbits(48) for _ in range(games)]


def simulate(
    engine: Engine[Any],
    bot: Bot,
    games: int,
    seed: int,
    *,
    lineup: Sequence[str] | None = None,
    progress: bool = False,
    players: int | None = None,
    options: dict[str, Any] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    levels: Mapping[str, Bot] | None = None,
    rotate: bool = False,
) -> SimReport:
    """Play ``games`` whole games and report how they went (see the module docstring).

    ``players`` defaults to ``len(lineup)`` or the game's minimum; ``lineup`` to
    :func:`default_lineup`; ``options`` to the game's defaults. ``max_steps`` caps the actions
    (scheduled ones included) of one game. A lineup entry may be a level, played by
    ``levels`` or the registered game's bots (:func:`level_bots`); ``rotate`` turns the lineup
    one seat a game, the games of one turn sharing a seed.
    """
    if players is None:
        players = len(lineup) if lineup is not None else engine.info.min_players
    if lineup is not None:
        lineup = tuple(lineup)
        if len(lineup) != players:
            raise ValueError(f"The lineup names {len(lineup)} seats for {players} players.")
        unknown = sorted(set(lineup) - set(ALL_ROLES))
        if unknown:
            raise ValueError(
                f"Unknown lineup roles {unknown}; use 'bot', 'random' or a level "
                f"({', '.join(LEVELS)})."
            )
    bots = {BOT: bot, RANDOM: random_legal, **level_bots(engine, levels)}
    missing = sorted(set(lineup or ()) - set(bots))
    if missing:
        raise ValueError(f"No bot plays level {', '.join(missing)} of {engine.info.name}.")
    opts = dict(options or {})
    turns = period(lineup) if rotate and lineup is not None else 1
    seeds = game_seeds(seed, -(-games // turns))
    report = SimReport(games=games, lineup=tuple(lineup or ()))
    started = time.perf_counter()
    with _progress_bar(progress, games) as advance:
        for index in range(games):
            turn = index % turns
            seats = rotated(lineup, turn) if lineup is not None else None
            game_seed = seeds[index // turns]
            _play_one(engine, bots, index, game_seed, players, opts, seats, max_steps, report)
            advance()
    report.seconds = time.perf_counter() - started
    return report


def _timed(bot: Bot, role: str, report: SimReport) -> Bot:
    """``bot``, adding the time each decision takes to ``report.think[role]``."""

    def timed(engine: Engine[Any], state: Any, player: int, rng: random.Random) -> Any:
        started = time.perf_counter()
        action = bot(engine, state, player, rng)
        report.think[role] = report.think.get(role, 0.0) + time.perf_counter() - started
        report.decisions[role] = report.decisions.get(role, 0) + 1
        return action

    return timed


def _play_one(
    engine: Engine[Any],
    bots: Mapping[str, Bot],
    index: int,
    game_seed: int,
    players: int,
    options: dict[str, Any],
    lineup: tuple[str, ...] | None,
    max_steps: int,
    report: SimReport,
) -> None:
    state = engine.new_game(players, options, game_seed)
    roles = lineup or default_lineup(engine, state)
    if not report.lineup:
        report.lineup = roles
    if not report.teams:
        report.teams = tuple(tuple(t) for t in engine.teams(state))
        report.side_wins = [0] * len(report.teams)
        report.score_sums = {role: 0.0 for role in dict.fromkeys(roles)}
        report.role_wins = {role: 0 for role in dict.fromkeys(roles)}
    rngs = [random.Random(f"simulate:{game_seed}:{p}") for p in range(players)]
    seated = [_timed(bots[role], role, report) for role in roles]
    played = drive(engine, state, seated, rngs, max_steps=max_steps)
    steps, failure = played.steps, played.failure
    outcome = engine.outcome(played.state)
    report.actions += steps
    if failure is not None or outcome is None:
        report.failures.append(Failure(index, game_seed, failure or "no outcome"))
        return
    report.finished += 1
    won = [i for i, team in enumerate(report.teams) if set(team) & set(outcome.winners)]
    winner_roles = {roles[p] for p in outcome.winners}
    if len(won) != 1:
        report.ties += 1
    elif winner_roles == {BOT}:
        report.bot_wins += 1
    elif winner_roles == {RANDOM}:
        report.other_wins += 1
    elif len(winner_roles) > 1:
        report.mixed_wins += 1
    if len(won) == 1:
        report.side_wins[won[0]] += 1
        if len(winner_roles) == 1:
            (alone,) = winner_roles
            report.role_wins[alone] = report.role_wins.get(alone, 0) + 1
    for role in report.score_sums:
        seats = [p for p in range(players) if roles[p] == role]
        report.score_sums[role] += sum(outcome.scores[p] for p in seats) / len(seats)


class _progress_bar:  # noqa: N801 - used like a function in a with statement
    """A rich progress bar when ``enabled``; ``__enter__`` returns the advance callback."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled = enabled
        self.total = total
        self._bar: Any = None

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.progress import Progress

        self._bar = Progress(transient=True)
        self._bar.start()
        task = self._bar.add_task("Playing", total=self.total)
        return lambda: self._bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


# ---------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardtable simulate",
        description="Play many games between computer players and report how the bot does.",
    )
    parser.add_argument("game", choices=sorted(GAMES), help="which game")
    parser.add_argument("--games", type=int, default=100, help="games per match-up (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument(
        "--players", type=int, default=None, help="number of players (default: the game's minimum)"
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        help=f"actions before a game counts as a failure ({DEFAULT_MAX_STEPS})",
    )
    parser.add_argument(
        "--levels",
        default=None,
        help="levels to play against each other, e.g. hard,normal: one side each, seats "
        f"rotating every game ({', '.join(LEVELS)})",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``cardtable simulate``: returns the exit status (1 when a game failed or is missing)."""
    from rich.console import Console
    from rich.table import Table

    args = build_parser().parse_args(argv)
    console = Console()
    if args.games < 1:
        console.print("[red]--games must be at least 1.[/red]")
        return 2
    game = load_game(args.game)
    engine, bot = game.engine, game.bot
    players = args.players or engine.info.min_players
    if not engine.info.min_players <= players <= engine.info.max_players:
        console.print(
            f"[red]{engine.info.title} takes {engine.info.min_players} to "
            f"{engine.info.max_players} players.[/red]"
        )
        return 2
    show = not args.no_progress
    common: dict[str, Any] = {"players": players, "progress": show, "max_steps": args.max_steps}
    if args.levels is not None:
        return _levels_main(console, game, args, common)
    mixed = simulate(engine, bot, args.games, args.seed, **common)
    bots = simulate(engine, bot, args.games, args.seed + 1, lineup=[BOT] * players, **common)

    table = Table(title=f"{engine.info.title}: {args.games} games per match-up, seed {args.seed}")
    table.add_column("Measure")
    table.add_column("Bot vs random-legal", justify="right")
    table.add_column("Bot vs bot", justify="right")
    sides = [" & ".join(f"P{p}" for p in team) for team in bots.teams]
    table.add_row("Lineup", " ".join(mixed.lineup), " ".join(bots.lineup))
    table.add_row(
        "Bot side win rate", f"{mixed.win_rate:.1%} ({mixed.bot_wins}/{mixed.finished})", "-"
    )
    table.add_row("Wins by side", _split(sides, mixed.side_wins), _split(sides, bots.side_wins))
    table.add_row("Ties", str(mixed.ties), str(bots.ties))
    for role in ROLES:
        if role in mixed.score_sums or role in bots.score_sums:
            table.add_row(
                f"Average final score ({role})",
                _avg(mixed.average_scores.get(role)),
                _avg(bots.average_scores.get(role)),
            )
    table.add_row(
        "Actions per game", f"{mixed.actions_per_game:.0f}", f"{bots.actions_per_game:.0f}"
    )
    table.add_row(
        "Games per second", f"{mixed.games_per_second:.1f}", f"{bots.games_per_second:.1f}"
    )
    table.add_row("Failures", str(len(mixed.failures)), str(len(bots.failures)))
    console.print(table)
    for fail in (mixed.failures + bots.failures)[:5]:
        console.print(f"[red]game {fail.game} (seed {fail.seed}): {fail.reason}[/red]")
    return 1 if mixed.failures or bots.failures else 0


def _levels_main(console: Any, game: Game, args: argparse.Namespace, common: dict[str, Any]) -> int:
    """``--levels A,B``: the levels against each other, one side each, seats rotating."""
    from rich.table import Table

    levels = [one.strip() for one in args.levels.split(",") if one.strip()]
    wrong = [one for one in levels if one not in LEVELS]
    if wrong or len(set(levels)) != len(levels) or len(levels) < 2:
        console.print(f"[red]--levels takes two or more of {', '.join(LEVELS)}, once each.[/red]")
        return 2
    engine = game.engine
    lineup = level_lineup(engine, engine.new_game(common["players"], {}, args.seed), levels)
    report = simulate(engine, game.bot, args.games, args.seed, lineup=lineup, rotate=True, **common)
    title = (
        f"{engine.info.title}: {' vs '.join(levels)}, {args.games} games "
        f"(seats rotating, same deals), seed {args.seed}"
    )
    table = Table(title=title)
    for name in (
        "Level",
        "Wins",
        "Win rate",
        "95 % interval",
        "Average final score",
        "ms/decision",
    ):
        table.add_column(name, justify="left" if name == "Level" else "right")
    for level in levels:
        low, high = report.interval(level)
        table.add_row(
            level,
            f"{report.role_wins.get(level, 0)}/{report.finished}",
            f"{report.rate(level):.1%}",
            f"{low:.1%} - {high:.1%}",
            _avg(report.average_scores.get(level)),
            f"{1000 * report.mean_think(level):.2f}",
        )
    console.print(table)
    console.print(
        f"Ties {report.ties}, failures {len(report.failures)}, "
        f"{report.actions_per_game:.0f} actions per game, "
        f"{report.games_per_second:.1f} games per second."
    )
    for fail in report.failures[:5]:
        console.print(f"[red]game {fail.game} (seed {fail.seed}): {fail.reason}[/red]")
    return 1 if report.failures else 0


def _split(names: Sequence[str], wins: Sequence[int]) -> str:
    return " / ".join(f"{n} {w}" for n, w in zip(names, wins, strict=True)) or "-"


def _avg(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


if __name__ == "__main__":
    sys.exit(main())
