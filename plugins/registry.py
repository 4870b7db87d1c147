"""The one registry of rule games, by name: the server, ``cardtable simulate`` and the tests all
read :data:`GAMES`.

A game is registered once: its package exports ``GAME`` (a :class:`plugins.game.Game`: engine,
binding and bot) and it is named in the ``cardtable.games`` entry-point group
(``[project.entry-points."cardtable.games"]`` in its distribution's pyproject.toml, e.g.
``chess = "cardtable_chess:GAME"``). The built-in four are in that group too, and also listed in
:data:`MODULES`, so a plain checkout with no installed metadata still has them; their order is
the order the home page lists the games in, third-party games follow by name. A module that is
not installed is skipped (a trimmed install still serves the other games); one that does not
export a ``GAME`` is an error.

Games defined elsewhere (a test's own engine) join with :func:`register`, or for the length of
a ``with`` block with :func:`registered`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import metadata
from types import ModuleType

from plugins.game import Game

GROUP = "cardtable.games"  # the entry-point group games register in
MODULES: tuple[str, ...] = (
    "plugins.gin_rummy",
    "plugins.spades",
    "plugins.rummy",
    "plugins.pennies",
)


class GameNotAvailable(LookupError):
    """No such game, or its module does not export a ``GAME``."""


def load_games(modules: Iterable[str]) -> dict[str, Game]:
    """The ``GAME`` of each module that is installed, by name, in the modules' order."""
    out: dict[str, Game] = {}
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_name.startswith(exc.name):
                continue  # not installed: the other games still play
            raise
        game = getattr(module, "GAME", None)
        if not isinstance(game, Game):
            raise GameNotAvailable(
                f"{module_name} does not export GAME = Game(engine, binding, bot)."
            )
        if game.name in out:
            raise ValueError(f"Two modules register a game called {game.name!r}.")
        out[game.name] = game
    return out


def load_entry_points(group: str = GROUP, known: Iterable[str] = MODULES) -> dict[str, Game]:
    """The games named in the installed distributions' ``group`` entry points (by entry-point
    name), leaving out those whose module is in ``known`` (the built-ins, loaded already)."""
    skip = set(known)
    out: dict[str, Game] = {}
    for ep in sorted(metadata.entry_points(group=group), key=lambda e: (e.name, e.value)):
        if ep.module in skip:
            continue
        try:
            got = ep.load()
        except ModuleNotFoundError as exc:
            if exc.name is not None and ep.module.startswith(exc.name):
                continue  # its distribution's module is gone: the other games still play
            raise
        game = getattr(got, "GAME", None) if isinstance(got, ModuleType) else got
        if not isinstance(game, Game):
            raise GameNotAvailable(
                f"The {group} entry point {ep.name} = {ep.value} is not a Game(engine, binding, "
                "bot)."
            )
        if game.name in out:
            raise ValueError(f"Two entry points register a game called {game.name!r}.")
        out[game.name] = game
    return out


def discover(group: str = GROUP) -> dict[str, Game]:
    """Every game: the built-ins in their order, then those of other distributions."""
    games = load_games(MODULES)
    for name, game in load_entry_points(group).items():
        if name in games:
            raise ValueError(f"An entry point registers a game called {name!r} again.")
        games[name] = game
    return games


GAMES: dict[str, Game] = discover()


def get(name: str) -> Game:
    """The registered game called ``name``; :class:`GameNotAvailable` says which exist."""
    game = GAMES.get(name)
    if game is None:
        raise GameNotAvailable(f"No game called {name!r}; known: {', '.join(GAMES)}.")
    return game


def register(game: Game) -> Game:
    """Add ``game`` to :data:`GAMES` (a name already taken is an error)."""
    if game.name in GAMES:
        raise ValueError(f"A game called {game.name!r} is already registered.")
    GAMES[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove a game added with :func:`register`."""
    GAMES.pop(name, None)


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """``game`` is in :data:`GAMES` for the length of the ``with`` block (tests)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.name)
