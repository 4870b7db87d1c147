"""Shared fixtures: a real redis-server on a free port, the real server on loopback, clients.

With ``CI=true`` a test that needs Redis or a browser and cannot get it fails instead of
skipping: a green CI must mean those tests ran.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web
from hypothesis import settings

from cardtable_client import TableClient
from server.app import create_app
from server.config import Config
from server.net.transport import Runner
from server.store.embedded import EmbeddedRedis, free_port
from server.store.redis_store import RedisStore
from server.table.encoding import CHECK_ENV
from tests.clusterredis import LocalCluster, redis7_available

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Every room blob spliced from cached pieces is checked against the whole table's encoding
# (server.table.encoding), here and in the servers tests start: the suite proves that nothing
# changes an object without marking it dirty.
os.environ.setdefault(CHECK_ENV, "1")

# Hypothesis profiles, chosen by HYPOTHESIS_PROFILE: "ci" (the default, and what `make test`
# runs) is every property test's full count; "dev" (`make test-fast`) a tenth of it. A test that
# wants more or fewer examples than the profile says so as a multiple of
# settings.default.max_examples, so both profiles scale it.
settings.register_profile("ci", max_examples=100)
settings.register_profile("dev", max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


CLUSTER_FIXTURES = {"redis_cluster", "private_cluster"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: runs on a real Redis Cluster (Redis >= 7)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that runs on a Redis Cluster ``cluster`` (``-m "not cluster"`` leaves
    them out, as ``make test-fast`` does): it asks for one, or ``redis_server`` is the cluster."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        on_cluster = callspec is not None and callspec.params.get("redis_server") == "cluster"
        if names & CLUSTER_FIXTURES or on_cluster:
            item.add_marker(pytest.mark.cluster)


def skip_or_fail(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"CI=true: cannot skip: {reason}")
    pytest.skip(reason)


def embedded_redis(data_dir: Path) -> EmbeddedRedis:
    """A redis-server on a free port. free_port() finds a port free only for a moment: if
    another worker's server binds it first, ours exits, and starts again on another port."""
    for attempt in range(3):
        try:
            return EmbeddedRedis(data_dir, port=free_port()).start()
        except RuntimeError as exc:
            if "exited" not in str(exc) or attempt == 2:
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One real redis-server for the session (rooms have unique codes, so tests share it)."""
    try:
        server = embedded_redis(tmp_path_factory.mktemp("redis"))
    except Exception as exc:  # pragma: no cover - depends on the machine
        skip_or_fail(f"redis-server unavailable: {exc}")
        raise
    yield server
    server.stop()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A redis-server of this test's own, for tests that kill and restart it."""
    server = embedded_redis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """One real Redis Cluster (3 masters, 1 replica each, Redis >= 7) for the session."""
    missing = redis7_available()
    if missing:
        skip_or_fail(f"Redis Cluster unavailable: {missing}")
    try:
        cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    except Exception as exc:  # pragma: no cover - depends on the machine
        skip_or_fail(f"Redis Cluster did not start: {exc}")
        raise
    yield cluster
    cluster.stop()


class OnCluster:
    """What a test of ``redis_server`` reads (its ``url``), pointing at the test cluster."""

    def __init__(self, cluster: LocalCluster) -> None:
        self.cluster = cluster
        self.url = cluster.url


def single_or_cluster(request: pytest.FixtureRequest, single: EmbeddedRedis) -> object:
    """For a ``redis_server`` fixture parametrised ``["redis", "cluster"]`` (tests/store and
    tests/social override it so): the session's one Redis, or the session's cluster."""
    if request.param == "cluster":
        return OnCluster(request.getfixturevalue("redis_cluster"))
    return single


@pytest.fixture
def private_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A Redis Cluster of this test's own, for tests that kill its nodes (fast failover)."""
    missing = redis7_available()
    if missing:
        skip_or_fail(f"Redis Cluster unavailable: {missing}")
    cluster = LocalCluster(tmp_path / "cluster", node_timeout_ms=1000).start()
    yield cluster
    cluster.stop()


@pytest.fixture
async def store(redis_server: EmbeddedRedis) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_server.url)
    yield s
    await s.close()


def make_config(redis_url: str, **overrides: object) -> Config:
    cfg = Config(redis_url=redis_url, port=0)
    # Tests drive many clients from one address and fire ops quickly; limits have their own tests.
    cfg.joins_per_minute = 10_000
    cfg.misses_per_minute = 10_000
    cfg.misses_per_day = 100_000
    cfg.ops_per_second = 10_000.0
    cfg.ops_burst = 10_000
    for k, v in overrides.items():
        setattr(cfg, k, v)
    return cfg


class RunningServer:
    def __init__(self, runner: web.AppRunner, port: int, app: web.Application) -> None:
        self.runner = runner
        self.port = port
        self.app = app
        self.url = f"http://127.0.0.1:{port}"

    async def client(self) -> TableClient:
        return await TableClient(self.url).connect()

    async def stop(self, timeout: float = 20.0) -> None:
        """Shut the server down; if that hangs, say what is stuck instead of hanging the suite."""
        try:
            await asyncio.wait_for(self.runner.cleanup(), timeout)
        except TimeoutError:
            out = sys.__stderr__
            print(f"\n!! server shutdown took over {timeout} s; tasks still pending:", file=out)
            for task in asyncio.all_tasks():
                print(" ", task, file=out)
                task.print_stack(limit=8, file=out)


async def start_server(config: Config) -> RunningServer:
    app = create_app(config)
    runner = Runner(app, handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    return RunningServer(runner, port, app)


@pytest.fixture
async def server(redis_server: EmbeddedRedis) -> AsyncIterator[RunningServer]:
    running = await start_server(make_config(redis_server.url))
    yield running
    await running.stop()


@pytest.fixture
async def make_client(server: RunningServer) -> AsyncIterator[object]:
    clients: list[TableClient] = []

    async def make() -> TableClient:
        c = await server.client()
        clients.append(c)
        return c

    yield make
    for c in clients:
        await c.close()


async def new_room(server: RunningServer, template: str = "standard", seats: int = 4) -> str:
    import aiohttp

    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"template": template, "seats": seats}) as resp,
    ):
        assert resp.status == 201, await resp.text()
        return str((await resp.json())["code"])
