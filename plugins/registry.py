"""The one registry of rule games, by name: the server, ``cardtable simulate`` and the tests all
read :data:`GAMES`.

A game is registered once: its package exports ``GAME`` (a :class:`plugins.game.Game`: engine,
binding and bot) and its module is listed in :data:`MODULES`, whose order is the order the home
page lists the games in. A listed module that is not installed is skipped (a trimmed install
still serves the other games); a module that does not export a ``GAME`` is an error.

Games defined elsewhere (a test's own engine, an out-of-tree plugin) join with
:func:`register`, or for the length of a ``with`` block with :func:`registered`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from plugins.game import Game

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


GAMES: dict[str, Game] = load_games(MODULES)


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
