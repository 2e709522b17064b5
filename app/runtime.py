"""Start-up and shut-down of everything Engram runs on, in dependency order."""

import logging
from dataclasses import dataclass

from app.auth import KeyRing, build_keyring, load_or_create_local_key
from app.config import Settings
from app.storage import Stores
from app.storage.falkordb_server import EmbeddedFalkorDB
from app.storage.graph import GraphStore
from app.storage.schema import migrate
from app.storage.vectors import create_vector_index

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    stores: Stores
    keyring: KeyRing
    falkordb_server: EmbeddedFalkorDB | None = None

    async def stop(self) -> None:
        """Closes the stores, then stops the embedded server (AOF flushed)."""
        await self.stores.vectors.close()
        await self.stores.graph.close()
        if self.falkordb_server is not None:
            await self.falkordb_server.stop()


async def start_runtime(settings: Settings) -> Runtime:
    """Starts (or connects to) FalkorDB, migrates, waits for indexes, opens the vector index."""
    server = None
    url = settings.falkordb_url
    if url is None:
        server = EmbeddedFalkorDB(
            data_dir=settings.data_dir / "falkordb",
            port=settings.falkordb_port,
            module_path=settings.falkordb_module,
            appendfsync=settings.falkordb_appendfsync,
        )
        url = await server.start()
    graph = GraphStore(url, settings.falkordb_graph, settings.falkordb_pool_size)
    try:
        await migrate(graph)
        await graph.wait_for_indexes(settings.falkordb_index_wait_s)
        vectors = create_vector_index(
            url=settings.qdrant_url,
            path=settings.data_dir / "qdrant",
            collection=settings.qdrant_collection,
            dimension=settings.vector_size,
            api_key=settings.qdrant_api_key,
        )
        await vectors.open()
    except BaseException:
        await graph.close()
        if server is not None:
            await server.stop()
        raise
    return Runtime(settings, Stores(graph, vectors), _keyring(settings), server)


def _keyring(settings: Settings) -> KeyRing:
    local_key = None
    if settings.generate_local_key and not settings.api_keys:
        local_key, path, created = load_or_create_local_key(settings.data_dir)
        verb = "Created" if created else "Using"
        log.warning("%s the local API key for user '%s': %s", verb, settings.default_user, path)
    ring = build_keyring(settings.api_keys, settings.admin_key, local_key, settings.default_user)
    if not len(ring):
        raise RuntimeError(
            "No API keys configured: set ENGRAM_API_KEYS or ENGRAM_GENERATE_LOCAL_KEY"
        )
    return ring
