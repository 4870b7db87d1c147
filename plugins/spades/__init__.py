"""Spades plugin: the pure four-player partnership rules engine and its bot.

``ENGINE`` is the ready-made :class:`Spades` instance; ``choose_action`` is the computer
player; :func:`score_side` is the scoring of rules 11-13 as a pure function.
"""

from plugins.game import Game
from plugins.spades.binding import BINDING
from plugins.spades.bot import choose_action
from plugins.spades.bot_easy import choose_action as choose_easy
from plugins.spades.bot_hard import choose_action as choose_hard
from plugins.spades.rules import ENGINE, SideResult, Spades, SpadesState, score_side

GAME = Game(
    engine=ENGINE,
    binding=BINDING,
    bot=choose_action,
    bots={"easy": choose_easy, "hard": choose_hard},
)

__all__ = [
    "BINDING",
    "ENGINE",
    "GAME",
    "SideResult",
    "Spades",
    "SpadesState",
    "choose_action",
    "score_side",
]
