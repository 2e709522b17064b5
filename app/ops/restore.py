"""Restore a backup archive into an empty Engram, and prove the result equals the backup.

Order: unpack and check every part's sha256; refuse a store that holds anything unless forced
(forced: everything is deleted first); hold writes for the whole run; load nodes, then
relationships; prove counts per kind and every memory's digest equal the manifest; apply the
migrations the backup predates (an older backup is migrated forward); then the vectors: a
saved vector is used where the model and dimension match and the memory's content has the
hash it was made from, every other memory gets its keyword point at once and is queued for
embedding; last the artifact files (each checked against its sha256, written whole or not at
all). A backup without artifacts (older ones) restores as before.
"""

import asyncio
import base64
import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.errors import BadRequest, Conflict
from app.jobs.kinds import batches, enqueue_embedding
from app.memories.tasks import EmbedDeps
from app.models import Memory, Status
from app.ops import archive
from app.ops.write_gate import WriteGate
from app.storage.graph import schema, settings_cache, snapshot
from app.storage.graph.records import memory_from_properties
from app.storage.mirror import vector_point

LOAD_BATCH = 5000
CHECK_BATCH = 1000
PAGE = 512


@dataclass
class RestoreReport:
    verified: bool = False
    counts: dict[str, Any] = field(default_factory=dict)
    memories: int = 0
    mismatched_memories: list[str] = field(default_factory=list)
    count_differences: dict[str, Any] = field(default_factory=dict)
    migrations_applied: list[str] = field(default_factory=list)
    vectors_restored: int = 0
    queued_for_embedding: int = 0
    replaced_existing: bool = False
    artifacts_restored: int = 0
    mismatched_artifacts: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def restore_backup(
    deps: EmbedDeps, gate: WriteGate, archive_path: Path, workdir: Path, *, force: bool
) -> RestoreReport:
    manifest = await asyncio.to_thread(archive.unpack_archive, archive_path, workdir)
    _check_schema(manifest)
    report = RestoreReport()
    async with gate.paused():
        report.replaced_existing = await _empty_target(deps, force=force)
        await _load_graph(deps, workdir)
        settings_cache.forget(deps.stores.graph)  # the users' settings are the archive's now
        await _verify(deps, manifest, workdir, report)
        if not report.verified:
            return report
        report.migrations_applied = await schema.migrate(deps.stores.graph)
        await _restore_vectors(deps, manifest, workdir, report)
        await _restore_artifacts(deps, workdir, report)
    return report


def _check_schema(manifest: dict[str, Any]) -> None:
    known = {name for name, _ in schema.discover()}
    unknown = sorted(set(manifest.get("schema", {}).get("migrations", [])) - known)
    if unknown:
        raise BadRequest(
            f"The backup was made by a newer Engram (migrations {', '.join(unknown)} are "
            "unknown here): restore it with that version or a later one"
        )


async def _empty_target(deps: EmbedDeps, *, force: bool) -> bool:
    """Deletes whatever the target holds if forced; refuses a non-empty target otherwise."""
    graph, vectors = deps.stores.graph, deps.stores.vectors
    held = (await snapshot.counts(graph))["nodes"]
    data = {kind: n for kind, n in held.items() if kind != "Migration"}
    points = await vectors.count(None)
    if (data or points) and not force:
        raise Conflict(
            f"The target is not empty ({sum(data.values())} graph nodes, {points} vector "
            "points): restore into an empty server, or pass force=true (`engram restore --force`) "
            "to replace everything"
        )
    await snapshot.delete_everything(graph)  # the migration records are the backup's now
    if deps.stores.artifacts is not None:
        await asyncio.to_thread(deps.stores.artifacts.remove_everything)
    async for ids in vectors.iter_ids(PAGE):
        await vectors.delete(ids)
    return bool(data or points)


async def _load_graph(deps: EmbedDeps, workdir: Path) -> None:
    graph = deps.stores.graph
    new_ids: dict[int, int] = {}
    for nodes in archive.read_records(workdir / archive.NODES, LOAD_BATCH):
        new_ids.update(await snapshot.create_nodes(graph, nodes))
    for edges in archive.read_records(workdir / archive.RELATIONSHIPS, LOAD_BATCH):
        try:
            mapped = [{**e, "src": new_ids[e["src"]], "dst": new_ids[e["dst"]]} for e in edges]
        except KeyError as exc:
            raise BadRequest(f"The backup has a relationship to a missing node {exc}") from exc
        await snapshot.create_edges(graph, mapped)


async def _verify(
    deps: EmbedDeps, manifest: dict[str, Any], workdir: Path, report: RestoreReport
) -> None:
    """Counts per kind and each memory's digest, against the manifest."""
    graph = deps.stores.graph
    report.counts = await snapshot.counts(graph)
    expected = manifest["counts"]
    for section in ("nodes", "relationships"):
        got, want = report.counts[section], expected.get(section, {})
        for kind in sorted(set(got) | set(want)):
            if got.get(kind, 0) != want.get(kind, 0):
                report.count_differences[f"{section}.{kind}"] = {
                    "backup": want.get(kind, 0),
                    "restored": got.get(kind, 0),
                }
    for digests in archive.read_records(workdir / archive.DIGESTS, CHECK_BATCH):
        found = await snapshot.memory_properties(graph, [d["id"] for d in digests])
        for entry in digests:
            props = found.get(entry["id"])
            if props is None or archive.memory_digest(props) != entry["sha256"]:
                report.mismatched_memories.append(entry["id"])
        report.memories += len(digests)
    report.verified = not report.count_differences and not report.mismatched_memories


async def _restore_vectors(
    deps: EmbedDeps, manifest: dict[str, Any], workdir: Path, report: RestoreReport
) -> None:
    embedding = manifest.get("embedding", {})
    same_space = (
        embedding.get("model") == deps.embedder.model
        and embedding.get("dimension") == deps.embedder.dimension
    )
    await deps.stores.vectors.set_embedding_model(deps.embedder.model)
    restored: set[str] = set()
    path = workdir / archive.VECTORS
    if same_space and path.exists():
        for saved in archive.read_records(path, PAGE):
            restored |= await _put_saved_vectors(deps, saved)
    report.vectors_restored = len(restored)
    report.queued_for_embedding = await _point_the_rest(deps, restored)


async def _restore_artifacts(deps: EmbedDeps, workdir: Path, report: RestoreReport) -> None:
    """The backup's artifact files, one at a time; one whose bytes do not have its sha256 is
    left out and named (fsck then reports it missing)."""
    path, files = workdir / archive.ARTIFACTS, deps.stores.artifacts
    if files is None or not path.exists():
        return
    for (line,) in archive.read_records(path, 1):
        data = base64.b64decode(line["content_base64"])
        if hashlib.sha256(data).hexdigest() != line["sha256"]:
            report.mismatched_artifacts.append(line["id"])
            continue
        ids = (line["user_id"], line["memory_id"], line["id"])
        await asyncio.to_thread(files.write, *ids, [data], len(data))
        report.artifacts_restored += 1


async def _put_saved_vectors(deps: EmbedDeps, saved: Sequence[dict[str, Any]]) -> set[str]:
    found = await snapshot.memory_properties(deps.stores.graph, [v["id"] for v in saved])
    points, used = [], set()
    for vector in saved:
        props = found.get(vector["id"])
        if props is None or props.get("content_hash") != vector["content_hash"]:
            continue
        memory = memory_from_properties(props)
        if memory.embedding_status != Status.DONE:
            continue
        points.append(vector_point(memory, archive.decode_dense(vector["dense"])))
        used.add(memory.id)
    if points:
        await deps.stores.vectors.upsert(points)
    return used


async def _point_the_rest(deps: EmbedDeps, restored: set[str]) -> int:
    """Keyword points for memories without a saved vector, and embed jobs for them."""
    graph, queued, after = deps.stores.graph, 0, ""
    while page := await graph.page_of_memories(after=after, limit=PAGE):
        after = page[-1].id
        rest = [m for m in page if m.id not in restored]
        if not rest:
            continue
        await deps.stores.vectors.upsert([vector_point(m, None) for m in rest])
        was_done = [m.id for m in rest if m.embedding_status == Status.DONE]
        if was_done:
            await graph.set_status_any_user(was_done, Status.PENDING.value)
        queued += await _queue(deps, rest)
    return queued


async def _queue(deps: EmbedDeps, memories: list[Memory]) -> int:
    for user_id in sorted({m.user_id for m in memories}):
        for chunk in batches([m.id for m in memories if m.user_id == user_id]):
            await enqueue_embedding(deps.jobs, user_id, chunk)
    return len(memories)
