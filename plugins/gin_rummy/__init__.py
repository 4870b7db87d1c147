"""Gin Rummy plugin: the pure rules engine, the meld solver and a simple bot.

``ENGINE`` is the ready-made :class:`GinRummy` instance; :func:`best_arrangement` and
:func:`layoffs` are the meld helpers (see :mod:`plugins.gin_rummy.melds`).
"""

from plugins.gin_rummy.melds import Arrangement, best_arrangement, layoffs
from plugins.gin_rummy.rules import ENGINE, GinRummy, GinState

__all__ = ["ENGINE", "Arrangement", "GinRummy", "GinState", "best_arrangement", "layoffs"]
