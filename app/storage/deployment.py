"""Which stores belong together: beside the graph, FalkorDB's server keeps the deployment's id
and the identity of the vector store that mirrors the graph, and every process checks that it
opened that vector store.

A process that opened another vector store (another Qdrant, another collection, a shard of its
own) would take the deployment's jobs and write vectors its API never reads, while every check
looked healthy: it refuses to start instead. The record is a Redis hash on the FalkorDB server,
next to the graph rather than in it, so a backup of the graph restored elsewhere does not carry
its old deployment's identity. The vector store's identity is
- a local shard: its directory and an id kept in a file inside it. A new shard where the
  deployment's was (lost with its directory) is adopted, and the drift check re-fills it; a
  shard elsewhere, or another shard's id file, is refused;
- a Qdrant server: its URL (scheme, host, port, path) and collection, so every process must name
  the server the same way;
- qdrant-client's in-memory mode: private to its process, so never the deployment's.

A vector store that replaced the recorded one holds no points, or another graph's: until a
repairing sync has compared every memory with its point, the record says it is not verified
(`vector_store_verified` false), and the drift check (app/ops/drift.py) reports drift, across
restarts, whatever the counts say.
"""

import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from app.storage.falkordb.address import FalkorAddress

STORE_ID_FILE = "engram-store-id"
MEMORY_LOCATION = ":memory:"
VERIFIED = "vector_store_verified"


class StoreMismatch(Exception):
    """This process opened a vector store other than its deployment's."""


@dataclass(frozen=True, slots=True)
class Identity:
    deployment_id: str
    vector_store: str
    verified: bool = True  # False from a replacement until a repairing sync has checked it


@dataclass(frozen=True, slots=True)
class Opened:
    """The identity of the vector store a process opened; `new` for a shard created now."""

    identity: str
    new: bool = False

    def replaces_lost(self, recorded: str) -> bool:
        """A new shard in the directory of the recorded one: the same store, lost and remade."""
        place = self.identity.rpartition("#")[0]
        return self.new and self.identity.startswith("edge:") and recorded.startswith(place + "#")


def vector_store_identity(url: str | None, collection: str, shard_dir: Path) -> Opened:
    """The identity of the vector store these settings open (created for a new local shard)."""
    if url is None or not url.strip():
        shard_id, new = _shard_id(shard_dir)
        return Opened(f"edge:{shard_dir.resolve()}#{shard_id}", new)
    if url == MEMORY_LOCATION:
        return Opened(f"memory:{uuid.uuid4()}")
    parts = urlsplit(url.strip())
    port = parts.port or (443 if parts.scheme == "https" else 6333)
    where = f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}{parts.path.rstrip('/')}"
    return Opened(f"qdrant:{where}/{collection}")


def _shard_id(shard_dir: Path) -> tuple[str, bool]:
    path = shard_dir / STORE_ID_FILE
    if path.exists():
        return path.read_text().strip(), False
    shard_dir.mkdir(parents=True, exist_ok=True)
    made = uuid.uuid4().hex
    temporary = path.with_suffix(".tmp")
    temporary.write_text(made + "\n")
    temporary.replace(path)
    return made, True


def identity_key(graph_name: str) -> str:
    return f"engram:identity:{graph_name}"


async def check_identity(
    falkordb_url: str | FalkorAddress, graph_name: str, opened: Opened, *, adopt: bool, now: str
) -> tuple[Identity, str | None]:
    """The deployment's identity, recorded by the first process. With `adopt` (or for a new
    shard where the deployment's was), a different vector store becomes the deployment's
    (returned as the one it replaced); else it is refused. HSETNX makes one of two first
    processes the recorder, and the other compares."""
    key, vector_store = identity_key(graph_name), opened.identity
    redis = FalkorAddress.of(falkordb_url).client(decode_responses=True)
    try:
        await redis.hsetnx(key, "deployment_id", uuid.uuid4().hex)
        await redis.hsetnx(key, "created_at", now)
        if await redis.hsetnx(key, "vector_store", vector_store):
            await redis.hset(key, "vector_store_since", now)
        found = await redis.hgetall(key)
        recorded = {str(k): str(v) for k, v in found.items()}  # decode_responses: already str
        if recorded["vector_store"] == vector_store:
            verified = recorded.get(VERIFIED) != "false"
            return Identity(recorded["deployment_id"], vector_store, verified), None
        if not (adopt or opened.replaces_lost(recorded["vector_store"])):
            raise StoreMismatch(
                _mismatch(recorded["deployment_id"], recorded["vector_store"], vector_store)
            )
        await redis.hset(
            key,
            mapping={"vector_store": vector_store, "vector_store_since": now, VERIFIED: "false"},
        )
        return Identity(recorded["deployment_id"], vector_store, False), recorded["vector_store"]
    finally:
        await redis.aclose()


async def mark_verified(
    falkordb_url: str | FalkorAddress, graph_name: str, vector_store: str
) -> None:
    """Records that a repairing sync has checked `vector_store`, if it is still the one
    recorded (a later replacement stays unverified)."""
    key = identity_key(graph_name)
    redis = FalkorAddress.of(falkordb_url).client(decode_responses=True)
    try:
        if await redis.hget(key, "vector_store") == vector_store:
            await redis.hset(key, VERIFIED, "true")
    finally:
        await redis.aclose()


def _mismatch(deployment_id: str, recorded: str, opened: str) -> str:
    return (
        f"This process opened the vector store {opened}, but the graph belongs to deployment "
        f"{deployment_id}, whose vectors are in {recorded}. Jobs run here would write vectors "
        "its API never reads. Give every process the same QDRANT_URL (spelled the same way) and "
        "QDRANT_COLLECTION; if the deployment really moved to this vector store, start one "
        "process with ENGRAM_ADOPT_VECTOR_STORE=true (the sync job then re-fills it)."
    )
