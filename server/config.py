"""Server settings, from the command line or the environment, with documented defaults."""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from server.table.apply import Limits

ROOT = Path(__file__).resolve().parent.parent


def default_build() -> str:
    """The build pages must match (``hello``): $CARDTABLE_BUILD, else the package version."""
    if os.environ.get("CARDTABLE_BUILD"):
        return os.environ["CARDTABLE_BUILD"]
    try:
        return metadata.version("cardtable")
    except metadata.PackageNotFoundError:
        return "dev"


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(text: str) -> Network:
    """A CIDR such as ``10.0.0.0/8`` or a single address (a /32 or /128); ValueError if neither."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"not an IP network or address: {text.strip()!r}") from None


def parse_networks(texts: Iterable[str]) -> list[Network]:
    """Networks from texts that may each hold several, comma-separated (an environment variable)."""
    return [parse_network(part) for text in texts for part in text.split(",") if part.strip()]


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None  # None: the embedded default store under data_dir
    data_dir: Path = field(default_factory=lambda: Path("var"))
    log_level: str = "info"
    log_format: str = "text"  # "text", or "json": one object per line, with room and player
    fsync: str = "always"  # embedded store's appendfsync: "always" or "everysec"
    web_dir: Path = field(default_factory=lambda: ROOT / "web" / "dist")
    limits: Limits = field(default_factory=Limits)
    room_ttl_seconds: int = 14 * 24 * 3600
    log_cap: int = 200  # op-log entries kept per room for resync
    # How long a Redis command may take before the store counts as unavailable (a commit that
    # times out is answered ``unconfirmed``: it may still land, and its operation id holds).
    store_timeout_seconds: float = 2.0
    max_payload_bytes: int = 32 * 1024  # one event's payload, after decoding
    ops_per_second: float = 20.0  # per connection, sustained
    ops_burst: int = 40  # per connection, burst
    joins_per_minute: int = 30  # per client address: join attempts and room creations
    misses_per_minute: int = 10  # per client address: lookups of codes that name no live room
    misses_per_day: int = 50  # the same, over any 24 hours
    # Challenges one identity may receive from identities it has not favourited (all senders
    # together; favourites are not counted): in any 60 s, and in any hour.
    challenges_received_per_minute: int = 10
    challenges_received_per_hour: int = 30
    trusted_proxies: list[Network] = field(default_factory=list)  # may set X-Forwarded-For
    clock: Callable[[], float] = field(default=time.time)  # the rate limits' clock
    cors_origins: list[str] | str | None = None
    grace_seconds: float = 120.0  # a disconnected seat is held this long
    bot_delay_seconds: float = 0.8  # pause before a computer player moves
    heartbeat_seconds: float = 5.0  # presence refresh; a connection unseen for 3 beats is gone
    challenge_seconds: float = 60.0  # an unanswered challenge expires (and both are told)
    build: str = field(default_factory=default_build)  # a page of another build is out of date

    @classmethod
    def from_env(cls, **overrides: object) -> Config:
        cfg = cls()
        env = os.environ
        if env.get("REDIS_URL"):
            cfg.redis_url = env["REDIS_URL"]
        if env.get("PORT"):
            cfg.port = int(env["PORT"])
        if env.get("CARDTABLE_DATA_DIR"):
            cfg.data_dir = Path(env["CARDTABLE_DATA_DIR"])
        if env.get("CARDTABLE_LOG_FORMAT"):
            cfg.log_format = env["CARDTABLE_LOG_FORMAT"]
        if env.get("CARDTABLE_TRUSTED_PROXIES"):
            cfg.trusted_proxies = parse_networks([env["CARDTABLE_TRUSTED_PROXIES"]])
        for key, value in overrides.items():
            if value is not None:
                setattr(cfg, key, value)
        return cfg
