"""The ``cardtable`` command line: ``cardtable serve`` runs the server."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from server import logs
from server.config import Config, Network, parse_network


def _network(text: str) -> Network:
    try:
        return parse_network(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardtable", description="A virtual card table for friends: rooms, cards, rules."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "simulate",
        help="play a game's bots against random-legal players: "
        "cardtable simulate GAME --games N [--seed S] [--players N]",
        add_help=False,
    )
    serve = sub.add_parser(
        "serve",
        help="run the web and Socket.IO server",
        description="Serve the table. Without --redis-url (or REDIS_URL) rooms are kept in an "
        "embedded Redis under --data-dir, so they survive restarts.",
    )
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=None, help="port to listen on (default $PORT or 8080)"
    )
    serve.add_argument(
        "--redis-url",
        default=None,
        help="external Redis, e.g. redis://host:6379/0 (default $REDIS_URL; unset: embedded store)",
    )
    serve.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the embedded store keeps its files (default ./var)",
    )
    serve.add_argument(
        "--log-level",
        default=None,
        choices=["debug", "info", "warning", "error"],
        help="default info",
    )
    serve.add_argument(
        "--log-format",
        default=None,
        choices=["text", "json"],
        help="text, or json: one object per line with room and player "
        "(default $CARDTABLE_LOG_FORMAT or text)",
    )
    serve.add_argument(
        "--room-ttl",
        type=int,
        default=None,
        dest="room_ttl_seconds",
        help="seconds an idle room is kept (default 14 days)",
    )
    serve.add_argument(
        "--grace",
        type=float,
        default=None,
        dest="grace_seconds",
        help="seconds a disconnected player's seat is held (default 120)",
    )
    serve.add_argument(
        "--heartbeat",
        type=float,
        default=None,
        dest="heartbeat_seconds",
        help="presence heartbeat in seconds (default 5)",
    )
    serve.add_argument(
        "--fsync",
        choices=["always", "everysec"],
        default=None,
        help="embedded store: fsync the append-only file before every "
        "acknowledgement (always, the default: a crash loses nothing) or once "
        "a second (everysec: faster, a crash may lose the last second)",
    )
    serve.add_argument(
        "--max-objects", type=int, default=None, help="objects per room (default 1500)"
    )
    serve.add_argument(
        "--max-players",
        type=int,
        default=None,
        help="players per room, seated and watching (default 16)",
    )
    serve.add_argument(
        "--max-payload",
        type=int,
        default=None,
        dest="max_payload_bytes",
        help="bytes per event payload (default 32768)",
    )
    serve.add_argument(
        "--ops-per-second",
        type=float,
        default=None,
        help="operations per connection per second, sustained (default 20)",
    )
    serve.add_argument(
        "--ops-burst",
        type=int,
        default=None,
        help="operations per connection in a burst (default 40)",
    )
    serve.add_argument(
        "--joins-per-minute",
        type=int,
        default=None,
        help="joins and room creations per client address a minute (default 30)",
    )
    serve.add_argument(
        "--misses-per-minute",
        type=int,
        default=None,
        help="lookups of room codes that name no live room, per client address "
        "in any 60 s (default 10)",
    )
    serve.add_argument(
        "--misses-per-day", type=int, default=None, help="the same in any 24 hours (default 50)"
    )
    serve.add_argument(
        "--challenges-received-per-minute",
        type=int,
        default=None,
        help="challenges one player may receive from players it has not "
        "favourited, in any 60 s (default 10)",
    )
    serve.add_argument(
        "--challenges-received-per-hour",
        type=int,
        default=None,
        help="the same in any hour (default 30)",
    )
    serve.add_argument(
        "--trusted-proxy",
        type=_network,
        action="append",
        default=None,
        dest="trusted_proxies",
        metavar="CIDR",
        help="a reverse proxy whose X-Forwarded-For is believed; repeatable "
        "(default $CARDTABLE_TRUSTED_PROXIES, comma-separated; unset: none, "
        "limits count the connection's peer address)",
    )
    return parser


def config_from_args(argv: list[str] | None = None) -> Config:
    """The server's settings from the command line, over the environment, over defaults."""
    args = build_parser().parse_args(argv)
    cfg = Config.from_env(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url,
        data_dir=args.data_dir,
        log_level=args.log_level,
        log_format=args.log_format,
        room_ttl_seconds=args.room_ttl_seconds,
        grace_seconds=args.grace_seconds,
        heartbeat_seconds=args.heartbeat_seconds,
        ops_per_second=args.ops_per_second,
        ops_burst=args.ops_burst,
        joins_per_minute=args.joins_per_minute,
        fsync=args.fsync,
        max_payload_bytes=args.max_payload_bytes,
        misses_per_minute=args.misses_per_minute,
        misses_per_day=args.misses_per_day,
        challenges_received_per_minute=args.challenges_received_per_minute,
        challenges_received_per_hour=args.challenges_received_per_hour,
        trusted_proxies=args.trusted_proxies,
    )
    if args.max_objects or args.max_players:
        cfg.limits = replace(
            cfg.limits,
            max_objects=args.max_objects or cfg.limits.max_objects,
            max_players=args.max_players or cfg.limits.max_players,
        )
    return cfg


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["simulate"]:
        # Bots against bots and random-legal players; pure engines, no server (see
        # plugins/simulate.py for the options).
        from plugins.simulate import main as simulate

        return simulate(args[1:])
    cfg = config_from_args(argv)
    logs.setup(cfg.log_level, cfg.log_format)
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    from server.app import create_app
    from server.net.transport import serve

    serve(create_app(cfg), cfg.host, cfg.port, lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
