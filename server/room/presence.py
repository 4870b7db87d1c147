"""Presence: bringing players' status in line with which of them have a live connection.

A player with no live connection is ``reconnecting``; once away longer than the grace period
they leave: their seat is free again (its hand stays, hidden, in place) and the room remembers
them, so the same browser comes back as the same player (:func:`server.room.players.come_back`).
Which connections are live is kept in Redis by the socket layer; this module only decides what
that means for the table.
"""

from __future__ import annotations

from server.room.players import remove_player
from server.table.apply import Change
from server.table.objects import Table


def settle(table: Table, live: frozenset[str], now: float, grace: float) -> Change | None:
    """The change that makes statuses match ``live`` (player ids), or ``None``."""
    logs = []
    for p in list(table.players.values()):
        if p.bot:
            continue
        if p.id in live:
            if p.status != "online":
                p.status, p.away_since = "online", 0.0
                logs.append(f"{p.name} is back")
        elif p.status == "online":
            p.status, p.away_since = "reconnecting", now
            logs.append(f"{p.name} lost connection")
        elif now - p.away_since >= grace:
            remove_player(table, p, now=now, remember=True)
            logs.append(f"{p.name} left after being away too long")
    if not logs:
        return None
    return Change(players_changed=True, log="; ".join(logs))
