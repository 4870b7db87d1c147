"""``cardtable serve`` with the computer players' pause set from the command line.

``python -m bench.gameserver --bot-delay 0 <cardtable serve options>``: the same server, built
from the same options (``server.__main__.config_from_args``), with ``bot_delay_seconds``
overridden, so ``python -m bench.games`` measures the server and the engines rather than the
0.8 s a computer waits so that a person can follow.
"""

from __future__ import annotations

import sys

from aiohttp import web

from bench import use_uvloop


def main(argv: list[str]) -> int:
    delay = 0.0
    if argv[:1] == ["--bot-delay"]:
        delay, argv = float(argv[1]), argv[2:]
    use_uvloop()
    from server.__main__ import config_from_args
    from server.app import create_app

    cfg = config_from_args(["serve", *argv])
    cfg.bot_delay_seconds = delay
    web.run_app(create_app(cfg), host=cfg.host, port=cfg.port, print=lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
