"""Cypher for the memory lifecycle: relevance scores, archiving and forgetting, run history.

These are operator paths run by jobs: they address memories by id and owner (`user_id`), over
every agent of that owner, never across owners. Archiving is a revision like any PATCH (the
previous state is kept, an audit event written); a forgotten memory leaves a tombstone like
any delete.
"""

import json
from collections.abc import Sequence
from typing import Any, TypedDict

from app.models import Memory
from app.storage.graph.records import memory_from_properties
from app.storage.graph.store import GraphStore

# Live memories in id order with the number of their links to other memories.
SCORING_PAGE = """
MATCH (m:Memory) WHERE m.id > $after AND ($user_id IS NULL OR m.user_id = $user_id)
  AND NOT coalesce(m.archived, false)
WITH m ORDER BY m.id LIMIT $limit
RETURN properties(m), size([(m)-[]-(o:Memory) WHERE o.id <> m.id | o.id])
"""
SET_RELEVANCE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
SET m.relevance_score = row.score, m.relevance_at = $now
"""
ARCHIVE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.user_id = row.user_id AND m.version = row.version AND NOT coalesce(m.archived, false)
CREATE (r:Revision) SET r = properties(m), r.id = m.id + ':' + toString(m.version),
       r.memory_id = m.id, r.replaced_at = $now, r.replaced_by = $actor
SET m.archived = true, m.archived_at = $now, m.relevance_score = row.score,
    m.version = m.version + 1, m.updated_at = $now
CREATE (:AuditEvent {id: m.id + ':' + toString(m.version), memory_id: m.id, user_id: m.user_id,
        agent_id: m.agent_id, actor: $actor, action: 'update', version: m.version, at: $now,
        fields: ['archived', 'archived_at', 'relevance_score']})
RETURN properties(m)
"""
FORGET = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id AND m.version = row.version
CREATE (r:Revision) SET r = properties(m), r.id = m.id + ':' + toString(m.version),
       r.memory_id = m.id, r.replaced_at = $now, r.replaced_by = $actor
CREATE (:Tombstone {memory_id: m.id, user_id: m.user_id, agent_id: m.agent_id,
        agent_lineage: m.agent_lineage, content_hash: m.content_hash, deleted_at: $now,
        actor: $actor, version: m.version})
CREATE (:AuditEvent {id: m.id + ':delete', memory_id: m.id, user_id: m.user_id,
        agent_id: m.agent_id, actor: $actor, action: 'delete', version: m.version, at: $now})
WITH m, m.id AS id
DETACH DELETE m
RETURN id
"""
RECORD_RUN = """
CREATE (r:ConsolidationRun {id: $id, mode: $mode, task: $task, success: $success,
        dry_run: $dry_run, started_at: $started_at, completed_at: $completed_at,
        result: $result, trigger: $trigger})
"""
PRUNE_RUNS = """
MATCH (r:ConsolidationRun) WITH r ORDER BY r.started_at DESC SKIP $keep DELETE r
"""
RUN_HISTORY = """
MATCH (r:ConsolidationRun) WITH r ORDER BY r.started_at DESC LIMIT $limit RETURN properties(r)
"""
LAST_RUNS = """
MATCH (r:ConsolidationRun) WHERE r.success AND NOT r.dry_run
RETURN r.task, max(r.started_at)
"""


async def scoring_page(
    graph: GraphStore, *, after: str, limit: int, user_id: str | None
) -> list[tuple[Memory, int]]:
    """Live (unarchived) memories after `after` in id order, each with its link count."""
    params = {"after": after, "limit": limit, "user_id": user_id}
    rows = await graph.ro_rows(SCORING_PAGE, params)
    return [(memory_from_properties(props), int(links)) for props, links in rows]


async def set_relevance(graph: GraphStore, rows: Sequence[dict[str, Any]], now: str) -> None:
    """Writes relevance scores: rows of {id, user_id, score}. Not a revision (derived data)."""
    if rows:
        await graph.query(SET_RELEVANCE, {"rows": list(rows), "now": now})


async def archive(
    graph: GraphStore, rows: Sequence[dict[str, Any]], *, actor: str, now: str
) -> list[Memory]:
    """Archives memories still at the version read (rows of {id, user_id, version, score})."""
    if not rows:
        return []
    result = await graph.query(ARCHIVE, {"rows": list(rows), "actor": actor, "now": now})
    return [memory_from_properties(row[0]) for row in result]


async def forget(
    graph: GraphStore, rows: Sequence[dict[str, Any]], *, actor: str, now: str
) -> list[str]:
    """Deletes memories still at the version read, each leaving a tombstone and a revision."""
    if not rows:
        return []
    result = await graph.query(FORGET, {"rows": list(rows), "actor": actor, "now": now})
    return [row[0] for row in result]


async def record_run(graph: GraphStore, run: dict[str, Any], keep: int) -> None:
    """Stores one consolidation run and prunes the history to the newest `keep`."""
    params = {**run, "result": json.dumps(run.get("result") or {}, separators=(",", ":"))}
    await graph.query(RECORD_RUN, params)
    await graph.query(PRUNE_RUNS, {"keep": keep})


async def run_history(graph: GraphStore, limit: int) -> list[dict[str, Any]]:
    """The newest runs first, their results parsed."""
    rows = await graph.ro_query(RUN_HISTORY, {"limit": limit})
    runs = []
    for (props,) in rows:
        run = dict(props)
        run["result"] = json.loads(run.get("result") or "{}")
        runs.append(run)
    return runs


async def last_runs(graph: GraphStore) -> dict[str, str]:
    """task -> start time of its newest successful, non-dry run."""
    return {row[0]: row[1] for row in await graph.ro_query(LAST_RUNS)}


# Clustering: recent, embedded, live memories that are not summaries themselves.
CLUSTER_CANDIDATES = """
MATCH (m:Memory) WHERE ($user_id IS NULL OR m.user_id = $user_id) AND m.created_at >= $since
  AND NOT coalesce(m.archived, false) AND m.layer <> 'raw'
  AND NOT coalesce(m.cluster_summary, false) AND m.embedding_status = 'done'
RETURN m.id, m.user_id, m.agent_id ORDER BY m.user_id, m.id LIMIT $limit
"""
# The live summaries of any of these memories, with all of their members.
SUMMARIES_OF = """
MATCH (s:Memory)-[:SUMMARIZES]->(m:Memory)
WHERE m.id IN $ids AND m.user_id = $user_id AND s.user_id = $user_id
WITH DISTINCT s
MATCH (s)-[:SUMMARIZES]->(x:Memory)
RETURN s.id, collect(x.id)
"""
LINK_SUMMARY = """
MATCH (s:Memory {id: $summary}) WHERE s.user_id = $user_id
UNWIND $members AS member
MATCH (m:Memory {id: member}) WHERE m.user_id = $user_id
MERGE (s)-[r:SUMMARIZES]->(m) SET r.strength = 1.0, r.updated_at = $now
SET m.consolidated_into = s.id
RETURN count(r)
"""
MEMBER_CONTENTS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id
RETURN m.id, m.content, m.created_at, m.importance, m.tags ORDER BY m.created_at, m.id
"""


async def cluster_candidates(
    graph: GraphStore, *, since: str, user_id: str | None, limit: int
) -> list[tuple[str, str, str | None]]:
    """(id, user_id, agent_id) of memories clustering may group."""
    params = {"since": since, "user_id": user_id, "limit": limit}
    return [(r[0], r[1], r[2]) for r in await graph.ro_query(CLUSTER_CANDIDATES, params)]


async def summaries_of(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str]
) -> dict[str, set[str]]:
    """summary id -> its members, for every summary of any of the memories."""
    rows = await graph.ro_query(SUMMARIES_OF, {"ids": list(memory_ids), "user_id": user_id})
    return {row[0]: set(row[1]) for row in rows}


async def link_summary(
    graph: GraphStore, user_id: str, summary_id: str, members: Sequence[str], now: str
) -> None:
    """SUMMARIZES from the summary to each member; members are marked `consolidated_into`."""
    params = {"summary": summary_id, "members": list(members), "user_id": user_id, "now": now}
    await graph.query(LINK_SUMMARY, params)


class ClusterMember(TypedDict):
    """What a cluster summary is written from, of one member memory."""

    id: str
    content: str
    created_at: str
    importance: float | None
    tags: list[str] | None


async def member_contents(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str]
) -> list[ClusterMember]:
    """Members' id, content, created_at, importance and tags, oldest first."""
    rows = await graph.ro_query(MEMBER_CONTENTS, {"ids": list(memory_ids), "user_id": user_id})
    return [
        {"id": id_, "content": content, "created_at": at, "importance": importance, "tags": tags}
        for id_, content, at, importance, tags in rows
    ]
