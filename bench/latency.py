"""``python -m bench.latency``: where a paced move's latency goes, beside the bare server.

Runs the paced phase of :mod:`bench` (``--paced-only``) for ``baseline`` and
``cardtable-spans``: the real ``cardtable serve`` (embedded store) started
through ``python -m bench.latency serve``, which times each step of the commit path in the
server process (``time.perf_counter``; wrappers around the room service's own functions, no
behaviour changed) and, at shutdown, writes their percentiles and Redis's own figures
(``INFO commandstats``: the commit script's time inside Redis) to a JSON file:

* ``op`` — the socket handler of one ``op`` (parse, the room service, the ``ack`` queued);
* ``mutate`` — the room service's whole change, lock included; ``lock_wait`` — waiting for the
  room's lock (another operation of the room in flight);
* ``reduce``, ``build_deltas``, ``encode_table`` (the room's blob: ``encode_room``, which
  splices in the pieces of the previous commit), ``encode_entry`` (the op-log entry);
* ``commit`` — the commit's round trip to Redis (script, AOF write and fsync, reply);
* ``feed_lag`` — a commit's entry waiting in its room's feed queue before it is sent;
* ``blob_kb`` — the room's encoded size (KB), which every commit writes whole;
* ``ping`` — a bare round trip to Redis (PING, 50 a second): the floor under ``commit``;
* ``gc0``, ``gc1``, ``gc2`` — the cyclic garbage collector's pauses, by generation;
* ``loop_lag`` — how late a 5 ms timer of the event loop fires (other work holding the loop).

``--fsync always|everysec`` sets the embedded store's ``appendfsync``; ``--redis`` uses a
redis-server on TCP instead. Other flags go to ``python -m bench`` (``--rooms``, ``--seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from bench.report import percentile

SPANS_ENV = "CARDTABLE_BENCH_SPANS"


class Spans:
    """Durations (ms) by name."""

    def __init__(self) -> None:
        self.by: dict[str, list[float]] = {}

    def add(self, name: str, ms: float) -> None:
        self.by.setdefault(name, []).append(ms)

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.add(name, (time.perf_counter() - t) * 1e3)

        return wrapper

    def timed_async(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def wrapper(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*a, **k)
            finally:
                self.add(name, (time.perf_counter() - t) * 1e3)

        return wrapper

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for name, values in self.by.items():
            v = sorted(values)
            out[name] = {
                "n": len(v),
                "p50": percentile(v, 50) or 0.0,
                "p99": percentile(v, 99) or 0.0,
                "mean": sum(v) / len(v),
            }
        return out


def _instrument(spans: Spans) -> None:
    """Wrap the commit path's steps with timers (module attributes: the code itself unchanged)."""
    from server import metrics
    from server.net import sockets
    from server.room import service
    from server.store.redis_store import RedisStore

    for name in ("reduce", "build_deltas"):
        setattr(service, name, spans.timed(name, getattr(service, name)))
    # The room's blob, spliced from the previous commit's pieces (server.table.encoding).
    encode_room = spans.timed("encode_table", service.encode_room)

    def sized(*a: Any, **k: Any) -> Any:  # the room's blob: written whole (and fsynced) per commit
        spliced = encode_room(*a, **k)
        spans.add("blob_kb", len(spliced.blob) / 1024)
        return spliced

    service.encode_room = sized
    service._pack = spans.timed("encode_entry", service._pack)
    RedisStore.commit = spans.timed_async("commit", RedisStore.commit)  # type: ignore[method-assign]
    service.RoomService._maybe_mutate = spans.timed_async(  # type: ignore[method-assign]
        "mutate", service.RoomService._maybe_mutate
    )
    sockets.SocketHandlers.on_op = spans.timed_async(  # type: ignore[method-assign]
        "op", sockets.SocketHandlers.on_op
    )
    lock = service.RoomService._lock

    @contextlib.asynccontextmanager
    async def timed_lock(self: Any, code: str) -> AsyncIterator[None]:
        t = time.perf_counter()
        async with lock(self, code):
            spans.add("lock_wait", (time.perf_counter() - t) * 1e3)
            yield

    service.RoomService._lock = timed_lock  # type: ignore[method-assign]
    observe = metrics.FEED_LAG.observe

    def feed_lag(seconds: float, *a: Any, **k: Any) -> None:
        spans.add("feed_lag", seconds * 1e3)
        observe(seconds, *a, **k)

    metrics.FEED_LAG.observe = feed_lag  # type: ignore[method-assign,assignment]
    started: list[float] = []

    def gc_pause(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            spans.add(f"gc{info['generation']}", (time.perf_counter() - started[0]) * 1e3)

    gc.callbacks.append(gc_pause)


async def _loop_lag(spans: Spans, redis: Any) -> None:
    n = 0
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.005)
        spans.add("loop_lag", (time.perf_counter() - t) * 1e3 - 5.0)
        n += 1
        if redis is not None and n % 4 == 0:  # a bare round trip to the store, 50 a second
            t = time.perf_counter()
            with contextlib.suppress(Exception):
                await redis.ping()
                spans.add("ping", (time.perf_counter() - t) * 1e3)


def serve(argv: list[str]) -> int:
    """``cardtable serve`` with the timers in; writes the figures to $CARDTABLE_BENCH_SPANS."""
    from aiohttp import web

    from bench import use_uvloop

    use_uvloop()
    from server.__main__ import config_from_args
    from server.app import ROOMS_KEY, create_app

    spans = Spans()
    _instrument(spans)
    cfg = config_from_args(["serve", *argv])
    app = create_app(cfg)
    tasks: list[asyncio.Task[None]] = []

    async def start(app: web.Application) -> None:
        # on_startup runs the store's cleanup context first (aiohttp puts it there at creation)
        redis = getattr(app[ROOMS_KEY].store, "redis", None)
        tasks.append(asyncio.create_task(_loop_lag(spans, redis)))

    async def dump(app: web.Application) -> None:
        tasks[0].cancel()
        out: dict[str, Any] = {"spans": spans.summary()}
        with contextlib.suppress(Exception):
            redis = app[ROOMS_KEY].store.redis  # type: ignore[attr-defined]
            out["commandstats"] = await redis.info("commandstats")
            out["persistence"] = {
                k: v
                for k, v in (await redis.info("persistence")).items()
                if k.startswith("aof_") and isinstance(v, int | float)
            }
        Path(os.environ[SPANS_ENV]).write_text(json.dumps(out, indent=1))

    app.on_startup.append(start)
    app.on_shutdown.append(dump)
    web.run_app(app, host=cfg.host, port=cfg.port, print=lambda m: print(m, flush=True))
    return 0


def _target(redis: bool, fsync: str | None) -> Any:
    """A bench target: the instrumented server (the same flags as the ``cardtable`` target)."""
    from bench.targets import HOST, Target, free_port

    def start(launch: Any) -> list[str]:
        data = launch._dir("spans")
        port = free_port()
        args = [sys.executable, "-m", "bench.latency", "serve", "--host", HOST]
        args += ["--port", str(port), "--log-level", "warning"]
        for flag in ("ops-per-second", "ops-burst", "joins-per-minute", "misses-per-minute"):
            args += [f"--{flag}", "1000000000"]
        args += ["--misses-per-day", "1000000000"]
        if fsync:
            args += ["--fsync", fsync]
        args += ["--redis-url", launch.redis()] if redis else ["--data-dir", str(data / "var")]
        proc = launch._spawn("server", f"spans-{port}", args, data)
        url = f"http://{HOST}:{port}"
        launch._wait_http(proc, url)
        return [url]

    return Target("cardtable-spans", "cardtable serve with the commit path timed", start)


def _evalsha_us(stats: dict[str, Any]) -> str:
    calls = [v for k, v in stats.items() if k in ("cmdstat_evalsha", "cmdstat_eval")]
    if not calls:
        return "-"
    n = sum(c["calls"] for c in calls)
    us = sum(c["usec"] for c in calls)
    return f"{us / max(n, 1) / 1e3:.3f} ms mean over {n} scripts"


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        return serve(argv[1:])
    redis = "--redis" in argv
    rest = [a for a in argv if a not in ("--redis", "--")]
    fsync = None
    if "--fsync" in rest:  # the embedded store's appendfsync (always, everysec, no)
        i = rest.index("--fsync")
        fsync, rest = rest[i + 1], rest[:i] + rest[i + 2 :]
    import bench.__main__ as bench_main
    from bench.targets import TARGETS

    TARGETS.append(_target(redis, fsync))
    out = Path(tempfile.mkdtemp(prefix="spans")) / "spans.json"
    os.environ[SPANS_ENV] = str(out)
    code = bench_main.main(["--targets", "baseline,cardtable-spans", "--paced-only", *rest])
    if not out.exists():
        print("no figures from the server", file=sys.stderr)
        return 1
    got = json.loads(out.read_text())
    print("\nwhere a cardtable move's time goes, server side (ms; paced phase and warm-up):")
    print(f"{'step':<14} {'n':>7} {'p50':>7} {'p99':>7} {'mean':>7}")
    for name in (
        "op",
        "mutate",
        "lock_wait",
        "reduce",
        "build_deltas",
        "encode_table",
        "encode_entry",
        "commit",
    ):
        s = got["spans"].get(name)
        if s:
            print(f"{name:<14} {s['n']:>7} {s['p50']:>7.3f} {s['p99']:>7.3f} {s['mean']:>7.3f}")
    for name in ("blob_kb", "ping", "feed_lag", "loop_lag", "gc0", "gc1", "gc2"):
        s = got["spans"].get(name)
        if s:
            print(f"{name:<14} {s['n']:>7} {s['p50']:>7.3f} {s['p99']:>7.3f} {s['mean']:>7.3f}")
    print("commit script inside Redis:", _evalsha_us(got.get("commandstats", {})))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
