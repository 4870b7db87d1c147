"""Server settings, from the command line or the environment, with documented defaults."""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import MISSING, dataclass, field, fields
from importlib import metadata
from pathlib import Path
from typing import Any, get_origin, get_type_hints

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


def _plain(value: object) -> str:
    return f"`{value}`"


def _seconds(value: object) -> str:
    return f"{value:g} s"


def setting(
    default: Any = MISSING,
    *,
    flag: str,
    about: str,
    env: str | None = None,
    show: Callable[[Any], str] = _plain,
    choices: tuple[str, ...] | None = None,
    factory: Callable[[], Any] | None = None,
) -> Any:
    """A :class:`Config` field that is also a command-line flag (``--flag``), maybe read from
    ``env``: ``about`` says what it is and ``show`` writes its default as people read it. The
    flags (server/__main__.py), the environment (:meth:`Config.from_env`) and README's table
    (``make generate``) are all made from these, so a default is written once."""
    meta = {"flag": flag, "about": about, "env": env, "show": show, "choices": choices}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class Config:
    host: str = setting("127.0.0.1", flag="host", about="listen address")
    port: int = setting(8080, flag="port", about="port", env="PORT")
    redis_url: str | None = setting(  # None: the embedded default store under data_dir
        None,
        flag="redis-url",
        about="external Redis, e.g. `redis://host:6379/0`",
        env="REDIS_URL",
        show=lambda _: "unset: embedded store",
    )
    redis_cluster: str | None = setting(  # None: --redis-url (a redis+cluster:// URL is one too)
        None,
        flag="redis-cluster",
        about="a Redis Cluster instead: some of its nodes, `host:port,host:port` (or "
        "`--redis-url redis+cluster://host:port,...`); rooms are spread over its shards",
        env="REDIS_CLUSTER",
        show=lambda _: "unset",
    )
    redis_wait_replicas: int = setting(  # -1: 1 on a cluster, 0 on one Redis
        -1,
        flag="redis-wait-replicas",
        about="replicas that must have a commit before it is acknowledged (`WAIT`), so a "
        "master's failover loses no acknowledged move; `-1`: 1 on a Redis Cluster, 0 on one Redis",
        env="CARDTABLE_REDIS_WAIT_REPLICAS",
        show=lambda _: "`-1`: 1 on a cluster",
    )
    data_dir: Path = setting(
        flag="data-dir",
        about="embedded store directory",
        env="CARDTABLE_DATA_DIR",
        show=lambda v: f"`./{v}`",
        factory=lambda: Path("var"),
    )
    log_level: str = setting(
        "info", flag="log-level", about="log level", choices=("debug", "info", "warning", "error")
    )
    log_format: str = setting(
        "text",
        flag="log-format",
        about="log format: `json` writes one object per line, with room and player",
        env="CARDTABLE_LOG_FORMAT",
        choices=("text", "json"),
    )
    fsync: str = setting(
        "always",
        flag="fsync",
        about="embedded store fsync: before every acknowledgement (`always`: a crash loses "
        "nothing) or once a second (`everysec`: faster, a crash may lose the last second)",
        choices=("always", "everysec"),
    )
    # The built web client: server/web, a link to web/dist in a checkout, a copy when installed.
    web_dir: Path = field(default_factory=lambda: Path(__file__).resolve().parent / "web")
    limits: Limits = field(default_factory=Limits)
    room_ttl_seconds: int = setting(
        14 * 24 * 3600,
        flag="room-ttl",
        about="idle room lifetime, in seconds",
        show=lambda v: f"{v // 86400} days",
    )
    log_cap: int = 200  # op-log entries kept per room for resync
    # How long a Redis command may take before the store counts as unavailable (a commit that
    # times out is answered ``unconfirmed``: it may still land, and its operation id holds).
    store_timeout_seconds: float = 2.0
    max_payload_bytes: int = setting(
        32 * 1024,
        flag="max-payload",
        about="one event's payload, in bytes (after decoding)",
        show=lambda v: f"{v // 1024} KiB",
    )
    ops_per_second: float = setting(
        20.0,
        flag="ops-per-second",
        about="operations per connection, sustained",
        show=lambda v: f"{v:g}/s",
    )
    ops_burst: int = setting(40, flag="ops-burst", about="operations per connection in a burst")
    joins_per_minute: int = setting(
        30,
        flag="joins-per-minute",
        about="joins and room creations per client address",
        show=lambda v: f"{v} in any 60 s",
    )
    misses_per_minute: int = setting(
        10,
        flag="misses-per-minute",
        about="lookups of room codes that name no live room, per client address",
        show=lambda v: f"{v} in any 60 s",
    )
    misses_per_day: int = setting(
        50,
        flag="misses-per-day",
        about="the same, over any 24 hours",
        show=lambda v: f"{v} in any 24 h",
    )
    # Challenges one identity may receive from identities it has not favourited (all senders
    # together; favourites are not counted): in any 60 s, and in any hour.
    challenges_received_per_minute: int = setting(
        10,
        flag="challenges-received-per-minute",
        about="challenges one person receives from people it has not favourited",
        show=lambda v: f"{v} in any 60 s",
    )
    challenges_received_per_hour: int = setting(
        30,
        flag="challenges-received-per-hour",
        about="the same, in any hour",
        show=lambda v: f"{v} in any hour",
    )
    trusted_proxies: list[Network] = setting(  # may set X-Forwarded-For
        flag="trusted-proxy",
        about="reverse proxies whose `X-Forwarded-For` is believed (repeatable; the "
        "environment's is comma-separated)",
        env="CARDTABLE_TRUSTED_PROXIES",
        show=lambda _: "none: limits count the connection's peer",
        factory=list,
    )
    clock: Callable[[], float] = field(default=time.time)  # the rate limits' clock
    cors_origins: list[str] | str | None = None
    grace_seconds: float = setting(
        120.0,
        flag="grace",
        about="seat held for a disconnected player, in seconds (then they leave; the room "
        "remembers them, and the same browser comes back to that seat if it is still free)",
        show=_seconds,
    )
    bot_delay_seconds: float = 0.8  # pause before a computer player moves
    heartbeat_seconds: float = setting(
        5.0,
        flag="heartbeat",
        about="presence heartbeat, in seconds (a connection unseen for 3 beats is gone)",
        show=_seconds,
    )
    challenge_seconds: float = 60.0  # an unanswered challenge expires (and both are told)
    build: str = field(default_factory=default_build)  # a page of another build is out of date

    def wait_replicas(self, url: str) -> int:
        """How many replicas a commit waits for on the store at ``url`` (see the setting)."""
        if self.redis_wait_replicas >= 0:
            return self.redis_wait_replicas
        return 1 if url.split("://", 1)[0].lower().endswith("+cluster") else 0

    def store_url(self) -> str | None:
        """Where the store is: ``--redis-cluster`` as a ``redis+cluster://`` URL, else
        ``--redis-url`` (None: the embedded store). server/store/clients.py reads both kinds."""
        if self.redis_cluster:
            nodes = self.redis_cluster.strip().replace(" ", "")
            return nodes if "://" in nodes else "redis+cluster://" + nodes
        return self.redis_url

    @classmethod
    def from_env(cls, **overrides: object) -> Config:
        """Defaults, then the settings' environment variables, then ``overrides`` not None."""
        cfg = cls()
        for one in settings():
            text = os.environ.get(one.env) if one.env else None
            if text:
                value = parse_networks([text]) if one.repeat else one.kind(text)
                setattr(cfg, one.name, value)
        for key, value in overrides.items():
            if value is not None:
                setattr(cfg, key, value)
        return cfg


# The table's limits (server.table.apply.Limits) that are flags too: name -> (flag, about).
LIMIT_FLAGS = {
    "max_objects": ("max-objects", "objects per room"),
    "max_players": ("max-players", "players per room, seated and watching"),
}


@dataclass(frozen=True)
class Setting:
    """One command-line setting: the :class:`Config` field it sets (``limits.`` for one of
    the table's limits), its flag, environment variable, help and default."""

    name: str
    flag: str
    about: str
    env: str | None
    show: Callable[[Any], str]
    choices: tuple[str, ...] | None
    kind: Callable[[str], Any]
    default: Any
    repeat: bool = False  # a list: the flag may be given again

    def shown_default(self) -> str:
        return self.show(self.default)


def settings() -> list[Setting]:
    """Every setting made with :func:`setting`, in field order, then the table's limits."""
    base = Config()
    hints = get_type_hints(Config)
    out = []
    for f in fields(Config):
        if "flag" not in f.metadata:
            continue
        m = f.metadata
        hint = hints[f.name]
        repeat = get_origin(hint) is list
        kind: Callable[[str], Any] = (
            parse_network if repeat else hint if hint in (int, float, str, Path) else str
        )
        default = getattr(base, f.name)
        out.append(
            Setting(
                f.name,
                m["flag"],
                m["about"],
                m["env"],
                m["show"],
                m["choices"],
                kind,
                default,
                repeat,
            )
        )
    for name, (flag, about) in LIMIT_FLAGS.items():
        out.append(
            Setting(
                f"limits.{name}", flag, about, None, _plain, None, int, getattr(base.limits, name)
            )
        )
    return out


def settings_table() -> str:
    """README's table of settings (``make generate`` writes it; a test holds README to it)."""
    rows = ["| setting | flag | environment | default |", "|---|---|---|---|"]
    for one in settings():
        env = f"`{one.env}`" if one.env else ""
        rows.append(f"| {one.about} | `--{one.flag}` | {env} | {one.shown_default()} |")
    return "\n".join(rows) + "\n"
