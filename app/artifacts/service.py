"""Artifacts (mnemory's "slow memory"): files attached to a memory, up to MAX_ARTIFACT_SIZE each.

The bytes are written first (whole or not at all, app/storage/artifacts/files.py), then the metadata
joins the memory's `artifacts` list in the graph; a crash between the two leaves only a file no
memory names, which fsck's sweep removes. An artifact is reached only through its memory, so the
memory's scope is the artifact's: outside it, both are 404. Deleting a memory deletes its files;
erasing it does too.
"""

import asyncio
import hashlib
import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.artifacts import search as artifact_search
from app.artifacts.checks import checked, is_text, media_type, safe_filename
from app.artifacts.links import Grant, sign
from app.errors import (
    AppError,
    BadRequest,
    Conflict,
    MemoryNotFound,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
)
from app.jobs.kinds import enqueue_artifact_index
from app.jobs.queue import JobQueue
from app.models import ArtifactMeta, to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.artifacts.files import ArtifactStore, TooLarge
from app.storage.graph import artifact_records as records
from app.storage.graph.records import new_id

log = logging.getLogger(__name__)

MAX_PER_MEMORY = 100
# Each round of compare-and-set has a winner: N uploads to one memory at once need N rounds.
SWAP_ATTEMPTS = 20
ADDED, REMOVED = "artifact_add", "artifact_delete"


class ArtifactNotFound(NotFound):
    def __init__(self, memory_id: str, artifact_id: str) -> None:
        super().__init__(f"Artifact {artifact_id} of memory {memory_id} not found")


class ArtifactFileMissing(AppError):
    """The graph lists the artifact, its file is gone (fsck reports it)."""


@dataclass
class Upload:
    filename: str | None
    content_type: str | None
    blocks: Iterable[bytes]
    text: bool  # sent as a text string (its type defaults to text/plain)


@dataclass
class TextPage:
    content: str
    offset: int
    limit: int
    total_chars: int
    next_offset: int | None


def files_of(stores: Stores) -> ArtifactStore:
    if stores.artifacts is None:
        raise ServiceUnavailable("This process keeps no artifact store")
    return stores.artifacts


async def save(
    stores: Stores, scope: Scope, actor: str, memory_id: str, upload: Upload, *, limit: int
) -> ArtifactMeta:
    """Checks and writes the bytes, then lists them on the memory."""
    current = await list_of(stores, scope, memory_id)
    if len(current) >= MAX_PER_MEMORY:
        raise BadRequest(f"A memory holds at most {MAX_PER_MEMORY} artifacts")
    files = files_of(stores)
    filename = safe_filename(upload.filename)
    content_type = media_type(upload.content_type, filename, text=upload.text)
    artifact_id = new_id()
    blocks = checked(upload.blocks, content_type)
    try:
        written = await asyncio.to_thread(
            files.write, scope.user_id, memory_id, artifact_id, blocks, limit
        )
    except TooLarge:
        raise PayloadTooLarge(
            f"An artifact may be at most {limit} bytes (MAX_ARTIFACT_SIZE)"
        ) from None
    meta = ArtifactMeta(
        id=artifact_id,
        filename=filename,
        content_type=content_type,
        size=written.size,
        sha256=written.sha256,
        created_at=to_iso(utc_now()),
    )
    try:
        await _change(stores, scope, memory_id, actor, (ADDED, artifact_id), _adding(meta))
    except BaseException:
        await asyncio.to_thread(files.remove, scope.user_id, memory_id, artifact_id)
        raise
    return meta


async def queue_index(jobs: JobQueue | None, scope: Scope, memory_id: str) -> None:
    """Queues the search index of the memory's text artifacts. The upload stands if the queue
    is down: a search with `include_artifacts` builds a missing index itself."""
    if jobs is None:
        return
    try:
        await enqueue_artifact_index(jobs, scope.user_id, scope.agent_id, memory_id)
    except Exception as exc:  # noqa: BLE001 - the file and its metadata are already stored
        log.warning("artifact index of memory %s not queued: %s", memory_id, exc)


def _adding(meta: ArtifactMeta) -> Callable[[list[ArtifactMeta]], list[ArtifactMeta]]:
    def edit(current: list[ArtifactMeta]) -> list[ArtifactMeta]:
        if len(current) >= MAX_PER_MEMORY:
            raise BadRequest(f"A memory holds at most {MAX_PER_MEMORY} artifacts")
        return [*current, meta]

    return edit


async def list_of(stores: Stores, scope: Scope, memory_id: str) -> list[ArtifactMeta]:
    found, stored = await records.read(stores.graph, scope, memory_id)
    if not found:
        raise MemoryNotFound(memory_id)
    return records.parse(stored)


async def find(stores: Stores, scope: Scope, memory_id: str, artifact_id: str) -> ArtifactMeta:
    for meta in await list_of(stores, scope, memory_id):
        if meta.id == artifact_id:
            return meta
    raise ArtifactNotFound(memory_id, artifact_id)


async def file_path(
    stores: Stores, scope: Scope, memory_id: str, meta: ArtifactMeta
) -> Path | None:
    """Where the artifact's bytes are on this machine (None: in an object store);
    ArtifactFileMissing if they are nowhere."""
    files = files_of(stores)
    if not await asyncio.to_thread(files.exists, scope.user_id, memory_id, meta.id):
        raise _missing(meta)
    return files.local_path(scope.user_id, memory_id, meta.id)


async def read_bytes(stores: Stores, scope: Scope, memory_id: str, meta: ArtifactMeta) -> bytes:
    try:
        return await asyncio.to_thread(files_of(stores).read, scope.user_id, memory_id, meta.id)
    except FileNotFoundError:
        raise _missing(meta) from None


def _missing(meta: ArtifactMeta) -> ArtifactFileMissing:
    return ArtifactFileMissing(
        f"The file of artifact {meta.id} is missing from the artifact store (fsck reports it)"
    )


async def read_text(
    stores: Stores, scope: Scope, memory_id: str, meta: ArtifactMeta, *, offset: int, limit: int
) -> TextPage:
    """One page of a text artifact, `offset` and `limit` in characters."""
    if not is_text(meta.content_type):
        raise BadRequest(f"Artifact {meta.id} is {meta.content_type}, not text")
    text = (await read_bytes(stores, scope, memory_id, meta)).decode("utf-8")
    page = text[offset : offset + limit]
    end = offset + len(page)
    return TextPage(page, offset, limit, len(text), end if end < len(text) else None)


async def delete(
    stores: Stores, scope: Scope, actor: str, memory_id: str, artifact_id: str
) -> None:
    """Takes the artifact off its memory, then removes its file."""

    def edit(current: list[ArtifactMeta]) -> list[ArtifactMeta]:
        kept = [a for a in current if a.id != artifact_id]
        if len(kept) == len(current):
            raise ArtifactNotFound(memory_id, artifact_id)
        return kept

    await _change(stores, scope, memory_id, actor, (REMOVED, artifact_id), edit)
    await asyncio.to_thread(files_of(stores).remove, scope.user_id, memory_id, artifact_id)
    stores.health.items_gone(artifact_search.BOARD, lambda item: item == (memory_id, artifact_id))


async def _change(
    stores: Stores,
    scope: Scope,
    memory_id: str,
    actor: str,
    change: tuple[str, str],
    edit: Callable[[list[ArtifactMeta]], list[ArtifactMeta]],
) -> None:
    """Applies `edit` to the memory's list by compare-and-set, again if a concurrent change won."""
    for _ in range(SWAP_ATTEMPTS):
        found, stored = await records.read(stores.graph, scope, memory_id)
        if not found:
            raise MemoryNotFound(memory_id)
        try:
            await records.swap(
                stores.graph,
                scope,
                memory_id,
                expected=stored,
                artifacts=edit(records.parse(stored)),
                change=change,
                actor=actor,
                now=to_iso(utc_now()),
            )
        except records.Changed:
            await asyncio.sleep(random.uniform(0, 0.005))  # so the losers do not collide again
            continue
        return
    raise Conflict(f"The artifacts of memory {memory_id} kept changing; retry")


async def link(
    stores: Stores,
    scope: Scope,
    memory_id: str,
    artifact_id: str,
    *,
    ttl_s: int,
    key: bytes,
    key_id: str,
) -> tuple[str, str]:
    """A download token for the artifact and when it expires (ISO-8601); it works while the API
    key `key_id` does."""
    await find(stores, scope, memory_id, artifact_id)
    expires = int(time.time()) + ttl_s
    grant = Grant(scope.user_id, scope.agent_id, memory_id, artifact_id, expires, key_id)
    return sign(grant, key), to_iso(datetime.fromtimestamp(expires, UTC))


async def url_key(stores: Stores, configured: str | None) -> bytes:
    """The key that signs download links: ENGRAM_ARTIFACT_URL_SECRET, else the store's own."""
    if configured:
        return hashlib.sha256(configured.encode()).digest()
    return await asyncio.to_thread(files_of(stores).url_secret)


async def remove_files(stores: Stores, user_id: str, memory_ids: Sequence[str]) -> None:
    """The files of deleted or erased memories (their metadata went with the node)."""
    if stores.artifacts is not None and memory_ids:
        await asyncio.to_thread(stores.artifacts.remove_memories, user_id, memory_ids)
        artifact_search.forget_memories(stores.health, memory_ids)
