"""Scale benchmark: many memories across users, then GET /recall latency on the embedded default.

1. Generates N memories for U users (bench/textgen.py, seeded) and ingests them with
   POST /memory/batch (500 per call, one key per user): acknowledged memories/s.
2. Waits until every memory is embedded (GET /enrichment/status: embed jobs pending + scheduled
   + in flight == 0), printing progress, RSS and the embedding rate to stderr.
3. Times GET /recall (limit 10) sequentially over one keep-alive `http.client` connection
   (see StdlibClient), queries spread over the users, each query in random order: text only
   (the service embeds the query), text + a precomputed `embedding=` (no embedding in the
   service), and text only again from httpx (the client of earlier runs). The query embedding
   alone is timed in this process with the same local model and thread count. Reports wall
   p50/p95/p99, the server's own query_time_ms and its per-step timings_ms (embed, search,
   graph: one after the other), and a hit rate for queries that target a known memory (a
   sanity check, not a quality benchmark).
4. Reports RSS of Engram and of its FalkorDB server, on-disk size of data/falkordb and
   data/qdrant, the latency of a few other endpoints at this size, and the load average.

--supplied-vectors (the growth curve, bench/results/2026-12-02-growth.md): every memory is posted
with its own `embedding`, so the service mirrors it at once and queues no embed job. The vectors
resemble real ones: the first --vector-pool (5,000) generated memories are embedded once in this
process with the service's local model (one thread; the text as the service would embed it, its
day in front, app.storage.mirror.dated) and cached in the data dir; memory i < pool gets the
vector of its own text, any later memory the vector of a pool member drawn with a generator
seeded by (seed, i), plus Gaussian noise (sigma --vector-noise per dimension, 0.02: cosine ~0.93
to the member), normalised. A memory's vector therefore matches its own text only inside the pool,
so the hit rate of targeted queries means little in this mode. Queries are still sent as text,
embedded by the service. Engram runs with ENRICHMENT_ENABLED=false and without the scheduled
graph/vector sync, raw retention and consolidation (SUPPLIED_VECTOR_ENV); a memory with a given
vector gets no embed job and therefore no `windows` job. The store grows in place: with
--keep-data, a run with a larger --memories ingests only the memories not yet acknowledged (the
generator is prefix-stable, so the first 10k of 100k are the 10k of an earlier run; batches are
numbered by their first memory's index). An 8-client pass (--clients) reports recalls/s and the
CPU ms per recall of Engram and of its FalkorDB server (utime + stime from /proc).

Engram is started as `python -m app` on the embedded default (ENGRAM_WORKERS=2, local embedder)
in a temporary data dir, or in --keep-data DIR: rerunning with the same DIR resumes (batches
already acknowledged are skipped; Engram re-queues any memory not yet embedded at start-up).
--base-url/--api-key reuse a running server instead.

--index-vectors builds the embedded vector index's HNSW graphs (POST /admin/vectors/index) after
the ingest and before recall is timed, and reports the build's seconds; without it recall is
timed on the index as ingested (exact search, as the service leaves it).

Usage: .venv/bin/python bench/scale.py [--memories 100000] [--users 10] [--queries 500]
       [--keep-data DIR] [--base-url URL --api-key K1,K2,... [--admin-key K] [--data-dir DIR]]
       [--supplied-vectors [--vector-pool 5000] [--vector-noise 0.02]] [--clients 8]
       [--index-vectors]
"""

import argparse
import asyncio
import hashlib
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import redis

from bench import textgen
from bench._engram import free_port, percentiles, start_engram, stop_engram, wait_ready
from bench.concurrency import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]

BATCH_SIZE = 500
STATE_FILE = "scale_state.jsonl"
BATCH_TAG = "bench-batch"
RETRIES = 5
TARGET_P50_MS, TARGET_P95_MS = 15.0, 40.0
MB = 1024 * 1024
STUCK_AFTER_S = 90
IDLE_GIVE_UP_S = 60
SYNC_WAIT_S = 300
POOL_FILE = "vector_pool.npy"
# Background work that is not what --supplied-vectors measures and would take hours at 1M
# memories (entity extraction ~100 memories/s), or could start in the middle of a timing (the
# hourly graph/vector sync and raw retention, the daily decay and forgetting, weekly clusters).
SUPPLIED_VECTOR_ENV = {
    "ENRICHMENT_ENABLED": "false",
    "SYNC_INTERVAL_S": "0",
    "CONSOLIDATION_DECAY_INTERVAL_SECONDS": "0",
    "CONSOLIDATION_FORGET_INTERVAL_SECONDS": "0",
    "CONSOLIDATION_CLUSTER_INTERVAL_SECONDS": "0",
    "CONSOLIDATION_FSCK_INTERVAL_SECONDS": "0",
}
UNEMBEDDED = "MATCH (m:Memory) WHERE m.embedding_status <> 'done' RETURN count(m)"


def log(message: str) -> None:
    """A progress line on stderr."""
    sys.stderr.write(f"[scale {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


# --- The server -------------------------------------------------------------------------------


@dataclass
class Server:
    """Where Engram is and how to call it; `process` is set when this script started it."""

    base: str
    keys: list[str]  # one per user index (reused round-robin if fewer)
    admin_key: str | None
    data_dir: Path | None
    process: Any = None
    pid: int | None = None
    falkor_port: int | None = None  # the embedded FalkorDB, when this script started Engram

    def key(self, user: int) -> str:
        return self.keys[user % len(self.keys)]

    def alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"Engram exited with code {self.process.returncode}")


def user_keys(people: list[textgen.Persona], seed: int) -> dict[str, str]:
    """Deterministic API keys (key -> user_id), so that a resumed run finds its users again."""
    keys = {}
    for person in people:
        digest = hashlib.sha256(f"{seed}/{person.user_id}".encode()).hexdigest()[:24]
        keys[f"scale-{person.user_id}-{digest}"] = person.user_id
    return keys


@contextmanager
def own_server(
    data_dir: Path,
    people: list[textgen.Persona],
    seed: int,
    root: Path = ROOT,
    extra_env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Starts Engram (from the source tree `root`) on the embedded default with one key per
    user (and `extra_env`); stops it afterwards."""
    keys = user_keys(people, seed)
    admin = "scale-admin-" + hashlib.sha256(f"admin/{seed}".encode()).hexdigest()[:24]
    env = {
        "ENGRAM_API_KEYS": json.dumps(keys),
        "ENGRAM_ADMIN_KEY": admin,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENGRAM_WORKERS": "2",
        "EMBEDDING_PROVIDER": "local",
        **(extra_env or {}),
    }
    port, falkor_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_patiently(data_dir, port, falkor_port, env, root)
    server = Server(base, list(keys), admin, data_dir, process, process.pid, falkor_port)
    try:
        yield server
    finally:
        log("stopping Engram")
        stop_engram(process, timeout=180)
        stop_orphaned_falkordb(data_dir)


def start_patiently(
    data_dir: Path, port: int, falkor_port: int, env: dict[str, str], root: Path, attempts: int = 8
) -> Any:
    """Starts Engram; again (same ports) while it gives up waiting for its FalkorDB, which it
    leaves loading (a 1M-memory AOF takes ~70 s here, the embedded server's start timeout is
    30 s): the next start adopts the live server from its pidfile, as the error message says."""
    for attempt in range(1, attempts + 1):
        process = start_engram(data_dir, port, falkor_port, env=env, root=root)
        try:
            wait_ready(f"http://127.0.0.1:{port}", timeout=600, process=process)
            return process
        except RuntimeError:
            if attempt == attempts or not falkordb_alive(data_dir):
                stop_orphaned_falkordb(data_dir)
                raise
            log(f"Engram did not start (attempt {attempt}), its FalkorDB is still loading: again")


def falkordb_alive(data_dir: Path) -> bool:
    try:
        pid = int((data_dir / "falkordb" / "redis.pid").read_text().strip())
    except (OSError, ValueError):
        return False
    return Path(f"/proc/{pid}").exists()


def stop_orphaned_falkordb(data_dir: Path, timeout: float = 120) -> None:
    """Stops the embedded FalkorDB if it outlived Engram (Engram leaves it running when it gives
    up waiting for it at start-up); the next start would open a second server on the same files."""
    pid_file = data_dir / "falkordb" / "redis.pid"
    try:
        pid = int(pid_file.read_text().strip())
        if Path(f"/proc/{pid}/cwd").resolve() != (data_dir / "falkordb").resolve():
            return
    except (OSError, ValueError):
        return
    log(f"the embedded FalkorDB (pid {pid}) outlived Engram: stopping it")
    os.kill(pid, 15)
    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(1)


def listening_pid(port: int) -> int | None:
    """The pid of the process listening on 127.0.0.1:`port` (from /proc), if visible."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{parts[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    return None


def reused_server(args: argparse.Namespace) -> Server:
    """A running server given by --base-url / --api-key (comma-separated, one per user)."""
    keys = [k.strip() for k in args.api_key.split(",") if k.strip()]
    if not keys:
        raise SystemExit("--base-url needs --api-key (one key, or one per user, comma-separated)")
    base = args.base_url.rstrip("/")
    pid = listening_pid(httpx.URL(base).port or 80)
    return Server(base, keys, args.admin_key, args.data_dir, None, pid)


# --- Process figures --------------------------------------------------------------------------


def proc_status(pid: int | None) -> dict[str, float] | None:
    """RSS, peak RSS, anonymous / file-backed RSS (MB) and CPU seconds of a process."""
    if pid is None:
        return None
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    fields = {
        line.split(":")[0]: line.split()[1] for line in status if line.startswith(("Vm", "Rss"))
    }
    size = lambda name: round(int(fields.get(name, 0)) / 1024, 1)  # noqa: E731
    ticks = os.sysconf("SC_CLK_TCK")
    return {
        "rss_mb": size("VmRSS"),
        "hwm_mb": size("VmHWM"),
        "anon_mb": size("RssAnon"),  # heap: Python objects, ONNX arena, the Edge shard's memory
        "file_mb": size("RssFile"),  # mapped files: libraries, the Edge shard's mmapped segments
        "cpu_s": round((int(stat[11]) + int(stat[12])) / ticks, 1),
    }


def redis_pid(server: Server) -> int | None:
    """The embedded FalkorDB server's pid, from <data_dir>/falkordb/redis.pid."""
    if server.data_dir is None:
        return None
    try:
        return int((server.data_dir / "falkordb" / "redis.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def snapshot(server: Server) -> dict[str, Any]:
    """RSS / peak RSS / CPU seconds of Engram and of its FalkorDB server, now."""
    return {"engram": proc_status(server.pid), "falkordb": proc_status(redis_pid(server))}


def disk_mb(path: Path) -> float | None:
    """Allocated size of a directory tree in MB (like du), or None if it does not exist."""
    if not path.exists():
        return None
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return round(total / MB, 1)


# --- Ingestion --------------------------------------------------------------------------------


class Vectors:
    """The supplied vector of each generated memory (see the module docstring): a pool member's
    own, or a pool member's plus seeded Gaussian noise, normalised; deterministic per index."""

    def __init__(self, pool: np.ndarray, seed: int, noise: float) -> None:
        self.pool, self.seed, self.noise = pool, seed, noise

    def of(self, index: int) -> list[float]:
        if index < len(self.pool):
            vector = self.pool[index].astype(np.float64)
        else:
            rng = np.random.default_rng([self.seed, index])
            member = self.pool[int(rng.integers(len(self.pool)))].astype(np.float64)
            vector = member + rng.normal(0.0, self.noise, member.shape[0])
        vector /= np.linalg.norm(vector)
        return np.round(vector, 6).tolist()  # short JSON; the store keeps float16 anyway


def pool_texts(items: list[textgen.GenMemory], size: int) -> list[str]:
    """What the service's embed job would embed for the first `size` memories."""
    from app.storage.mirror import dated

    return [dated(m.content, m.timestamp, with_date=True) for m in items[:size]]


async def embed_pool(texts: list[str]) -> np.ndarray:
    """The local model's vectors of `texts` (one thread, batches of 64), float32."""
    from app.embeddings import create_embedder

    embedder = create_embedder("local", threads=1)
    rows: list[list[float]] = []
    try:
        for start in range(0, len(texts), 64):
            rows += await embedder.embed(texts[start : start + 64])
            if start % 1024 == 0:
                log(f"vector pool: {len(rows)}/{len(texts)} embedded")
    finally:
        await embedder.close()
    return np.asarray(rows, dtype=np.float32)


def load_vectors(args: argparse.Namespace, items: list[textgen.GenMemory]) -> Vectors:
    """The pool embedded once (cached as <keep-data>/vector_pool.npy) and the generator."""
    size = min(args.vector_pool, len(items))
    cache = args.keep_data / POOL_FILE if args.keep_data else None
    if cache is not None and cache.exists():
        pool = np.load(cache)
        if len(pool) < size:
            raise SystemExit(f"{cache} holds {len(pool)} vectors, fewer than --vector-pool {size}")
        pool = pool[:size]
        log(f"vector pool: {len(pool)} vectors from {cache}")
    else:
        started = time.perf_counter()
        pool = asyncio.run(embed_pool(pool_texts(items, size)))
        log(f"vector pool: {len(pool)} texts embedded in {time.perf_counter() - started:.1f} s")
        if cache is not None:
            np.save(cache, pool)
    return Vectors(pool, args.seed, args.vector_noise)


@dataclass
class Batch:
    number: int
    user: int
    items: list[textgen.GenMemory]
    vectors: Vectors | None = None

    @property
    def tag(self) -> str:
        return f"{BATCH_TAG}:{self.number:05d}"

    def body(self) -> dict[str, Any]:
        memories = [{**m.body(), "tags": [*m.tags, self.tag]} for m in self.items]
        if self.vectors is not None:
            for memory, item in zip(memories, self.items, strict=True):
                memory["embedding"] = self.vectors.of(item.index)
        return {"memories": memories}


def plan_growth(
    items: list[textgen.GenMemory], ids: dict[int, str], users: int, vectors: Vectors
) -> list[Batch]:
    """The memories not yet acknowledged, in batches numbered by their first memory's index
    (unique however far the store has grown)."""
    pending = [m for m in items if m.index not in ids]
    batches = plan_batches(pending, users, BATCH_SIZE)
    return [Batch(b.items[0].index, b.user, b.items, vectors) for b in batches]


def plan_batches(items: list[textgen.GenMemory], users: int, size: int) -> list[Batch]:
    """Each user's memories in chunks of `size`, users taking turns."""
    per_user = [[m for m in items if m.user == u] for u in range(users)]
    chunks = [[p[i : i + size] for i in range(0, len(p), size)] for p in per_user]
    batches: list[Batch] = []
    for round_ in range(max((len(c) for c in chunks), default=0)):
        for user, user_chunks in enumerate(chunks):
            if round_ < len(user_chunks):
                batches.append(Batch(len(batches), user, user_chunks[round_]))
    return batches


class State:
    """Acknowledged batches (and their memory ids), appended to a JSONL file if kept."""

    def __init__(self, path: Path | None, header: dict[str, Any]) -> None:
        self.path = path
        self.ids: dict[int, str] = {}  # generated index -> memory id
        self.done: set[int] = set()
        if path is None:
            return
        if path.exists():
            self._load(path, header)
        else:
            path.write_text(json.dumps(header) + "\n")

    def _load(self, path: Path, header: dict[str, Any]) -> None:
        lines = path.read_text().splitlines()
        if json.loads(lines[0]) != header:
            raise SystemExit(f"{path} was written for {lines[0]}, not {json.dumps(header)}")
        for line in lines[1:]:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by a crash: that batch is redone
                continue
            self.done.add(record["batch"])
            self.ids.update({int(k): v for k, v in record["ids"].items()})

    def record(self, batch: Batch, ids: list[str]) -> None:
        mapping = {m.index: memory_id for m, memory_id in zip(batch.items, ids, strict=True)}
        self.ids.update(mapping)
        self.done.add(batch.number)
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps({"batch": batch.number, "ids": mapping}) + "\n")


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def recover(client: httpx.Client, key: str, batch: Batch) -> list[str] | None:
    """The ids of a batch that was stored although its response was lost (found by its tag)."""
    found: list[dict[str, Any]] = []
    while True:
        params = {"tags": batch.tag, "limit": 200, "offset": len(found)}
        response = client.get("/memory/by-tag", params=params, headers=auth(key), timeout=60)
        response.raise_for_status()
        page = response.json()
        found += page["memories"]
        if not page["has_more"]:
            break
    if not found:
        return None
    if len(found) != len(batch.items):
        raise RuntimeError(f"batch {batch.number}: {len(found)} of {len(batch.items)} stored")
    by_content: dict[str, list[str]] = {}
    for memory in found:
        by_content.setdefault(memory["content"], []).append(memory["id"])
    return [by_content[m.content].pop() for m in batch.items]


def post_batch(
    client: httpx.Client, server: Server, batch: Batch, stats: dict[str, Any]
) -> list[str]:
    """POST /memory/batch with retries; after a failure, checks whether it was stored anyway."""
    key = server.key(batch.user)
    for attempt in range(1, RETRIES + 1):
        started = time.perf_counter()
        try:
            response = client.post(
                "/memory/batch", json=batch.body(), headers=auth(key), timeout=300
            )
            if response.status_code == 201:
                stats["wall_ms"].append(ms_since(started))
                stats["server_ms"].append(response.json()["query_time_ms"])
                return response.json()["memory_ids"]
            if 400 <= response.status_code < 500 and response.status_code != 429:
                raise RuntimeError(f"batch {batch.number}: {response.status_code} {response.text}")
            error = f"HTTP {response.status_code}: {response.text[:200]}"
        except httpx.HTTPError as exc:
            error = repr(exc)
        stats["errors"].append(f"batch {batch.number} attempt {attempt}: {error}")
        log(f"batch {batch.number} failed (attempt {attempt}): {error}")
        server.alive()
        time.sleep(min(2**attempt, 30))
        try:
            recovered = recover(client, key, batch)
        except httpx.HTTPError as exc:
            log(f"batch {batch.number}: cannot check whether it was stored: {exc!r}")
            continue
        if recovered is not None:
            stats["recovered"] += 1
            return recovered
    raise RuntimeError(f"batch {batch.number} failed {RETRIES} times")


def embed_outstanding(client: httpx.Client, key: str) -> tuple[int, dict[str, Any], float]:
    """Embed jobs pending + scheduled + in flight, the embed figures, and the call's ms."""
    started = time.perf_counter()
    response = client.get("/enrichment/status", headers=auth(key), timeout=60)
    elapsed = ms_since(started)
    response.raise_for_status()
    embed = response.json()["jobs"].get("embed", {})
    outstanding = sum(embed.get(k, 0) for k in ("pending", "scheduled", "in_flight"))
    return outstanding, embed, elapsed


def ingest(
    client: httpx.Client, server: Server, batches: list[Batch], state: State
) -> dict[str, Any]:
    """Posts every batch not yet acknowledged; returns rate and per-batch latency."""
    todo = [b for b in batches if b.number not in state.done]
    stats: dict[str, Any] = {"wall_ms": [], "server_ms": [], "errors": [], "recovered": 0}
    total = sum(len(b.items) for b in todo)
    log(f"ingesting {total} memories in {len(todo)} batches ({len(state.done)} done before)")
    started, sent, last_report = time.perf_counter(), 0, time.perf_counter()
    for batch in todo:
        state.record(batch, post_batch(client, server, batch, stats))
        sent += len(batch.items)
        if time.perf_counter() - last_report > 15 or sent == total:
            last_report = time.perf_counter()
            rate = sent / (last_report - started)
            queued, _, _ = embed_outstanding(client, server.key(0))
            log(f"ingested {sent}/{total} ({rate:.0f}/s); embed jobs outstanding {queued}")
    seconds = time.perf_counter() - started
    return {
        "memories": total,
        "batches": len(todo),
        "skipped_batches": len(batches) - len(todo),
        "seconds": round(seconds, 1),
        "memories_per_s": round(total / seconds, 1) if total else None,
        "batch_wall": percentiles(stats["wall_ms"]) if stats["wall_ms"] else None,
        "batch_server": percentiles(stats["server_ms"]) if stats["server_ms"] else None,
        "batch_max_ms": round(max(stats["wall_ms"]), 1) if stats["wall_ms"] else None,
        "errors": stats["errors"],
        "recovered_batches": stats["recovered"],
    }


def unembedded(server: Server) -> int | None:
    """Memories whose embedding is not done, counted in the graph (own server only)."""
    if server.falkor_port is None:
        return None
    graph = os.environ.get("FALKORDB_GRAPH", "engram")
    try:
        with redis.Redis(port=server.falkor_port, socket_timeout=60) as connection:
            rows = connection.execute_command("GRAPH.RO_QUERY", graph, UNEMBEDDED)
        return int(rows[1][0][0])
    except (redis.RedisError, IndexError, ValueError):
        return None


@dataclass
class Watch:
    """What the wait for embedding saw."""

    since: float
    timeline: list[dict[str, Any]] = field(default_factory=list)
    status_ms: list[float] = field(default_factory=list)
    embedded_at: float | None = None  # every memory embedded (graph count 0, or no job left)
    idle_polls: int = 0  # consecutive polls with no embed job outstanding
    idle_since: float | None = None  # when the current run of idle polls began
    outcome: str = "waiting"

    def observe(self, outstanding: int, left: int | None, now: float) -> None:
        self.idle_polls = self.idle_polls + 1 if outstanding == 0 else 0
        self.idle_since = (self.idle_since or now) if outstanding == 0 else None
        done = left == 0 if left is not None else self.idle_polls >= 2
        if done and self.embedded_at is None:
            self.embedded_at = now
        if self.idle_polls >= 2 and left in (0, None):
            self.outcome = "complete"
        elif self.idle_polls >= 3 and now - (self.idle_since or now) > IDLE_GIVE_UP_S:
            # Not at once: a start-up's backlog scan reads every unembedded id before it queues.
            self.outcome = f"no job left but {left} memories not embedded (failed or dead jobs?)"
        elif self.embedded_at is not None and now - self.embedded_at > STUCK_AFTER_S:
            self.outcome = f"every memory embedded, but {outstanding} embed jobs stuck"


def wait_embedded(
    client: httpx.Client, server: Server, memories: int, since: float, timeout: float
) -> dict[str, Any]:
    """Polls /enrichment/status (and the graph's count) until every memory is embedded and no
    job is left, or jobs are stuck, or `timeout`; samples RSS on the way."""
    watch, last_log, deadline = Watch(since), -30.0, time.monotonic() + timeout
    while watch.outcome == "waiting":
        server.alive()
        outstanding, embed, elapsed = embed_outstanding(client, server.key(0))
        now = time.perf_counter() - since
        few = outstanding <= 2 * len(server.keys)
        left = unembedded(server) if few or now - last_log >= 30 else None
        watch.status_ms.append(elapsed)
        watch.timeline.append(
            {
                "t_s": round(now, 1),
                "outstanding_jobs": outstanding,
                "done_jobs": embed.get("done"),
                "unembedded": left,
                **flat(snapshot(server)),
            }
        )
        watch.observe(outstanding, left, now)
        if watch.outcome == "waiting" and time.monotonic() > deadline:
            watch.outcome = f"timed out after {timeout:.0f} s: {outstanding} jobs, {left} memories"
        if now - last_log >= 30:
            last_log = now
            log(
                f"embedding: {left} memories not embedded, {outstanding} jobs outstanding, "
                f"{embed.get('done')} done, {_rss_line(watch.timeline[-1])}"
            )
        if watch.outcome == "waiting":
            time.sleep(2 if few else 5)
    log(f"embedding wait over: {watch.outcome}")
    seconds = round(watch.embedded_at, 1) if watch.embedded_at is not None else None
    return {
        "outcome": watch.outcome,
        "seconds_since_first_batch": seconds,
        "memories_per_s": round(memories / seconds, 1) if seconds else None,
        "unembedded_at_end": watch.timeline[-1]["unembedded"],
        "embed_jobs": {k: embed.get(k) for k in ("pending", "in_flight", "done", "failed", "dead")},
        "peak_rss_mb": {
            name: max((s.get(f"{name}_rss_mb") or 0) for s in watch.timeline)
            for name in ("engram", "falkordb")
        },
        "enrichment_status_ms": percentiles(watch.status_ms),
        "timeline": thin(watch.timeline, 40),
    }


def wait_jobs_drained(
    client: httpx.Client, server: Server, kind: str, since: float, timeout: float
) -> dict[str, Any]:
    """Waits until no job of `kind` is pending, scheduled or in flight (steady state: recall is
    timed after the background work a write causes, not during it)."""
    deadline, idle = time.monotonic() + timeout, 0
    while idle < 2 and time.monotonic() < deadline:
        response = client.get("/enrichment/status", headers=auth(server.key(0)), timeout=60)
        jobs = response.json()["jobs"].get(kind, {})
        outstanding = sum(jobs.get(k, 0) for k in ("pending", "scheduled", "in_flight"))
        idle = idle + 1 if outstanding == 0 else 0
        if idle < 2:
            log(f"{kind}: {outstanding} jobs outstanding, {jobs.get('done')} done")
            time.sleep(10 if outstanding > 10 else 2)
    seconds = round(time.perf_counter() - since, 1)
    return {
        "outcome": "complete" if idle >= 2 else "timed out",
        "seconds_since_first_batch": seconds,
        "jobs": jobs,
    }


def all_jobs(client: httpx.Client, server: Server) -> dict[str, dict[str, int]]:
    """The job counts of every kind that has any (GET /enrichment/status)."""
    response = client.get("/enrichment/status", headers=auth(server.key(0)), timeout=60)
    jobs = response.json()["jobs"]
    return {kind: {k: v for k, v in c.items() if v} for kind, c in jobs.items() if any(c.values())}


def flat(snap: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, figures in snap.items():
        for key, value in (figures or {}).items():
            out[f"{name}_{key}"] = value
    return out


def _rss_line(sample: dict[str, Any]) -> str:
    return (
        f"RSS engram {sample.get('engram_rss_mb')} MB, falkordb {sample.get('falkordb_rss_mb')} MB"
    )


def thin(samples: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """At most `keep` evenly spaced samples (first and last kept)."""
    if len(samples) <= keep:
        return samples
    step = (len(samples) - 1) / (keep - 1)
    return [samples[round(i * step)] for i in range(keep)]


# --- Recall -----------------------------------------------------------------------------------


async def embed_queries(texts: list[str]) -> tuple[list[list[float]], list[float], float]:
    """Vectors of the query texts with the service's local model, and ms per embed_query."""
    from app.embeddings import create_embedder

    threads = int(os.environ.get("EMBEDDING_THREADS", "2"))
    embedder = create_embedder("local", threads=threads)
    started = time.perf_counter()
    await embedder.warm_up()
    cold_ms = ms_since(started)
    vectors, timings = [], []
    for text in texts:
        started = time.perf_counter()
        vectors.append(await embedder.embed_query(text))
        timings.append(ms_since(started))
    await embedder.close()
    return vectors, timings, cold_ms


@dataclass
class Pass:
    """The samples of one way of calling /recall."""

    wall_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    steps_ms: dict[str, list[float]] = field(default_factory=dict)  # the server's timings_ms
    ranks: list[int | None] = field(default_factory=list)  # targeted queries only
    errors: list[str] = field(default_factory=list)
    degraded: int = 0
    empty: int = 0

    def summary(self) -> dict[str, Any]:
        found = [r for r in self.ranks if r is not None]
        n = len(self.ranks)
        return {
            "calls": len(self.wall_ms),
            "wall": percentiles(self.wall_ms) if self.wall_ms else None,
            "server_query_time": percentiles(self.server_ms) if self.server_ms else None,
            "server_steps": {step: percentiles(ms) for step, ms in self.steps_ms.items()},
            "targeted": n,
            "hit_at_1": round(sum(r == 1 for r in found) / n, 3) if n else None,
            "hit_at_10": round(len(found) / n, 3) if n else None,
            "mrr_at_10": round(sum(1 / r for r in found) / n, 3) if n else None,
            "errors": self.errors[:10],
            "error_count": len(self.errors),
            "degraded_responses": self.degraded,
            "empty_responses": self.empty,
        }


def vector_param(vector: list[float]) -> str:
    return ",".join(f"{x:.6g}" for x in vector)


Outcome = tuple[float, dict[str, Any] | None, str | None]  # wall ms, body, error


def recall_params(text: str, vector: list[float] | None) -> dict[str, str]:
    params = {"query": text, "limit": "10"}
    if vector is not None:
        params["embedding"] = vector_param(vector)
    return params


class StdlibClient:
    """GET /recall over one keep-alive `http.client` connection: the timed client.

    httpx does more work of its own per call (building the request, its transport layers,
    parsing the response), and on two cores that work competes with the server: the same
    recalls, interleaved in one run, took measurably longer from httpx with the same server
    time. `http.client` is closer to curl or a compiled client, so the wall figures
    measure the service. httpx is still timed as its own pass (`with_query_embedding_httpx`)
    so that figures of earlier runs, all taken with httpx, stay comparable.
    """

    def __init__(self, base: str) -> None:
        url = urllib.parse.urlsplit(base)
        self._host, self._port = url.hostname or "127.0.0.1", url.port or 80
        self._connection: http.client.HTTPConnection | None = None

    def recall(self, key: str, text: str, vector: list[float] | None) -> Outcome:
        """One GET /recall (limit 10)."""
        path = "/recall?" + urllib.parse.urlencode(recall_params(text, vector))
        started = time.perf_counter()
        try:
            connection = self._connect()
            connection.request("GET", path, headers=auth(key))
            response = connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()  # the next call reconnects
            return ms_since(started), None, repr(exc)
        elapsed = ms_since(started)
        if response.status != 200:
            return elapsed, None, f"HTTP {response.status}: {raw[:200]!r}"
        return elapsed, json.loads(raw), None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self._host, self._port, timeout=60)
        return self._connection


def recall_once(client: httpx.Client, key: str, text: str, vector: list[float] | None) -> Outcome:
    """One GET /recall (limit 10) from httpx."""
    started = time.perf_counter()
    try:
        response = client.get(
            "/recall", params=recall_params(text, vector), headers=auth(key), timeout=60
        )
    except httpx.HTTPError as exc:
        return ms_since(started), None, repr(exc)
    elapsed = ms_since(started)
    if response.status_code != 200:
        return elapsed, None, f"HTTP {response.status_code}: {response.text[:200]}"
    return elapsed, response.json(), None


def account(
    run: Pass, elapsed: float, body: dict | None, error: str | None, target: str | None
) -> None:
    """Adds one call to a pass."""
    if error is not None or body is None:
        run.errors.append(error or "no body")
        return
    run.wall_ms.append(elapsed)
    run.server_ms.append(float(body["query_time_ms"]))
    for step, ms in (body.get("timings_ms") or {}).items():
        run.steps_ms.setdefault(step, []).append(float(ms))
    run.degraded += bool(body.get("degraded"))
    run.empty += not body["results"]
    if target is not None:
        ids = [r["id"] for r in body["results"]]
        run.ranks.append(ids.index(target) + 1 if target in ids else None)


def measure_recall(
    client: httpx.Client,
    server: Server,
    queries: list[textgen.GenQuery],
    vectors: list[list[float]],
    ids: dict[int, str],
    warmup: int,
) -> dict[str, Pass]:
    """Each query as text only and with its precomputed vector from the stdlib client, and as
    text only from httpx, in a random order per query."""
    rng = random.Random(11)
    stdlib = StdlibClient(server.base)
    # mode -> (the call, whether it sends the precomputed vector)
    calls: dict[str, tuple[Callable[..., Outcome], bool]] = {
        "with_query_embedding": (stdlib.recall, False),
        "precomputed_vector": (stdlib.recall, True),
        "with_query_embedding_httpx": (partial(recall_once, client), False),
    }
    try:
        for query, vector in list(zip(queries, vectors, strict=True))[:warmup]:
            for call, sends_vector in calls.values():
                call(server.key(query.user), query.text, vector if sends_vector else None)
        passes = {mode: Pass() for mode in calls}
        for number, (query, vector) in enumerate(zip(queries, vectors, strict=True), 1):
            target = ids.get(query.target) if query.target is not None else None
            modes = list(passes)
            rng.shuffle(modes)
            for mode in modes:
                call, sends_vector = calls[mode]
                outcome = call(server.key(query.user), query.text, vector if sends_vector else None)
                account(passes[mode], *outcome, target)
            if number % 100 == 0:
                log(f"recall: {number}/{len(queries)} queries")
    finally:
        stdlib.close()
    return passes


def measure_concurrent(
    server: Server, queries: list[textgen.GenQuery], clients: int
) -> dict[str, Any]:
    """Every query once more, text only, from `clients` threads (one keep-alive connection
    each, queries dealt in turn): recalls/s, wall percentiles, and the CPU ms per recall of
    Engram and of its FalkorDB server over the pass (utime + stime)."""
    shares = [queries[i::clients] for i in range(clients)]
    walls: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []

    def worker(number: int) -> None:
        stdlib = StdlibClient(server.base)
        try:
            for query in shares[number]:
                elapsed, body, error = stdlib.recall(server.key(query.user), query.text, None)
                if error is not None or body is None:
                    errors.append(error or "no body")
                else:
                    walls[number].append(elapsed)
        finally:
            stdlib.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    falkordb = redis_pid(server)
    cpu_before = cpu_seconds(server.pid), cpu_seconds(falkordb)
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    cpu_after = cpu_seconds(server.pid), cpu_seconds(falkordb)
    samples = [ms for share in walls for ms in share]
    done = len(samples)
    per_recall = [
        round((after - before) * 1000 / done, 2) if done else None
        for before, after in zip(cpu_before, cpu_after, strict=True)
    ]
    log(f"{clients} clients: {done} recalls in {seconds:.1f} s, CPU ms/recall {per_recall}")
    return {
        "clients": clients,
        "recalls": done,
        "seconds": round(seconds, 2),
        "recalls_per_s": round(done / seconds, 1) if seconds else None,
        "wall": percentiles(samples) if samples else None,
        "cpu_ms_per_recall": {"engram": per_recall[0], "falkordb": per_recall[1]},
        "errors": errors[:10],
        "error_count": len(errors),
    }


def probe_endpoints(
    client: httpx.Client, server: Server, people: list[textgen.Persona], calls: int = 20
) -> dict[str, Any]:
    """Latency of other endpoints at this size (health with counts, job status, by-tag, browse,
    recall with expansions, core memories)."""
    key = server.key(0)
    project = people[0].projects[0]
    probes: list[tuple[str, str, dict[str, Any], dict[str, str]]] = [
        ("GET /health (no key)", "/health", {}, {}),
        ("GET /health (user key: memory count)", "/health", {}, auth(key)),
        ("GET /enrichment/status", "/enrichment/status", {}, auth(key)),
        (
            "GET /memory/by-tag?tags=preference",
            "/memory/by-tag",
            {"tags": "preference", "limit": 20},
            auth(key),
        ),
        (
            "GET /recall?tags=project:… (browse, no query)",
            "/recall",
            {"tags": f"project:{project}", "limit": 10},
            auth(key),
        ),
        (
            "GET /recall?query=…&tags=project:… (filtered)",
            "/recall",
            {"query": "database migration decision", "tags": f"project:{project}", "limit": 10},
            auth(key),
        ),
        (
            "GET /recall?query=…&expand_relations=true",
            "/recall",
            {"query": "database migration decision", "limit": 10, "expand_relations": "true"},
            auth(key),
        ),
        (
            "GET /recall?query=…&expand_entities=true",
            "/recall",
            {"query": "database migration decision", "limit": 10, "expand_entities": "true"},
            auth(key),
        ),
        ("GET /core (pinned, most important, recent)", "/core", {}, auth(key)),
    ]
    if server.admin_key:
        probes.insert(
            2, ("GET /health (admin key: all counts)", "/health", {}, auth(server.admin_key))
        )
    results = {}
    for name, path, params, headers in probes:
        samples, statuses = [], set()
        for _ in range(calls):
            started = time.perf_counter()
            response = client.get(path, params=params, headers=headers, timeout=120)
            samples.append(ms_since(started))
            statuses.add(response.status_code)
        results[name] = {
            **percentiles(samples),
            "max_ms": round(max(samples), 2),
            "statuses": sorted(statuses),
        }
    return results


# --- Report -----------------------------------------------------------------------------------


def fmt(figures: dict[str, float] | None) -> str:
    if not figures:
        return "—"
    return f"{figures['p50_ms']} / {figures['p95_ms']} / {figures['p99_ms']}"


def mb(snap: dict[str, Any] | None, name: str) -> str:
    """RSS of one process in a snapshot, with its anonymous / file-backed split."""
    figures = (snap or {}).get(name) or {}
    if not figures:
        return "—"
    split = (
        f" (anon {figures['anon_mb']}, file {figures['file_mb']})" if "anon_mb" in figures else ""
    )
    return f"{figures['rss_mb']} MB{split}"


def index_line(index: dict[str, Any] | None) -> str:
    if index is None:
        return "as ingested (exact search; --index-vectors builds HNSW)"
    return (
        f"built in {index['seconds']} s: {index['indexed_segments']} of {index['segments']} "
        f"segments with HNSW, {index['points']:,} points"
    )


def markdown(result: dict[str, Any]) -> str:
    """The headline figures as a markdown table."""
    gen, ing, emb, rec = (result[k] for k in ("generator", "ingest", "embedding", "recall"))
    with_q, without = rec["with_query_embedding"], rec["precomputed_vector"]
    from_httpx = rec["with_query_embedding_httpx"]
    own = rec["query_embedding_in_process"]
    rss, disk = result["rss"], result["disk_mb"]
    rows = [
        (
            "memories / users / queries",
            f"{gen['memories']:,} / {result['config']['users']} / {result['config']['queries']}",
        ),
        ("unique texts", f"{gen['unique']:,} ({gen['unique_fraction']:.2%})"),
        ("ingestion, acknowledged (POST /memory/batch ×500)", ingest_line(ing)),
        (
            "all embedded, from the first batch",
            f"{emb['seconds_since_first_batch']} s ({emb['memories_per_s']} memories/s)"
            if ing["memories"]
            else "already embedded (resumed run)",
        ),
        ("embedding wait outcome", emb["outcome"]),
        ("vector index before recall", index_line(result.get("vector_index"))),
        ("/recall wall p50 / p95 / p99, with query embedding", f"{fmt(with_q['wall'])} ms"),
        ("/recall wall p50 / p95 / p99, precomputed vector", f"{fmt(without['wall'])} ms"),
        (
            "/recall wall p50 / p95 / p99, with query embedding, from httpx",
            f"{fmt(from_httpx['wall'])} ms",
        ),
        (
            "server query_time_ms p50 / p95 / p99, with embedding",
            f"{fmt(with_q['server_query_time'])} ms",
        ),
        (
            "server query_time_ms p50 / p95 / p99, with embedding, from httpx",
            f"{fmt(from_httpx['server_query_time'])} ms",
        ),
        (
            "server query_time_ms p50 / p95 / p99, precomputed",
            f"{fmt(without['server_query_time'])} ms",
        ),
        ("query embedding alone (embed_query in-process)", f"{fmt(own['timing'])} ms"),
        ("server steps p50 / p95, with embedding", steps_line(with_q["server_steps"])),
        ("target p50 ≤ 15 ms / p95 ≤ 40 ms (with embedding)", rec["targets_met"]),
        ("concurrent pass (text only)", concurrent_line(result.get("concurrent"))),
        (
            "hit@10 / hit@1 / MRR, targeted queries (sanity)",
            f"{with_q['hit_at_10']} / {with_q['hit_at_1']} / {with_q['mrr_at_10']}",
        ),
        (
            "RSS Engram / FalkorDB, idle after start",
            f"{mb(rss['start'], 'engram')} / {mb(rss['start'], 'falkordb')}",
        ),
        (
            "RSS Engram / FalkorDB, after embedding",
            f"{mb(rss['embedded'], 'engram')} / {mb(rss['embedded'], 'falkordb')}",
        ),
        (
            "RSS Engram / FalkorDB, after recall",
            f"{mb(rss['end'], 'engram')} / {mb(rss['end'], 'falkordb')}",
        ),
        (
            "peak RSS while embedding, Engram / FalkorDB",
            f"{emb['peak_rss_mb']['engram']} MB / {emb['peak_rss_mb']['falkordb']} MB",
        ),
        (
            "disk data/falkordb / data/qdrant",
            f"{disk.get('falkordb')} MB / {disk.get('qdrant')} MB",
        ),
        (
            "load average (1 min) at start / recall / end",
            " / ".join(
                str(result["machine"][k]) for k in ("load_start", "load_recall", "load_end")
            ),
        ),
    ]
    lines = ["| figure | value |", "| --- | --- |"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    lines += ["", "| other endpoint (20 calls) | p50 | p95 | max |", "| --- | --- | --- | --- |"]
    for name, figures in result["endpoints"].items():
        lines.append(
            f"| {name} | {figures['p50_ms']} | {figures['p95_ms']} | {figures['max_ms']} |"
        )
    return "\n".join(lines)


def concurrent_line(figures: dict[str, Any] | None) -> str:
    if not figures:
        return "not run"
    cpu = figures["cpu_ms_per_recall"]
    return (
        f"{figures['clients']} clients: {figures['recalls_per_s']} recalls/s, wall "
        f"{fmt(figures['wall'])} ms; CPU ms/recall Engram {cpu['engram']}, FalkorDB "
        f"{cpu['falkordb']}"
    )


def steps_line(steps: dict[str, dict[str, float]]) -> str:
    """The server's per-step timings (one after the other), p50 / p95 each: embed, the first
    search, the second pass (feedback and window searches), graph, evidence."""
    order = [s for s in ("embed", "search", "second_pass", "graph", "evidence") if s in steps]
    return ", ".join(f"{s} {steps[s]['p50_ms']} / {steps[s]['p95_ms']} ms" for s in order)


def ingest_line(ing: dict[str, Any]) -> str:
    if not ing["memories"]:
        return f"all {ing['skipped_batches']} batches acknowledged by an earlier run"
    batch = ing["batch_wall"] or {}
    return (
        f"{ing['memories_per_s']} memories/s ({ing['seconds']} s; batch p50 / p95 "
        f"{batch.get('p50_ms')} / {batch.get('p95_ms')} ms)"
    )


def targets_met(wall: dict[str, float] | None) -> str:
    if not wall:
        return "no data"
    p50_ok, p95_ok = wall["p50_ms"] <= TARGET_P50_MS, wall["p95_ms"] <= TARGET_P95_MS
    return f"p50 {'met' if p50_ok else 'MISSED'}, p95 {'met' if p95_ok else 'MISSED'}"


# --- Main -------------------------------------------------------------------------------------


def generate(args: argparse.Namespace) -> tuple[list, list, list, dict[str, Any]]:
    started = time.perf_counter()
    people = textgen.personas(args.users, args.seed)
    items = textgen.memories(people, args.memories, args.seed)
    queries = textgen.queries(people, items, args.queries, args.seed)
    summary = textgen.stats(items)
    info = {
        "memories": summary.count,
        "unique": summary.unique,
        "unique_fraction": summary.unique_fraction,
        "seconds": round(time.perf_counter() - started, 1),
        "mean_chars": round(statistics.fmean(len(m.content) for m in items), 1),
        "queries_targeted": sum(q.target is not None for q in queries),
        "queries_generic": sum(q.target is None for q in queries),
    }
    return people, items, queries, info


def build_vector_index(server: Server) -> dict[str, Any]:
    """POST /admin/vectors/index before recall is timed (--index-vectors): the report, and the
    load average while it ran."""
    if server.admin_key is None:
        raise SystemExit("--index-vectors needs the admin key (--admin-key with --base-url)")
    log("building the vector index (HNSW); the server answers nothing else meanwhile")
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    with httpx.Client(base_url=server.base, timeout=httpx.Timeout(None, connect=10)) as client:
        response = client.post("/admin/vectors/index", headers=headers)
    response.raise_for_status()
    report = dict(response.json()) | {"load_after": round(os.getloadavg()[0], 2)}
    log(f"vector index: {report}")
    return report


def run(args: argparse.Namespace, server: Server, people, items, queries) -> dict[str, Any]:
    """Everything that needs the server: ingest, wait, recall, probes, figures."""
    header: dict[str, Any] = {"seed": args.seed, "memories": args.memories, "users": args.users}
    if args.supplied_vectors:  # the store grows: no memory count in the header
        header = {"seed": args.seed, "users": args.users, "vectors": "supplied"}
        header.update(pool=args.vector_pool, noise=args.vector_noise)
    state_path = args.keep_data / STATE_FILE if args.keep_data else None
    state = State(state_path, header)
    if args.supplied_vectors:
        batches = plan_growth(items, state.ids, args.users, load_vectors(args, items))
    else:
        batches = plan_batches(items, args.users, BATCH_SIZE)
    rss: dict[str, Any] = {"start": snapshot(server)}
    with httpx.Client(base_url=server.base, timeout=60) as client:
        started = time.perf_counter()
        ingested = ingest(client, server, batches, state)
        rss["ingested"] = snapshot(server)
        timeout = args.embed_timeout or max(900.0, args.memories / 20)
        embedded = wait_embedded(client, server, ingested["memories"], started, timeout)
        rss["embedded"] = snapshot(server)
        enriched = wait_jobs_drained(client, server, "enrich", started, timeout)
        windowed = wait_jobs_drained(client, server, "windows", started, timeout)
        # A drift check during a bulk ingest can queue a repairing sync (a batch's graph write
        # seen before its points), which reads every memory: recall is timed after it too.
        # (At most SYNC_WAIT_S: a sync that fails is retried for a long while.)
        synced = wait_jobs_drained(client, server, "sync", started, SYNC_WAIT_S)
        jobs = all_jobs(client, server)
        rss["enriched"] = snapshot(server)
        index = build_vector_index(server) if args.index_vectors else None
        log(
            f"all embedded after {embedded['seconds_since_first_batch']} s, enriched after "
            f"{enriched['seconds_since_first_batch']} s, windows after "
            f"{windowed['seconds_since_first_batch']} s, sync after "
            f"{synced['seconds_since_first_batch']} s; jobs {jobs}; timing queries"
        )
        vectors, timings, cold_ms = asyncio.run(embed_queries([q.text for q in queries]))
        load_recall = round(os.getloadavg()[0], 2)
        passes = measure_recall(client, server, queries, vectors, state.ids, args.warmup)
        rss["recalled"] = snapshot(server)
        concurrent = measure_concurrent(server, queries, args.clients) if args.clients else None
        rss["concurrent"] = snapshot(server)
        endpoints = probe_endpoints(client, server, people)
    time.sleep(3)  # let the access-reinforcement flush run before the last snapshot
    rss["end"] = snapshot(server)
    recall = {name: p.summary() for name, p in passes.items()}
    recall["query_embedding_in_process"] = {
        "timing": percentiles(timings),
        "cold_start_ms": round(cold_ms, 1),
    }
    recall["targets_met"] = targets_met(recall["with_query_embedding"]["wall"])
    data = server.data_dir
    disk = {name: disk_mb(data / name) if data else None for name in ("falkordb", "qdrant")}
    return {
        "ingest": ingested,
        "embedding": embedded,
        "enrichment": enriched,
        "sync": synced,
        "jobs_before_recall": jobs,
        "vector_index": index,
        "recall": recall,
        "concurrent": concurrent,
        "endpoints": endpoints,
        "rss": rss,
        "disk_mb": disk,
        "load_recall": load_recall,
    }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=20, help="queries before timing")
    parser.add_argument("--keep-data", type=Path, help="data dir to keep (and resume from)")
    parser.add_argument("--base-url", help="reuse a running Engram instead of starting one")
    parser.add_argument("--api-key", help="with --base-url: key(s), comma-separated, per user")
    parser.add_argument("--admin-key", help="with --base-url: the admin key (optional)")
    parser.add_argument("--data-dir", type=Path, help="with --base-url: its ENGRAM_DATA_DIR")
    parser.add_argument("--embed-timeout", type=float, help="seconds to wait for embedding")
    parser.add_argument(
        "--supplied-vectors", action="store_true", help="post every memory with its embedding"
    )
    parser.add_argument("--vector-pool", type=int, default=5000, help="texts embedded for real")
    parser.add_argument("--vector-noise", type=float, default=0.02, help="sigma per dimension")
    parser.add_argument("--clients", type=int, default=8, help="concurrent pass (0: none)")
    parser.add_argument(
        "--index-vectors",
        action="store_true",
        help="build the vector index (POST /admin/vectors/index) before timing recall",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale.json")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    load_start = round(os.getloadavg()[0], 2)
    log(f"load average {os.getloadavg()}; generating {args.memories} memories")
    people, items, queries, gen_info = generate(args)
    log(
        f"{gen_info['unique']} unique texts ({gen_info['unique_fraction']:.2%}) "
        f"in {gen_info['seconds']} s"
    )
    if args.base_url:
        figures = run(args, reused_server(args), people, items, queries)
    elif args.keep_data:
        args.keep_data = args.keep_data.resolve()
        args.keep_data.mkdir(parents=True, exist_ok=True)
        env = SUPPLIED_VECTOR_ENV if args.supplied_vectors else None
        with own_server(args.keep_data, people, args.seed, extra_env=env) as server:
            figures = run(args, server, people, items, queries)
    else:
        with (
            tempfile.TemporaryDirectory(prefix="engram-scale-") as tmp,
            own_server(
                Path(tmp),
                people,
                args.seed,
                extra_env=SUPPLIED_VECTOR_ENV if args.supplied_vectors else None,
            ) as server,
        ):
            figures = run(args, server, people, items, queries)
    result = {
        "config": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
            if k not in ("api_key", "admin_key")
        },
        "machine": {
            "cpus": os.cpu_count(),
            "load_start": load_start,
            "load_recall": figures.pop("load_recall"),
            "load_end": round(os.getloadavg()[0], 2),
        },
        "generator": gen_info,
        **figures,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    sys.stdout.write(markdown(result) + f"\n\nFull results: {args.out}\n")


if __name__ == "__main__":
    main()
