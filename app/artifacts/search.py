"""Searching the text of artifacts, on demand (`include_artifacts` on recall), never in routine
recall: slow memory is fetched when asked for.

A text artifact is cut into chunks of about CHUNK_CHARS characters, ended after a sentence or at
a space where one is near, never inside a word; each chunk is embedded with the memory
embedder. The chunks' unit vectors are kept beside the file as its search index
(`<artifact id>.chunks`, app/storage/artifacts/files.py), written by an `artifact_index` job
after the upload or, when a search finds none, by the search itself within its budget (chunks
embedded per request); artifacts left over are reported as `pending`. The index names the file's
sha256 and the embedding model, so a stale one is rebuilt; it goes with its file (delete,
erasure) and is not part of backups or exports (it is rebuilt from the text).

A search scores every chunk of the caller's text artifacts by cosine similarity with the
query's vector and returns the best ones above the floor, each with its memory, artifact,
character offsets and text.

An empty or whitespace-only text has no chunks: its index is written with none, and a search
finds nothing in it. One artifact never fails a search: an index that cannot be read is rebuilt,
and an artifact whose file or index still fails is logged, left out (`skipped`) and kept on the
health board (BOARD, shown by /health and fsck) until it works again or is deleted.
"""

import asyncio
import io
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from app.artifacts.checks import is_text
from app.embeddings import Embedder
from app.jobs.spec import JobContext
from app.models import ArtifactMeta
from app.scope import Scope
from app.storage import Stores
from app.storage.artifacts.files import ArtifactStore
from app.storage.graph import artifact_records as records
from app.storage.health import HealthBoard

log = logging.getLogger(__name__)

BOARD = "artifact_search"  # the health board's component: items are (memory id, artifact id)
CHUNK_CHARS = 1000
# How far back from a chunk's end a sentence end or space is looked for.
BREAK_WINDOW = 200
EMBED_BATCH = 32
MAX_ARTIFACTS = 500  # text artifacts searched per request, newest memories first
SENTENCE_END = re.compile(r"[.!?\n]\s")


@dataclass(frozen=True)
class ChunkIndex:
    sha256: str
    model: str
    spans: list[tuple[int, int]]
    vectors: np.ndarray  # one unit vector per span, float32


# A chunk found: (score, memory id, artifact, (start, end) of the chunk in the text).
Scored = tuple[float, str, ArtifactMeta, tuple[int, int]]


class ArtifactFound(TypedDict):
    """A chunk as a recall's `artifacts.results` show it."""

    memory_id: str
    artifact: dict[str, Any]  # ArtifactMeta's fields
    offset: int
    length: int
    content: str
    score: float


class ArtifactsFound(TypedDict):
    """A recall's `artifacts`: the chunks, best first, and what was and was not searched."""

    results: list[ArtifactFound]
    searched: int
    pending: int
    skipped: int


@dataclass
class ArtifactHit:
    memory_id: str
    artifact: ArtifactMeta
    start: int
    end: int
    text: str
    score: float

    def as_dict(self) -> ArtifactFound:
        return {
            "memory_id": self.memory_id,
            "artifact": self.artifact.model_dump(),
            "offset": self.start,
            "length": self.end - self.start,
            "content": self.text,
            "score": round(self.score, 6),
        }


@dataclass
class ArtifactSearch:
    hits: list[ArtifactHit] = field(default_factory=list)
    searched: int = 0  # text artifacts whose chunks were scored
    pending: int = 0  # text artifacts without an index, beyond this request's budget
    skipped: int = 0  # text artifacts whose file or index failed (logged, on the health board)

    def as_dict(self) -> ArtifactsFound:
        return {
            "results": [hit.as_dict() for hit in self.hits],
            "searched": self.searched,
            "pending": self.pending,
            "skipped": self.skipped,
        }


def chunk_spans(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """(start, end) of each chunk; together they cover the text, blank chunks left out."""
    spans, start = [], 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            end = _break_before(text, start, end)
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    return spans


def _break_before(text: str, start: int, end: int) -> int:
    window_start = max(start + 1, end - BREAK_WINDOW)
    window = text[window_start:end]
    sentence = [m.end() for m in SENTENCE_END.finditer(window)]
    if sentence:
        return window_start + sentence[-1]
    space = window.rfind(" ")
    return window_start + space + 1 if space >= 0 else end


def dump_index(index: ChunkIndex) -> bytes:
    header = {"sha256": index.sha256, "model": index.model, "spans": index.spans}
    buffer = io.BytesIO()
    np.savez(
        buffer,
        header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
        vectors=index.vectors.astype(np.float16),
    )
    return buffer.getvalue()


def load_index(data: bytes) -> ChunkIndex | None:
    """The index as written; None if it cannot be read or does not hold together (it is then
    rebuilt): one row of vectors per span."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as stored:
            header = json.loads(stored["header"].tobytes())
            vectors = stored["vectors"].astype(np.float32)
        spans = [(int(a), int(b)) for a, b in header["spans"]]
        index = ChunkIndex(str(header["sha256"]), str(header["model"]), spans, vectors)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return index if vectors.ndim == 2 and len(vectors) == len(spans) else None


async def build_index(
    files: ArtifactStore, embedder: Embedder, user_id: str, memory_id: str, meta: ArtifactMeta
) -> ChunkIndex | None:
    """Embeds the artifact's chunks and writes its index; None if the file is gone."""
    try:
        raw = await asyncio.to_thread(files.read, user_id, memory_id, meta.id)
    except FileNotFoundError:
        return None
    text = raw.decode("utf-8", errors="replace")
    spans = chunk_spans(text)
    vectors = await _chunk_vectors(embedder, [text[a:b] for a, b in spans])
    index = ChunkIndex(meta.sha256, embedder.model, spans, _unit_rows(vectors))
    try:
        await asyncio.to_thread(files.write_index, user_id, memory_id, meta.id, dump_index(index))
    except FileNotFoundError:  # deleted while it was embedded
        return None
    return index


async def _chunk_vectors(embedder: Embedder, chunks: list[str]) -> np.ndarray:
    """One row per chunk; no rows at all for a text without chunks (empty or blank)."""
    rows: list[list[float]] = []
    for first in range(0, len(chunks), EMBED_BATCH):
        rows.extend(await embedder.embed(chunks[first : first + EMBED_BATCH]))
    if not rows:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.asarray(rows, dtype=np.float32)


async def current_index(
    files: ArtifactStore, embedder: Embedder, user_id: str, memory_id: str, meta: ArtifactMeta
) -> ChunkIndex | None:
    """The artifact's index if it is there and matches its file and the embedder."""
    data = await asyncio.to_thread(files.read_index, user_id, memory_id, meta.id)
    index = load_index(data) if data is not None else None
    if index is None or index.sha256 != meta.sha256 or index.model != embedder.model:
        return None
    return index if index.vectors.shape[1] == embedder.dimension else None


class IndexFailed(Exception):
    """Some of a memory's text artifacts could not be indexed (each is logged)."""


async def index_artifact(stores: Stores, embedder: Embedder, scope: Scope, memory_id: str) -> int:
    """Builds the missing or stale indexes of one memory's text artifacts; returns how many.
    One that fails does not stop the others; IndexFailed after them (the job is retried)."""
    if stores.artifacts is None:
        return 0
    found, stored = await records.read(stores.graph, scope, memory_id)
    built = failed = 0
    for meta in records.parse(stored) if found else []:
        if not is_text(meta.content_type):
            continue
        try:
            if await current_index(stores.artifacts, embedder, scope.user_id, memory_id, meta):
                continue
            index = await build_index(stores.artifacts, embedder, scope.user_id, memory_id, meta)
        except Exception as exc:  # noqa: BLE001 - one artifact never stops the others
            _broken(stores.health, memory_id, meta, exc)
            failed += 1
            continue
        stores.health.items_recovered(BOARD, [(memory_id, meta.id)])
        built += index is not None
    if failed:
        raise IndexFailed(f"{failed} text artifact(s) of memory {memory_id} could not be indexed")
    return built


def _broken(board: HealthBoard, memory_id: str, meta: ArtifactMeta, exc: BaseException) -> None:
    log.warning(
        "artifact %s of memory %s left out of artifact search: %s: %s",
        meta.id,
        memory_id,
        type(exc).__name__,
        exc,
    )
    # /health shows the board to anyone: the kind of failure only, its ids are in the log.
    board.item_failed(BOARD, (memory_id, meta.id), type(exc).__name__)


def forget_memories(board: HealthBoard, memory_ids: Sequence[str]) -> None:
    """Deleted or erased memories' artifacts are off the health board."""
    gone = set(memory_ids)
    board.items_gone(BOARD, lambda item: item[0] in gone)


async def search(
    stores: Stores,
    embedder: Embedder,
    scope: Scope,
    query_vector: Sequence[float],
    *,
    limit: int,
    floor: float,
    budget: int,
) -> ArtifactSearch:
    """The best chunks of the scope's text artifacts for the query; `budget`: chunks this
    request may embed for artifacts that have no index yet."""
    outcome = ArtifactSearch()
    files = stores.artifacts
    if files is None or limit <= 0:
        return outcome
    query = _unit_rows(np.asarray([query_vector], dtype=np.float32))[0]
    scored: list[Scored] = []
    working: list[tuple[str, str]] = []
    for memory_id, meta in await _text_artifacts(stores, scope):
        try:
            index = await current_index(files, embedder, scope.user_id, memory_id, meta)
            if index is None:
                index, budget = await _within_budget(
                    files, embedder, scope, memory_id, meta, budget
                )
            found = _best(index, query, limit, floor) if index is not None else []
        except Exception as exc:  # noqa: BLE001 - one artifact never fails a recall
            _broken(stores.health, memory_id, meta, exc)
            outcome.skipped += 1
            continue
        if index is None:
            outcome.pending += 1
            continue
        outcome.searched += 1
        working.append((memory_id, meta.id))
        scored += [(score, memory_id, meta, index.spans[at]) for score, at in found]
    stores.health.items_recovered(BOARD, working)
    scored.sort(key=lambda item: -item[0])
    outcome.hits = await _hits(files, stores.health, scope, scored[:limit], outcome)
    return outcome


def _best(
    index: ChunkIndex, query: np.ndarray, limit: int, floor: float
) -> list[tuple[float, int]]:
    """(score, span position) of the index's best chunks for the query, at or above `floor`."""
    scores = index.vectors @ query if len(index.spans) else np.zeros(0)
    return [
        (float(scores[position]), int(position))
        for position in np.argsort(-scores)[:limit]
        if scores[position] >= floor
    ]


async def _within_budget(
    files: ArtifactStore,
    embedder: Embedder,
    scope: Scope,
    memory_id: str,
    meta: ArtifactMeta,
    budget: int,
) -> tuple[ChunkIndex | None, int]:
    # Chunks are at least CHUNK_CHARS - BREAK_WINDOW long, so size bounds their number.
    expected = max(1, meta.size // (CHUNK_CHARS - BREAK_WINDOW) + 1)
    if expected > budget:
        return None, budget
    index = await build_index(files, embedder, scope.user_id, memory_id, meta)
    return index, budget - (len(index.spans) if index else 0)


async def _text_artifacts(stores: Stores, scope: Scope) -> list[tuple[str, ArtifactMeta]]:
    listed = await records.in_scope(stores.graph, scope, MAX_ARTIFACTS)
    return [
        (memory_id, meta)
        for memory_id, artifacts in listed
        for meta in artifacts
        if is_text(meta.content_type)
    ][:MAX_ARTIFACTS]


async def _hits(
    files: ArtifactStore,
    board: HealthBoard,
    scope: Scope,
    scored: list[Scored],
    outcome: ArtifactSearch,
) -> list[ArtifactHit]:
    """The chunks' text, each artifact read once however many of its chunks are hits; an
    artifact whose file cannot be read is left out (skipped)."""
    texts: dict[str, str | None] = {}
    hits = []
    for score, memory_id, meta, (start, end) in scored:
        if meta.id not in texts:
            texts[meta.id] = await _text(files, board, scope, memory_id, meta)
            if texts[meta.id] is None:  # scored, but its text is unreadable now
                outcome.searched, outcome.skipped = outcome.searched - 1, outcome.skipped + 1
        text = texts[meta.id]
        if text is not None:
            hits.append(ArtifactHit(memory_id, meta, start, end, text[start:end], score))
    return hits


async def _text(
    files: ArtifactStore, board: HealthBoard, scope: Scope, memory_id: str, meta: ArtifactMeta
) -> str | None:
    try:
        raw = await asyncio.to_thread(files.read, scope.user_id, memory_id, meta.id)
    except Exception as exc:  # noqa: BLE001 - one artifact never fails a recall
        _broken(board, memory_id, meta, exc)
        return None
    return raw.decode("utf-8", errors="replace")


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


async def artifact_index_job(ctx: JobContext) -> dict[str, int]:
    """Handler of `artifact_index` jobs: ids = [user_id, memory_id], payload {agent_id}."""
    scope = Scope(ctx.ids[0], ctx.payload.get("agent_id"))
    built = await index_artifact(ctx.deps.stores, ctx.deps.embedder, scope, ctx.ids[1])
    return {"indexed": built}
