"""What a registered game is: an engine, a binding and a bot, with the one bot signature.

A plugin package declares its game once, in its ``__init__``::

    GAME = Game(engine=ENGINE, binding=BINDING, bot=choose_action)

and :mod:`plugins.registry` finds it there. The server, ``cardtable simulate`` and the tests all
read the same :class:`Game`; nothing else about a game is registered anywhere.

A bot is ``bot(engine, state, player, rng) -> action | None``: it reads only what
``engine.view(state, player)`` shows that player (and the engine's pure helpers), draws its
tie-breaks from ``rng`` and returns one of ``engine.legal_actions(state, player)``, or ``None``
to pass its chance (nothing to do now, or it leaves a window to the others).

A game may give its computers levels (:data:`LEVELS`): ``bots`` maps a level to the bot that
plays it; a level it does not list plays as ``normal``, which is ``bot``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from plugins.base import Binding, Engine, GameInfo

Bot = Callable[[Engine[Any], Any, int, random.Random], "dict[str, Any] | None"]

LEVELS = ("easy", "normal", "hard")
"""The computers' levels, weakest first; ``normal`` is a game's :attr:`Game.bot`."""
DEFAULT_LEVEL = "normal"


@dataclass(frozen=True)
class Game:
    """A registered game. ``binding.engine`` must be ``engine`` (the binding lays out that
    engine's states); its options are ``engine.info.options``."""

    engine: Engine[Any]
    binding: Binding
    bot: Bot
    bots: Mapping[str, Bot] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.binding.engine is not self.engine:
            raise ValueError(f"The binding of {self.engine.info.name!r} lays out another engine.")
        unknown = set(self.bots) - set(LEVELS)
        if unknown:
            raise ValueError(f"Unknown bot levels {sorted(unknown)}; levels: {', '.join(LEVELS)}.")

    def bot_at(self, level: str = DEFAULT_LEVEL) -> Bot:
        """The bot that plays ``level`` (``normal``, :attr:`bot`, for a level not given)."""
        return self.bots.get(level, self.bot)

    @property
    def info(self) -> GameInfo:
        """The engine's name, title, player counts and options."""
        return self.engine.info

    @property
    def name(self) -> str:
        return self.engine.info.name

    def move(
        self, state: Any, player: int, rng: random.Random, level: str = DEFAULT_LEVEL
    ) -> dict[str, Any] | None:
        """The action of the bot of ``level`` for ``player`` (``None``: it passes its chance)."""
        return self.bot_at(level)(self.engine, state, player, rng)
