"""Gin Rummy plugin: the pure rules engine, its table binding and a simple bot.

``ENGINE`` is the ready-made :class:`GinRummy` instance (contract v2), :func:`choose_action`
the bot, ``GAME`` the three registered together. The melds (the fewest-deadwood search, tied
arrangements, lay-offs) are Gin's part of the shared meld library, :mod:`plugins.melds`.
"""

from plugins.game import Game
from plugins.gin_rummy.binding import BINDING
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.bot_easy import choose_action as choose_easy
from plugins.gin_rummy.bot_hard import choose_action as choose_hard
from plugins.gin_rummy.rules import ENGINE, GinRummy, GinState

GAME = Game(
    engine=ENGINE,
    binding=BINDING,
    bot=choose_action,
    bots={"easy": choose_easy, "hard": choose_hard},
)

__all__ = [
    "BINDING",
    "GAME",
    "ENGINE",
    "GinRummy",
    "GinState",
    "choose_action",
]
