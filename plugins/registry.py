"""The rule games a room can turn on, by name: each is an engine, a binding and a bot."""

from __future__ import annotations

from plugins.base import Binding
from plugins.gin_rummy.binding import BINDING as GIN_RUMMY
from plugins.pennies.binding import BINDING as PENNIES
from plugins.rummy.binding import BINDING as RUMMY
from plugins.spades.binding import BINDING as SPADES

GAMES: dict[str, Binding] = {b.info.name: b for b in (GIN_RUMMY, SPADES, RUMMY, PENNIES)}
