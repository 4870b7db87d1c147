"""The ``cardtable`` command line: ``cardtable serve`` runs the server."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from server import logs
from server.config import LIMIT_FLAGS, Config, Network, parse_network, settings


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
        help="play a game's bots against random-legal players, or its computer levels against "
        "each other: cardtable simulate GAME --games N [--seed S] [--players N] "
        "[--levels hard,normal]",
        add_help=False,
    )
    sub.add_parser(
        "verify",
        help="check provably fair deal records (docs/fairness.md): cardtable verify RECORD.json",
        add_help=False,
    )
    serve = sub.add_parser(
        "serve",
        help="run the web and Socket.IO server",
        description="Serve the table. Without --redis-url (or REDIS_URL) rooms are kept in an "
        "embedded Redis under --data-dir, so they survive restarts.",
    )
    for one in settings():  # every flag, its help and default from the Config fields
        default = one.shown_default().replace("`", "")
        env = f"; ${one.env}" if one.env else ""
        serve.add_argument(
            f"--{one.flag}",
            dest=one.name.rpartition(".")[2],
            type=_network if one.repeat else one.kind,
            action="append" if one.repeat else "store",
            choices=one.choices,
            default=None,
            metavar="CIDR" if one.repeat else None,
            help=f"{one.about.replace('`', '')} (default {default}{env})".replace("%", "%%"),
        )
    return parser


def config_from_args(argv: list[str] | None = None) -> Config:
    """The server's settings from the command line, over the environment, over defaults."""
    args = build_parser().parse_args(argv)
    values = vars(args)
    cfg = Config.from_env(
        **{one.name: values[one.name] for one in settings() if "." not in one.name}
    )
    limits = {name: values[name] for name in LIMIT_FLAGS if values[name]}
    if limits:
        cfg.limits = replace(cfg.limits, **limits)
    return cfg


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["simulate"]:
        # Bots against bots and random-legal players; pure engines, no server (see
        # plugins/simulate.py for the options).
        from plugins.simulate import main as simulate

        return simulate(args[1:])
    if args[:1] == ["verify"]:
        # A deal record's seed, commitment and cards (plugins/fair_cli.py); no server.
        from plugins.fair_cli import main as verify

        return verify(args[1:])
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
