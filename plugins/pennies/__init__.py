"""Pennies ("Ten Pennies") plugin: the pure rules engine, its round chart and a simple bot.

``ENGINE`` is the ready-made :class:`Pennies` instance; :func:`choose_action` is the bot.
"""

from plugins.pennies.bot import choose_action
from plugins.pennies.rules import ENGINE, Pennies, PenniesState

__all__ = ["ENGINE", "Pennies", "PenniesState", "choose_action"]
