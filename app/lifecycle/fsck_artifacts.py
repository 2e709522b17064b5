"""fsck's checks of what the artifact search reads: the stored type of each artifact, and the
search index of each text artifact (app/artifacts/search.py).

* bad_artifact_type: a stored content_type that is not a media type (a record from before types
  were checked); it is served as application/octet-stream; proposed: upload it again with its
  type, and delete this one;
* broken_artifact_index: a text artifact whose search index is there but cannot be read, or
  whose search failed in this process since (the health board's `artifact_search`, /health);
  the search leaves it out; safe fix: build its index again (an `artifact_index` job).
"""

import asyncio
from collections.abc import Iterator
from typing import Any

from app.artifacts import search as artifact_search
from app.artifacts.checks import is_text
from app.jobs.kinds import enqueue_artifact_index
from app.lifecycle.fsck_checks import Finding, Stored
from app.storage import Stores
from app.storage.artifacts.files import ArtifactStore
from app.storage.graph.artifact_records import valid_type

REBUILD = "build its search index again"


def _listed(memories: list[Stored]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(memory, artifact) of every artifact the readable memories list."""
    for m in memories:
        listed = m.props.get("artifacts")
        if m.invalid is None and isinstance(listed, list):
            yield from ((m.props, artifact) for artifact in listed if isinstance(artifact, dict))


def artifact_types(memories: list[Stored]) -> list[Finding]:
    return [
        Finding(
            "bad_artifact_type",
            [memory["id"]],
            f"artifact {artifact.get('id')}: its content_type "
            f"{str(artifact.get('content_type'))[:100]!r} is not a media type "
            "(it is served as application/octet-stream)",
            "upload the file again with its media type, then delete this artifact",
            False,
        )
        for memory, artifact in _listed(memories)
        if not valid_type(artifact.get("content_type"))
    ]


async def artifact_indexes(stores: Stores, memories: list[Stored]) -> list[Finding]:
    files = stores.artifacts
    if files is None:
        return []
    failing = stores.health.get(artifact_search.BOARD).broken
    findings = []
    for memory, artifact in _listed(memories):
        if not valid_type(artifact.get("content_type")) or not is_text(artifact["content_type"]):
            continue
        unreadable = await _unreadable_index(files, memory, artifact)
        if unreadable or (memory["id"], artifact["id"]) in failing:
            problem = "cannot be read" if unreadable else "failed in a search or its job"
            findings.append(
                Finding(
                    "broken_artifact_index",
                    [memory["id"]],
                    f"artifact {artifact['id']}: its search index {problem}; "
                    "artifact search leaves it out",
                    REBUILD,
                    True,
                )
            )
    return findings


async def _unreadable_index(
    files: ArtifactStore, memory: dict[str, Any], artifact: dict[str, Any]
) -> bool:
    """Whether the artifact has an index that cannot be read (none at all is not broken: its
    job has not run yet, or a search builds it)."""
    try:
        stored = await asyncio.to_thread(
            files.read_index, memory["user_id"], memory["id"], artifact["id"]
        )
    except (OSError, ValueError):
        return True
    return stored is not None and artifact_search.load_index(stored) is None


async def rebuild_indexes(stores: Stores, memories: list[dict[str, Any]]) -> None:
    """Queues the index job of each memory (as its own agent, which sees it)."""
    if stores.jobs is None:
        return
    for memory in {m["id"]: m for m in memories}.values():
        await enqueue_artifact_index(
            stores.jobs, memory["user_id"], memory.get("agent_id"), memory["id"]
        )
