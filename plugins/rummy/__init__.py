"""Rummy plugin: the pure rules engine (``ENGINE``) and its computer player (``choose_action``)."""

from plugins.game import Game
from plugins.rummy.binding import BINDING
from plugins.rummy.bot import choose_action
from plugins.rummy.bot_easy import choose_action as easy
from plugins.rummy.bot_hard import choose_action as hard
from plugins.rummy.rules import ENGINE, Rummy, RummyState

GAME = Game(engine=ENGINE, binding=BINDING, bot=choose_action, bots={"easy": easy, "hard": hard})

__all__ = ["BINDING", "GAME", "ENGINE", "Rummy", "RummyState", "choose_action"]
