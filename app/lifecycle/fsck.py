"""fsck: find what is wrong in a store, propose a fix for each finding, repair what is safe.

Checks (each finding names its memories and proposes a fix; `apply` repairs the `safe` ones,
the others need a person):

* duplicate: the same content (case, punctuation, spacing aside) twice in one scope; safe fix:
  archive all but one (the most important, then the oldest);
* contradiction: the same attribute (`slot`) with different contents, both current; proposed:
  invalidate the older;
* broken_validity: `t_invalid` not after `t_valid`; proposed: correct or clear `t_invalid`;
* invalid: a node that fails the memory model (types, ranges, JSON fields); proposed: edit or
  delete it;
* unreadable_property: a JSON property (metadata, labels, source, artifacts) whose stored value
  does not parse as the JSON object (list) it holds, e.g. '': reads take it as empty (and log
  it); safe fix: set it to its empty value;
* prompt_injection: stored text that reads as instructions to a model; safe fix: archive it
  (quarantine);
* dangling_reference: `consolidated_into`, `superseded_by` or `derived_from` naming a deleted
  memory; safe fix: drop the reference;
* missing_vector: marked embedded, but its point or dense vector is missing; safe fix: embed
  it again;
* orphan_vector (admin runs over every user): a point whose memory does not exist; safe fix:
  delete the point;
* missing_artifact / corrupt_artifact: a memory lists an artifact whose file is gone, or whose
  bytes no longer have its sha256; proposed: restore the file from a backup, or delete the
  artifact (DELETE /memory/{id}/artifacts/{aid});
* bad_artifact_type / broken_artifact_index: see app/lifecycle/fsck_artifacts.py;
* orphan_artifact (admin runs over every user): an artifact file no memory lists, older than
  ORPHAN_GRACE_S. Its memory gone (deleted by a path that leaves files): safe fix, delete the
  file; this is the artifact GC. Its memory live (a crash between writing the file and listing
  it, or a memory rebuilt by recover-from-vectors, which knows no artifacts): a person decides.

A caller's fsck reads only what its scope may see (the admin key: one user, or everyone); at
most FSCK_MAX_MEMORIES memories are read, in id order (`truncated` says when more exist).
Archiving is a revision (actor `engram:fsck`), restorable by PATCH {"archived": false}.
"""

import asyncio
from collections import defaultdict
from dataclasses import asdict
from datetime import datetime
from typing import Any

from app.jobs.kinds import batches, enqueue_embedding
from app.lifecycle.decay import mirror_payloads
from app.lifecycle.fsck_artifacts import artifact_indexes, artifact_types, rebuild_indexes
from app.lifecycle.fsck_checks import (
    Finding,
    Stored,
    broken_validity,
    contradictions,
    duplicates,
    injections,
    invalid,
    stored_from,
    unreadable,
)
from app.lifecycle.fsck_llm import confirm
from app.models import to_iso
from app.scope import Scope
from app.storage import Stores
from app.storage.artifacts.files import ArtifactStore, StoredFile, owner_dir
from app.storage.graph import artifact_records
from app.storage.graph import fsck as store
from app.storage.graph import lifecycle as lifecycle_store

ACTOR = "engram:fsck"
PAGE = 1000
VECTOR_BATCH = 256
MAX_LISTED = 200  # findings listed per report (counts are always complete)
# An upload writes its file before listing it: a younger unlisted file may be one in flight.
ORPHAN_GRACE_S = 3600.0


async def read(
    stores: Stores, scope: Scope | None, user_id: str | None, limit: int
) -> tuple[list[Stored], bool]:
    """Up to `limit` memories (in id order) and whether more exist."""
    found: list[Stored] = []
    after = ""
    while len(found) <= limit:
        rows = await store.page(
            stores.graph, scope, user_id, after=after, limit=min(PAGE, limit + 1 - len(found))
        )
        if not rows:
            break
        found += [stored_from(props, replaced) for props, replaced in rows]
        after = rows[-1][0]["id"]
    return found[:limit], len(found) > limit


async def dangling_references(stores: Stores, memories: list[Stored]) -> list[Finding]:
    named: dict[str, set[str]] = {}
    for m in memories:
        p = m.props
        refs = {p.get("consolidated_into"), p.get("superseded_by"), *(p.get("derived_from") or [])}
        refs.discard(None)
        if refs:
            named[p["id"]] = {str(r) for r in refs}
    wanted = set().union(*named.values()) if named else set()
    existing = await stores.graph.existing_ids(sorted(wanted)) if wanted else set()
    return [
        Finding(
            "dangling_reference",
            [memory_id],
            f"names deleted memories: {', '.join(sorted(refs - existing))}",
            "drop the references to the deleted memories",
            True,
        )
        for memory_id, refs in named.items()
        if refs - existing
    ]


async def missing_vectors(stores: Stores, memories: list[Stored]) -> list[Finding]:
    embedded = [m.props["id"] for m in memories if m.props.get("embedding_status") == "done"]
    missing = []
    for start in range(0, len(embedded), VECTOR_BATCH):
        chunk = embedded[start : start + VECTOR_BATCH]
        points = await stores.vectors.retrieve(chunk)
        missing += [i for i in chunk if i not in points or not points[i].has_dense]
    return [
        Finding(
            "missing_vector",
            [i],
            "marked embedded, but its vector is missing",
            "embed it again",
            True,
        )
        for i in missing
    ]


async def orphan_vectors(stores: Stores) -> list[Finding]:
    orphans: list[str] = []
    async for ids in stores.vectors.iter_ids():
        existing = await stores.graph.existing_ids(ids)
        orphans += [i for i in ids if i not in existing]
    return [
        Finding("orphan_vector", [i], "a vector point without a memory", "delete the point", True)
        for i in orphans
    ]


async def artifact_files(stores: Stores, memories: list[Stored]) -> list[Finding]:
    """Each listed artifact's file: there, and with the sha256 its metadata records."""
    files = stores.artifacts
    if files is None:
        return []
    findings = []
    for m in memories:
        listed = m.props.get("artifacts")
        if m.invalid is not None or not isinstance(listed, list):
            continue
        for artifact in listed:
            wrong = await _file_problem(files, m.props, artifact)
            if wrong is None:
                continue
            kind, problem = wrong
            findings.append(
                Finding(
                    kind,
                    [m.props["id"]],
                    f"artifact {artifact['id']} ({artifact.get('filename')}): {problem}",
                    "restore the file from a backup, or delete the artifact",
                    False,
                )
            )
    return findings


async def _file_problem(
    files: ArtifactStore, memory: dict[str, Any], artifact: dict[str, Any]
) -> tuple[str, str] | None:
    """(finding type, problem) of an artifact's file, or None if it is there with its sha256."""
    try:
        found = await asyncio.to_thread(
            files.digest, memory["user_id"], memory["id"], artifact["id"]
        )
    except OSError as exc:  # there, but it cannot be read (a directory, no permission, …)
        return "corrupt_artifact", f"its file cannot be read ({type(exc).__name__})"
    except ValueError:  # a record whose id is not an artifact's (never made by an upload)
        return "corrupt_artifact", "its id is not a UUID"
    if found is None:
        return "missing_artifact", "its file is missing"
    if found != artifact["sha256"]:
        return "corrupt_artifact", "its file's sha256 differs"
    return None


async def orphan_artifacts(stores: Stores) -> list[Finding]:
    files = stores.artifacts
    if files is None:
        return []
    on_disk: list[StoredFile] = await asyncio.to_thread(lambda: list(files.files()))
    listed = await artifact_records.of_memories(
        stores.graph, sorted({f.memory_id for f in on_disk})
    )
    live = await stores.graph.existing_ids(sorted({f.memory_id for f in on_disk}))
    findings = []
    for file in on_disk:
        owner, artifacts = listed.get(file.memory_id, ("", []))
        known = owner_dir(owner) == file.owner and file.name in {a.id for a in artifacts}
        if known or await asyncio.to_thread(file.age_s) < ORPHAN_GRACE_S:
            continue
        gone = file.memory_id not in live
        findings.append(
            Finding(
                "orphan_artifact",
                [file.memory_id],
                f"a file no memory lists (memory {'gone' if gone else 'live'}): "
                f"{file.owner}/{file.memory_id}/{file.name}",
                "delete the file" if gone else "attach it again, or delete the file",
                gone,
            )
        )
    return findings


async def run_fsck(
    deps: Any,
    *,
    scope: Scope | None,
    user_id: str | None,
    apply: bool,
    limit: int,
    now: datetime,
    llm_calls: int = 0,
) -> dict[str, Any]:
    """Runs every check for a scope (or, with scope None, the admin's user or everyone)."""
    stores: Stores = deps.stores
    memories, truncated = await read(stores, scope, user_id, limit)
    findings = (
        duplicates(memories)
        + contradictions(memories, now)
        + broken_validity(memories)
        + invalid(memories)
        + unreadable(memories)
        + injections(memories)
        + await dangling_references(stores, memories)
        + await missing_vectors(stores, memories)
        + await artifact_files(stores, memories)
        + artifact_types(memories)
        + await artifact_indexes(stores, memories)
    )
    if scope is None and user_id is None:
        findings += await orphan_vectors(stores) + await orphan_artifacts(stores)
    calls = 0
    if llm_calls and getattr(deps, "llm", None) is not None:
        contents = {m.props["id"]: str(m.props.get("content", "")) for m in memories}
        calls = await confirm(deps.llm, findings, contents, llm_calls)
    if apply:
        await repair(deps, findings, {m.props["id"]: m for m in memories}, now)
    counts: dict[str, int] = defaultdict(int)
    for finding in findings:
        counts[finding.type] += 1
    return {
        "status": "success",
        "user_id": scope.user_id if scope else user_id,
        "agent_id": scope.agent_id if scope else None,
        "checked": len(memories),
        "truncated": truncated,
        "counts": dict(counts),
        "applied": sum(f.applied for f in findings),
        "llm_calls": calls,
        "issues": [asdict(f) for f in findings[:MAX_LISTED]],
    }


async def repair(
    deps: Any, findings: list[Finding], stored: dict[str, Stored], now: datetime
) -> None:
    """Applies the safe fixes; marks each finding repaired."""
    stores: Stores = deps.stores
    props = {memory_id: m.props for memory_id, m in stored.items()}
    stamp = to_iso(now)
    archive, clear, embed, points, files, indexes = [], [], [], [], [], []
    unparsed: list[dict[str, Any]] = []
    for f in findings:
        if not f.safe:
            continue
        if f.type == "duplicate":
            archive += f.ids[1:]
        elif f.type == "prompt_injection":
            archive += f.ids
        elif f.type == "dangling_reference":
            gone = f.detail.split(": ", 1)[1].split(", ")
            clear.append({"id": f.ids[0], "user_id": props[f.ids[0]]["user_id"], "gone": gone})
        elif f.type == "unreadable_property":
            unparsed += _unparsed_rows(props[f.ids[0]], stored[f.ids[0]].unreadable)
        elif f.type == "missing_vector":
            embed.append({"id": f.ids[0], "user_id": props[f.ids[0]]["user_id"]})
        elif f.type == "orphan_vector":
            points += f.ids
        elif f.type == "orphan_artifact":
            files.append(f.detail)
        elif f.type == "broken_artifact_index":
            indexes.append(props[f.ids[0]])
        f.applied = True
    rows = [
        {
            "id": i,
            "user_id": props[i]["user_id"],
            "version": props[i]["version"],
            "score": props[i].get("relevance_score"),
        }
        for i in dict.fromkeys(archive)
    ]
    archived = await lifecycle_store.archive(stores.graph, rows, actor=ACTOR, now=stamp)
    await mirror_payloads(stores, archived)
    await store.clear_references(stores.graph, clear)
    await store.reset_unreadable(stores.graph, unparsed)
    await store.mark_unembedded(stores.graph, embed)
    owners: dict[str, list[str]] = defaultdict(list)
    for row in embed:
        owners[row["user_id"]].append(row["id"])
    if stores.jobs is not None:
        for owner, ids in owners.items():
            for chunk in batches(ids):
                await enqueue_embedding(stores.jobs, owner, chunk)
    if points:
        await stores.vectors.delete(points)
    if files and stores.artifacts is not None:
        await asyncio.to_thread(_discard, stores.artifacts, files)
    await rebuild_indexes(stores, indexes)


def _unparsed_rows(props: dict[str, Any], values: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": props["id"], "user_id": props["user_id"], "key": key, "stored": value}
        for key, value in values.items()
    ]


def _discard(files: ArtifactStore, details: list[str]) -> None:
    """Deletes the orphan files the findings name (their detail ends with the file's path)."""
    for detail in details:
        memory_state, _, where = detail.partition(": ")
        owner, memory_id, name = where.split("/")
        files.discard(owner, memory_id, name, memory_gone=memory_state.endswith("gone)"))
