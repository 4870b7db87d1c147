"""Gin Rummy plugin: the pure rules engine, the meld solver and a simple bot.

``ENGINE`` is the ready-made :class:`GinRummy` instance (contract v2), :func:`choose_action`
the bot; :func:`best_arrangement`, :func:`arrangements` and :func:`layoffs` are the meld
helpers (see :mod:`plugins.gin_rummy.melds`).
"""

from plugins.game import Game
from plugins.gin_rummy.binding import BINDING
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.melds import Arrangement, arrangements, best_arrangement, layoffs
from plugins.gin_rummy.rules import ENGINE, GinRummy, GinState

GAME = Game(engine=ENGINE, binding=BINDING, bot=choose_action)

__all__ = [
    "BINDING",
    "GAME",
    "ENGINE",
    "Arrangement",
    "GinRummy",
    "GinState",
    "arrangements",
    "best_arrangement",
    "choose_action",
    "layoffs",
]
