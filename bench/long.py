"""``python -m bench.long``: is a room that has taken 30,000 moves as fast as a new one?

One server (``--target cardtable`` or ``cardtable-redis``), one room from the standard deck,
``--players`` real python-socketio clients in this process, each keeping one ``op move`` of its
own loose card in flight (closed loop, like the throughput phase of ``python -m bench``) until
``--moves`` moves are acknowledged. The run is cut into tenths by moves; for each tenth it prints
moves/s, the server's CPU ms per move (``/proc``, robust to other load on the machine) and the
ack p50/p99. First tenth against last tenth is the answer.

    .venv/bin/python -m bench.long                       # 30,000 moves, embedded store
    .venv/bin/python -m bench.long --target cardtable-redis --moves 10000
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import socketio

from bench import use_uvloop
from bench.__main__ import create_rooms
from bench.report import cpu_ticks, percentile
from bench.targets import Launch

TICK = 1000 / 100  # ms per clock tick (CLK_TCK is 100 on Linux)


class Player:
    def __init__(self, url: str, code: str, name: str) -> None:
        self.url, self.code, self.name = url, code, name
        self.sio = socketio.AsyncClient(reconnection=False)
        self.me: str | None = None
        self.face: str | None = None
        self.card: str | None = None
        self.refs = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[bool]] = {}
        self.sio.on("joined", self._joined)
        self.sio.on("delta", self._delta)
        self.sio.on("snapshot", self._snapshot)
        self.sio.on("ack", lambda d: self._done(d.get("ref"), True))
        self.sio.on("error", lambda d: self._done(d.get("ref"), False))

    def _joined(self, d: dict[str, Any]) -> None:
        self.me = d["player"]
        self._done(d.get("ref"), True)

    def _delta(self, d: dict[str, Any]) -> None:
        if self.card is None and d.get("by") == self.me:
            self.card = next((o["id"] for o in d["set"] if o.get("t") == "card"), None)

    def _snapshot(self, d: dict[str, Any]) -> None:
        # A move committed before the join's snapshot went out is in the snapshot, not a delta.
        if self.card is None and self.face is not None:
            self.card = next(
                (
                    o["id"]
                    for o in d["objects"]
                    if o.get("t") == "card"
                    and o.get("face") == self.face
                    and o.get("parent") is None
                ),
                None,
            )

    def _done(self, ref: Any, ok: bool) -> None:
        fut = self.waiting.pop(ref, None)
        if fut is not None and not fut.done():
            fut.set_result(ok)

    async def request(self, event: str, payload: dict[str, Any]) -> bool:
        ref = next(self.refs)
        fut = self.waiting[ref] = asyncio.get_running_loop().create_future()
        await self.sio.emit(event, {**payload, "ref": ref})
        return await asyncio.wait_for(fut, 10)

    async def setup(self, face: str) -> None:
        self.face = face
        await self.sio.connect(self.url, transports=["websocket"])
        if not await self.request("join", {"code": self.code, "name": self.name}):
            raise RuntimeError("join refused")
        if not await self.request(
            "op", {"op": "create", "kind": "card", "faces": [face], "up": True, "x": 100, "y": 100}
        ):
            raise RuntimeError("create refused")
        if self.card is None:
            raise RuntimeError(f"{self.name}: no delta or snapshot for its card")


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-long-") as tmp:
        launch = Launch(Path(tmp))
        try:
            redis_url = launch.redis() if args.target == "cardtable-redis" else None
            url = launch.cardtable(redis_url=redis_url)
            server_pid = next(p.popen.pid for p in launch.procs if p.role == "server")
            code = (await create_rooms(url, 1, args.players))[0]
            players = [Player(url, code, f"p{i}") for i in range(args.players)]
            for i, p in enumerate(players):
                await p.setup(["AS", "KH", "QD", "JC", "10S", "9H", "8D", "7C"][i % 8])
            tenth = args.moves // 10
            done = 0
            marks: list[tuple[float, int]] = [(time.monotonic(), cpu_ticks(server_pid) or 0)]
            acks: list[list[float]] = [[] for _ in range(10)]
            rng = random.Random(1)

            async def play(p: Player) -> None:
                nonlocal done
                while done < args.moves:
                    t = time.monotonic()
                    ok = await p.request(
                        "op",
                        {
                            "op": "move",
                            "id": p.card,
                            "x": round(rng.uniform(0, 1490), 2),
                            "y": round(rng.uniform(0, 850), 2),
                        },
                    )
                    if not ok:
                        raise RuntimeError("move refused")
                    if done < args.moves:
                        acks[min(done // tenth, 9)].append(time.monotonic() - t)
                        done += 1
                        if done % tenth == 0:
                            marks.append((time.monotonic(), cpu_ticks(server_pid) or 0))

            await asyncio.gather(*(play(p) for p in players))
            for p in players:
                await p.sio.disconnect()
        finally:
            launch.close()
    print(
        f"{args.target}: one room, {args.players} players, {args.moves:,} moves "
        "(closed loop, one move in flight per player)"
    )
    print(
        f"{'tenth':>5}  {'moves':>11}  {'moves/s':>7}  {'server ms/move':>14}  "
        f"{'ack p50 ms':>10}  {'ack p99 ms':>10}"
    )
    for i in range(min(10, len(marks) - 1)):
        (t0, c0), (t1, c1) = marks[i], marks[i + 1]
        lat = sorted(acks[i])
        p50, p99 = percentile(lat, 50) or 0.0, percentile(lat, 99) or 0.0
        print(
            f"{i + 1:>5}  {i * tenth + 1:>5}-{(i + 1) * tenth:<5}  {tenth / (t1 - t0):>7,.0f}"
            f"  {(c1 - c0) * TICK / tenth:>14.3f}  {p50 * 1e3:>10.2f}  {p99 * 1e3:>10.2f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.long", description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=30000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--target", choices=["cardtable", "cardtable-redis"], default="cardtable")
    args = ap.parse_args(argv)
    if args.moves < 10:
        ap.error("--moves: at least 10")
    use_uvloop()
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
