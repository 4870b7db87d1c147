"""The rule plugins a room can turn on, by name."""

from __future__ import annotations

from plugins.base import GameBinding
from plugins.gin_rummy.binding import BINDING as GIN_RUMMY

GAMES: dict[str, GameBinding] = {GIN_RUMMY.info.name: GIN_RUMMY}
