"""Server settings, from the command line or the environment, with documented defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from server.table.apply import Limits

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None  # None: the embedded default store under data_dir
    data_dir: Path = field(default_factory=lambda: Path("var"))
    log_level: str = "info"
    fsync: str = "always"  # embedded store's appendfsync: "always" or "everysec"
    web_dir: Path = field(default_factory=lambda: ROOT / "web" / "dist")
    limits: Limits = field(default_factory=Limits)
    room_ttl_seconds: int = 14 * 24 * 3600
    log_cap: int = 200  # op-log entries kept per room for resync
    max_payload_bytes: int = 32 * 1024  # one event's payload, after decoding
    ops_per_second: float = 20.0  # per connection, sustained
    ops_burst: int = 40  # per connection, burst
    joins_per_minute: int = 30  # per client address: join attempts and room creations
    cors_origins: list[str] | str | None = None
    grace_seconds: float = 120.0  # a disconnected seat is held this long
    bot_delay_seconds: float = 0.8  # pause before a computer player moves
    heartbeat_seconds: float = 5.0  # presence refresh; a connection unseen for 3 beats is gone

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
        for key, value in overrides.items():
            if value is not None:
                setattr(cfg, key, value)
        return cfg
