"""A computer keeps its pace when two server processes follow its room.

Both processes have a connection in the room, so both keep a timer for its computer player;
each computer move must still come no sooner than the configured pause after the room's
previous commit. Judged on the times the servers recorded in the room (``log_at``, the
commits' own clock), not on the test's wall clock.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import aiohttp

from cardtable_client import TableClient
from server.config import Config
from server.store.redis_store import RedisStore, room_key
from server.table.objects import decode_table
from tests.cluster.procs import ServerProcess

COMPUTER_MOVES = 12


def _ana_moves(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A person who plays at once: never knocks, draws from the stock, discards at random."""
    plain = [a for a in legal if a["type"] not in ("knock", "gin", "next_hand")]
    for kind in ("pass", "finish_layoff"):
        if {"type": kind} in plain:
            return {"type": kind}
    stock = [a for a in plain if a["type"] == "draw" and a.get("source") == "stock"]
    return stock[0] if stock else rng.choice(plain or legal)


async def test_a_computer_waits_its_pause_with_two_processes_following(redis_server, tmp_path):
    delay = Config().bot_delay_seconds  # what `cardtable serve` uses
    procs = [
        ServerProcess(redis_url=redis_server.url, log_path=tmp_path / f"s{i}.log") for i in range(2)
    ]
    await asyncio.gather(*(p.start() for p in procs))
    store = RedisStore(redis_server.url)
    clients: list[TableClient] = []
    try:
        room = {"game": "gin_rummy", "options": {"target": 500}}
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{procs[0].url}/api/rooms", json=room) as r,
        ):
            code = str((await r.json())["code"])
        ana = await TableClient(procs[0].url).connect()
        spec = await TableClient(procs[1].url).connect()
        clients += [ana, spec]
        await ana.join(code, "Ana")
        await spec.join(code, "Spec", seat=None)  # so the other process follows the room too
        await ana.request("host", {"action": "bot", "seat": 1})
        lines: set[tuple[float, str]] = set()

        async def read_log() -> None:
            table = decode_table(bytes(await store.redis.hget(room_key(code), "s")))
            lines.update(zip(table.log_times(), table.log, strict=True))

        rng = random.Random(5)
        while sum(line.startswith("Computer") for _, line in lines) < COMPUTER_MOVES:
            await ana.wait_for(
                lambda: (
                    ana.game is not None
                    and not ana.game["waiting"]
                    and (bool(ana.game["legal"]) or ana.game["phase"] == "game_over")
                ),
                timeout=30,
            )
            await read_log()
            game = ana.game
            assert game is not None and game["phase"] != "game_over"
            action = (
                {"type": "next_hand"}
                if game["phase"] == "hand_over"
                else _ana_moves(game["legal"], rng)
            )
            await ana.request("game", {"action": action})
        ordered = sorted(lines)
        pairs = zip(ordered, ordered[1:], strict=False)
        late = [
            (at, line, before) for (before, _), (at, line) in pairs if line.startswith("Computer")
        ]
        assert len(late) >= COMPUTER_MOVES
        early = [(line, round(at - before, 3)) for at, line, before in late if at < before + delay]
        assert not early, f"computer moves sooner than {delay} s after the last commit: {early}"
    finally:
        for c in clients:
            await c.close()
        await store.close()
        for p in procs:
            p.stop()
