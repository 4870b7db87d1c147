"""Rummy plugin: the pure rules engine (``ENGINE``) and its computer player (``choose_action``)."""

from plugins.rummy.bot import choose_action
from plugins.rummy.rules import ENGINE, Rummy, RummyState

__all__ = ["ENGINE", "Rummy", "RummyState", "choose_action"]
