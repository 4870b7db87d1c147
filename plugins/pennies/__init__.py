"""Pennies ("Ten Pennies") plugin: the pure rules engine, its round chart and a simple bot.

``ENGINE`` is the ready-made :class:`Pennies` instance; :func:`choose_action` is the bot.
"""

from plugins.game import Game
from plugins.pennies.binding import BINDING
from plugins.pennies.bot import choose_action
from plugins.pennies.bot_easy import choose_action as easy
from plugins.pennies.bot_hard import choose_action as hard
from plugins.pennies.rules import ENGINE, Pennies, PenniesState

GAME = Game(engine=ENGINE, binding=BINDING, bot=choose_action, bots={"easy": easy, "hard": hard})

__all__ = ["BINDING", "GAME", "ENGINE", "Pennies", "PenniesState", "choose_action"]
