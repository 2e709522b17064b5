"""Backup: a consistent, online snapshot of the graph (and the vectors) into one archive.

The snapshot is GRAPH.COPY, taken with writes paused (app.ops.write_gate), so every
acknowledged write is wholly in it or wholly out of it; the copy is then read at leisure
while the service goes on, and deleted. Vectors are read after the copy: each is stored with
the content hash it was made from, and a restore uses it only for a memory whose content in
the snapshot has that hash (otherwise the memory is embedded again), so a vector never
stands for other content than the one restored. Artifact files are read after the copy too:
a file is never changed once written, so each is the one its memory in the snapshot lists,
unless it was deleted since (then it is left out and counted as `artifacts_missing`).
"""

import asyncio
import base64
import uuid
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from app.embeddings import Embedder
from app.errors import BadRequest
from app.models import to_iso, utc_now
from app.ops import archive
from app.ops.write_gate import WriteGate
from app.storage import Stores
from app.storage.graph import artifact_records, snapshot
from app.storage.graph.store import GraphStore

INCLUDABLE = ("falkordb", "qdrant")
VECTOR_BATCH = 256


@dataclass
class BackupSource:
    stores: Stores
    embedder: Embedder
    gate: WriteGate


def parse_include(value: str | None) -> tuple[str, ...]:
    """AutoMem's `include=falkordb,qdrant`; the graph is always included (it is the truth)."""
    names = [n.strip() for n in (value or ",".join(INCLUDABLE)).split(",") if n.strip()]
    if not names or any(n not in INCLUDABLE for n in names):
        raise BadRequest("include must be a comma-separated subset of: falkordb,qdrant")
    return tuple(n for n in INCLUDABLE if n in names or n == "falkordb")


async def create_backup(source: BackupSource, workdir: Path, include: tuple[str, ...]) -> Path:
    """Writes the archive under `workdir`; returns its path."""
    graph = source.stores.graph
    copy = graph.on_graph(f"{graph.graph_name}__backup_{uuid.uuid4().hex[:12]}")
    async with source.gate.paused():
        started_at = to_iso(utc_now())
        await graph.copy_to(copy.graph_name)
    try:
        manifest = await _write_parts(source, copy, workdir / "parts", "qdrant" in include)
    finally:
        await copy.delete_graph()
    manifest.update(_describe(source, started_at, include))
    out = workdir / f"engram-backup-{started_at.replace(':', '').replace('-', '')[:15]}.tar.gz"
    await asyncio.to_thread(archive.write_archive, workdir / "parts", manifest, out)
    return out


async def _write_parts(
    source: BackupSource, copy: GraphStore, root: Path, with_vectors: bool
) -> dict[str, Any]:
    parts = {name: archive.PartWriter.open(root, name) for name in archive.GRAPH_PARTS}
    if with_vectors:
        parts[archive.VECTORS] = archive.PartWriter.open(root, archive.VECTORS)
    files = Artifacts(archive.PartWriter.open(root, archive.ARTIFACTS))
    migrations: list[str] = []
    async for nodes in snapshot.iter_nodes(copy):
        await asyncio.to_thread(parts[archive.NODES].write, nodes)
        migrations += [n["properties"]["id"] for n in nodes if n["labels"] == ["Migration"]]
        memories = [n["properties"] for n in nodes if n["labels"] == ["Memory"]]
        digests = [{"id": p["id"], "sha256": archive.memory_digest(p)} for p in memories]
        await asyncio.to_thread(parts[archive.DIGESTS].write, digests)
        if with_vectors and memories:
            await _write_vectors(source, [p["id"] for p in memories], parts[archive.VECTORS])
        await _write_artifacts(source.stores, memories, files)
    async for edges in snapshot.iter_edges(copy):
        await asyncio.to_thread(parts[archive.RELATIONSHIPS].write, edges)
    counts: dict[str, Any] = {**await snapshot.counts(copy)}
    counts["memories"] = parts[archive.DIGESTS].records
    if with_vectors:
        counts["vectors"] = parts[archive.VECTORS].records
    if files.part.records or files.missing:
        parts[archive.ARTIFACTS] = files.part
        counts["artifacts"], counts["artifacts_missing"] = files.part.records, files.missing
    else:
        files.part.close()
    return {
        "counts": counts,
        "schema": {"migrations": sorted(migrations)},
        "parts": {name: part.close() for name, part in parts.items()},
    }


async def _write_vectors(source: BackupSource, ids: list[str], part: archive.PartWriter) -> None:
    for start in range(0, len(ids), VECTOR_BATCH):
        records = await source.stores.vectors.retrieve(ids[start : start + VECTOR_BATCH])
        lines = [
            {
                "id": record.id,
                "content_hash": record.payload.get("content_hash"),
                "dense": archive.encode_dense(record.dense),
            }
            for record in records.values()
            if record.dense is not None
        ]
        await asyncio.to_thread(part.write, lines)


@dataclass
class Artifacts:
    part: archive.PartWriter
    missing: int = 0


async def _write_artifacts(stores: Stores, memories: list[dict[str, Any]], out: Artifacts) -> None:
    """One line per artifact the memories list, with its bytes (one file in memory at a time)."""
    if stores.artifacts is None:
        return
    for props in memories:
        for meta in artifact_records.parse(props.get("artifacts")):
            ids = (props["user_id"], props["id"], meta.id)
            try:
                data = await asyncio.to_thread(stores.artifacts.read, *ids)
            except FileNotFoundError:
                out.missing += 1
                continue
            line = {
                "user_id": props["user_id"],
                "memory_id": props["id"],
                "id": meta.id,
                "sha256": meta.sha256,
                "content_base64": base64.b64encode(data).decode(),
            }
            await asyncio.to_thread(out.part.write, [line])


def _describe(source: BackupSource, started_at: str, include: tuple[str, ...]) -> dict[str, Any]:
    return {
        "format": archive.FORMAT,
        "format_version": archive.FORMAT_VERSION,
        "engram_version": _version(),
        "created_at": started_at,
        "graph": source.stores.graph.graph_name,
        "include": list(include),
        "embedding": {
            "provider": source.embedder.name,
            "model": source.embedder.model,
            "dimension": source.embedder.dimension,
        },
    }


def _version() -> str | None:
    try:
        return metadata.version("engram")
    except metadata.PackageNotFoundError:
        return None
