"""Prometheus metrics: what an operator watches, counted where it happens and served at /metrics.

The lowest server layer after :mod:`server.errors`, so the store, the room service, the feed
and the socket handlers can all count without importing each other. The metrics live in
prometheus-client's process-wide registry (one process, one set of numbers, whatever the number
of apps in it); names and meanings are listed in docs/architecture.md, "Operating it".
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

CONNECTIONS = Gauge("cardtable_connections", "Socket.IO connections open on this process")
CONNECTS = Counter("cardtable_connects", "Socket.IO connections accepted")
COMMITS = Counter("cardtable_commits", "Room versions committed by this process")
COMMIT_RETRIES = Counter(
    "cardtable_commit_retries",
    "Commits that lost the version race to another writer and were reduced again",
)
FEED_LAG = Histogram(
    "cardtable_feed_lag_seconds",
    "From a commit entry reaching a room feed's queue to its deltas being sent",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
RATE_LIMITED = Counter(
    "cardtable_rate_limited",
    "Events refused by a rate limit, by limit (join, miss, upload, ops, ...)",
    ["limit"],
)
ACTION_SECONDS = Histogram(
    "cardtable_action_seconds",
    "Handling time of one client action (event received to answer sent), by event",
    ["event"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


def exposition() -> bytes:
    """Every metric of this process in Prometheus' text format."""
    return generate_latest()
