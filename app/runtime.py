"""Start-up and shut-down of everything Engram runs on, in dependency order.

The Runtime is also the dependency object job handlers receive (`.stores`, `.embedder`, `.jobs`).
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

from redis.exceptions import RedisError

from app.auth.runtime_keys import Authenticator, RuntimeKeys
from app.classify import ClassificationStats
from app.config import Settings
from app.embeddings import Embedder, create_embedder
from app.enrichment.tasks import EnrichmentConfig
from app.errors import StoreUnavailable
from app.jobs.kinds import RAW_RETENTION, SYNC
from app.jobs.queue import JobQueue
from app.jobs.runner import JobRunner
from app.lifecycle.decay import LifecycleConfig, lifecycle_config
from app.lifecycle.tasks import LifecycleScheduler, schedules
from app.llm import LLMClient, create_llm_client
from app.memories.windows import backfill_windows
from app.models import to_iso, utc_now
from app.nlp import shutdown_pool
from app.ops.drift import DriftMonitor
from app.ops.embedding_model import adopt_embedding_model
from app.ops.store_watch import StoreWatch
from app.recall.access import AccessRecorder
from app.recall.outcome import RecallConfig
from app.recall.tuning import recall_config
from app.refusals import (
    falkordb_unreachable,
    indexes_not_ready,
    vector_index_unreadable,
)
from app.remember.pipeline import RememberConfig
from app.remember.stats import ExtractionStats
from app.storage import Stores
from app.storage.artifacts.backends import open_artifact_store
from app.storage.data_dir_lock import DataDirLock, claim_data_dir
from app.storage.deployment import Identity, check_identity, mark_verified, vector_store_identity
from app.storage.falkordb.address import FalkorAddress, falkordb_address
from app.storage.falkordb.replication import Replicas
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph.schema import migrate
from app.storage.graph.store import GraphStore
from app.storage.vectors import VectorDimensionMismatch, create_vector_index
from app.wiring.jobs import job_kinds
from app.wiring.keys import start_authenticator
from app.wiring.schedule import enqueue_backlog, run_every, sweep_pending_embeddings

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    stores: Stores
    embedder: Embedder
    jobs: JobQueue
    recall_config: RecallConfig
    access: AccessRecorder
    authenticator: Authenticator | None = None  # None in a worker process: it serves no API
    llm: LLMClient | None = None
    classification_stats: ClassificationStats = field(default_factory=ClassificationStats)
    remember_stats: ExtractionStats = field(default_factory=ExtractionStats)
    falkordb_server: EmbeddedFalkorDB | None = None
    runner: JobRunner | None = None
    scheduler_running: bool = False
    background: list[asyncio.Task] = field(default_factory=list)
    drift: DriftMonitor | None = None
    deployment_id: str | None = None  # recorded in the graph with its vector store's identity
    data_lock: DataDirLock | None = None  # held while this process owns the embedded stores

    @property
    def worker_slots(self) -> int:
        """Job slots per kind running in this process (0: it runs no workers)."""
        return self.runner.concurrency if self.runner else 0

    @property
    def runtime_keys(self) -> RuntimeKeys | None:
        """The keys made at runtime (/admin/keys); None where no API is served."""
        return self.authenticator.runtime if self.authenticator else None

    @property
    def embed_with_date(self) -> bool:
        return self.settings.embedding_include_date

    @property
    def remember(self) -> RememberConfig:
        return RememberConfig(
            dedup_threshold=self.settings.remember_dedup_threshold,
            contradiction_threshold=self.settings.remember_contradiction_threshold,
        )

    @property
    def lifecycle(self) -> LifecycleConfig:
        return lifecycle_config(self.settings)

    @property
    def ttl_defaults(self) -> dict[str, float]:
        """Default time-to-live in days per memory type (app/memories/ttl.py)."""
        return self.lifecycle.ttl_days

    @property
    def enrichment(self) -> EnrichmentConfig:
        return EnrichmentConfig(
            similarity_threshold=self.settings.enrichment_similarity_threshold,
            similar_limit=self.settings.enrichment_similar_limit,
        )

    def start_access_flush(self) -> None:
        """Recall's access reinforcement, written in batches in the background."""
        self.background.append(asyncio.create_task(self.access.run(), name="access-flush"))

    async def start_workers(self, concurrency: int) -> None:
        """Runs job slots in this process, plus the backlog scan and the sync schedule."""
        self.runner = JobRunner(
            self.jobs, concurrency=concurrency, deps=self, sweep_s=self.settings.jobs_sweep_s
        )
        await self.runner.start()
        if self.settings.backlog_scan:
            self.background.append(asyncio.create_task(enqueue_backlog(self), name="backlog"))
        if self.settings.embedding_sweep_interval_s:
            sweep = run_every(
                self.settings.embedding_sweep_interval_s,
                lambda: sweep_pending_embeddings(self),
            )
            self.background.append(asyncio.create_task(sweep, name="embedding-sweep"))
        if self.settings.sync_interval_s:
            schedule = run_every(self.settings.sync_interval_s, self.enqueue_sync)
            self.background.append(asyncio.create_task(schedule, name="sync-schedule"))
            retention = run_every(self.settings.sync_interval_s, self.enqueue_raw_retention)
            self.background.append(asyncio.create_task(retention, name="raw-retention"))
        scheduler = LifecycleScheduler(self.jobs, schedules(self.settings))
        if scheduler.plan:
            ticks = run_every(self.settings.consolidation_tick_s, scheduler.tick)
            self.background.append(asyncio.create_task(ticks, name="lifecycle-schedule"))
            self.scheduler_running = True

    async def enqueue_raw_retention(self) -> str:
        return (await self.jobs.enqueue(RAW_RETENTION, ["scheduled"], {})).job_id

    async def enqueue_sync(self) -> str:
        return (await self.jobs.enqueue(SYNC, ["scheduled"], {"repair": True})).job_id

    async def stop(self) -> None:
        """Stops workers (in-flight jobs are re-queued), closes stores, stops the server."""
        for task in self.background:
            await _cancelled(task)
        if self.runner is not None:
            await self.runner.stop()
        await self.jobs.close()
        if self.llm is not None:
            await self.llm.close()
        await asyncio.to_thread(shutdown_pool)
        await self.embedder.close()
        await self.stores.vectors.close()
        await self.stores.graph.close()
        if self.falkordb_server is not None:
            await self.falkordb_server.stop()
        if self.data_lock is not None:
            self.data_lock.release()


async def start_runtime(settings: Settings, *, with_keyring: bool = True) -> Runtime:
    """Starts (or connects to) FalkorDB, migrates, opens the embedder, vectors and job queue.
    The embedded stores are owned by one process: the data directory is locked first."""
    lock = _claim_data_dir(settings)
    try:
        runtime = await _start_runtime(settings, with_keyring)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    runtime.data_lock = lock
    return runtime


async def _cancelled(task: asyncio.Task) -> None:
    """Cancels a background task and waits for its end. The cancel is repeated: redis-py can
    swallow one that lands mid-command (seen with the store watch's ping at shutdown), and the
    task would then sleep on, and the stop wait forever."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=1.0)
    with contextlib.suppress(asyncio.CancelledError):
        task.result()


def _claim_data_dir(settings: Settings) -> DataDirLock | None:
    """The lock on ENGRAM_DATA_DIR (app/storage/data_dir_lock.py), if an embedded store lives
    there."""
    if not settings.embedded_falkordb and settings.qdrant_url and settings.qdrant_url.strip():
        return None
    return claim_data_dir(settings.data_dir, port=settings.port, now=to_iso(utc_now()))


async def _start_runtime(settings: Settings, with_keyring: bool) -> Runtime:
    # What has started is stopped again, last first, if a later step fails.
    async with contextlib.AsyncExitStack() as cleanup:
        server = None
        address = falkordb_address(settings)
        if address is None:
            server = EmbeddedFalkorDB(
                data_dir=settings.data_dir / "falkordb",
                port=settings.falkordb_port,
                module_path=settings.falkordb_module,
                appendfsync=settings.falkordb_appendfsync,
            )
            address = FalkorAddress.of(await server.start())
            cleanup.push_async_callback(server.stop)
        else:
            await _wait_for_falkordb(address, settings.falkordb_connect_wait_s)
        replicas = Replicas(settings.falkordb_wait_replicas, settings.falkordb_wait_timeout_ms)
        pool_size = settings.falkordb_pool_size
        graph = GraphStore(address, settings.falkordb_graph, pool_size, replicas=replicas)
        cleanup.push_async_callback(graph.close)
        await migrate(graph)
        try:
            await graph.wait_for_indexes(settings.falkordb_index_wait_s)
        except StoreUnavailable:
            raise indexes_not_ready(settings.falkordb_index_wait_s) from None
        embedder = _embedder(settings)
        cleanup.push_async_callback(embedder.close)
        await _warm_up(embedder)
        stores = _stores(settings, graph, embedder.dimension)
        await _open_vectors(stores, settings)
        cleanup.push_async_callback(stores.vectors.close)
        deployment = await _check_identity(address, settings)
        await adopt_embedding_model(
            stores, embedder.model, trust_unrecorded=embedder.name != "local"
        )
        if stores.vectors.windows_added:
            await backfill_windows(stores)
        queue_client = address.client(max_connections=256)  # idle worker slots hold one each
        jobs = JobQueue(queue_client, job_kinds(settings), namespace=_namespace(settings))
        await jobs.connect()
        stores.jobs = jobs
        authenticator, key_tasks = (
            await start_authenticator(settings, graph) if with_keyring else (None, [])
        )
        cleanup.pop_all()  # started: the runtime owns them now, and stops them
    access = AccessRecorder(graph, stores.vectors, settings.access_flush_interval_s)
    drift = DriftMonitor(stores, jobs, unverified=_unverified(address, settings, deployment))
    await drift.check()  # lost points show (and a repair is queued) from the start
    runtime = Runtime(
        settings,
        stores,
        embedder,
        jobs,
        recall_config(settings),
        access,
        authenticator,
        llm=create_llm_client(settings),
        falkordb_server=server,
        drift=drift,
        deployment_id=deployment.deployment_id,
    )
    runtime.background += key_tasks
    watch = StoreWatch(stores, server, address.describe())
    runtime.background.append(asyncio.create_task(watch.run(), name="store-watch"))
    if settings.drift_check_interval_s:
        checks = run_every(settings.drift_check_interval_s, drift.check)
        runtime.background.append(asyncio.create_task(checks, name="drift-check"))
    return runtime


def _stores(settings: Settings, graph: GraphStore, dimension: int) -> Stores:
    """The stores over the graph, with the vector index (not opened yet) and the artifacts."""
    embedded = settings.embedded_falkordb or settings.embedded_qdrant
    vectors = create_vector_index(
        url=settings.qdrant_url,
        path=settings.data_dir / "qdrant",
        collection=settings.qdrant_collection,
        dimension=dimension,
        api_key=settings.qdrant_api_key,
    )
    artifacts = open_artifact_store(settings)
    return Stores(
        graph, vectors, artifacts=artifacts, data_dir=settings.data_dir if embedded else None
    )


def _unverified(
    address: FalkorAddress, settings: Settings, deployment: Identity
) -> Callable[[], Awaitable[None]] | None:
    """For a replaced vector store: how the drift check records it checked, once repaired."""
    if deployment.verified:
        return None
    return partial(mark_verified, address, settings.falkordb_graph, deployment.vector_store)


async def _wait_for_falkordb(address: FalkorAddress, wait_s: float) -> None:
    """A FalkorDB of the operator's own may start after Engram (a compose file): wait for it,
    with backoff, then refuse with what to do."""
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + wait_s, 0.2
    client = address.client(socket_connect_timeout=2, socket_timeout=5)
    try:
        while True:
            try:
                await client.ping()
                return
            except (RedisError, OSError) as exc:
                if loop.time() + delay > deadline:
                    raise falkordb_unreachable(address.describe(), wait_s, exc) from None
                log.info("waiting for FalkorDB at %s: %s", address.describe(), exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
    finally:
        await client.aclose()


async def _open_vectors(stores: Stores, settings: Settings) -> None:
    """Opens the vector index; a broken one is refused with how to rebuild it (a store of the
    wrong dimension says so itself)."""
    try:
        await stores.vectors.open()
    except VectorDimensionMismatch:
        raise
    except Exception as exc:
        where = settings.qdrant_url or "the Edge shard"
        path = None if settings.qdrant_url else settings.data_dir / "qdrant"
        raise vector_index_unreadable(where, path, exc) from exc


async def _check_identity(falkordb_url: FalkorAddress, settings: Settings) -> Identity:
    """Refuses a vector store other than the deployment's (see app.storage.deployment). The
    embedded default owns its graph alone: whatever shard it opens is the deployment's."""
    opened = vector_store_identity(
        settings.qdrant_url, settings.qdrant_collection, settings.data_dir / "qdrant"
    )
    adopt = settings.adopt_vector_store or settings.embedded_falkordb
    identity, replaced = await check_identity(
        falkordb_url, settings.falkordb_graph, opened, adopt=adopt, now=to_iso(utc_now())
    )
    if replaced is not None:
        log.warning(
            "deployment %s: vector store %s replaces %s",
            identity.deployment_id,
            opened.identity,
            replaced,
        )
    return identity


def _namespace(settings: Settings) -> str:
    """Jobs of one graph stay apart from another graph's on a shared server (tests, tenants)."""
    if settings.falkordb_graph == "engram":
        return settings.jobs_namespace
    return f"{settings.jobs_namespace}.{settings.falkordb_graph}"


def _embedder(settings: Settings) -> Embedder:
    return create_embedder(
        settings.embedding_provider,
        dimension=settings.embedding_dimensions,
        model=settings.embedding_model,
        base_url=settings.embedding_base_url,
        api_key=settings.embedding_api_key,
        batch_size=settings.embedding_batch_size,
        timeout=settings.embedding_timeout_s,
        max_retries=settings.embedding_max_retries,
        threads=settings.embedding_threads,
        send_dimensions=settings.embedding_send_dimensions,
    )


async def _warm_up(embedder: Embedder) -> None:
    """A broken embedder must show at start-up; writes still work without it.

    The failure is recorded by the embedder's own health (shown by /health), and embed jobs
    retry until it recovers.
    """
    try:
        await embedder.warm_up()
    except Exception as exc:  # already recorded by the embedder's health tracker
        log.error("embedder %s is not working: %s", embedder.name, exc)
