"""Clustering: similar recent memories of one scope get one summary memory.

Candidates are the live, embedded memories written in the last CONSOLIDATION_CLUSTER_DAYS,
grouped by owner and agent (a summary never mixes scopes). Each candidate's nearest neighbours
come from the vector index's own search (NEIGHBOURS per memory, restricted to its scope and the
window), never from a pairwise loop; pairs at cosine ≥ CONSOLIDATION_CLUSTER_SIMILARITY_THRESHOLD
join a cluster (connected components), and a cluster of at least CONSOLIDATION_MIN_CLUSTER_SIZE
members gets a summary: a memory of type Pattern with `cluster_summary: true`, linked with
SUMMARIZES to each member (members get `consolidated_into`). The summary is written by the LLM
when one is configured, else extractively (the members' own sentences).

A re-run never piles up summaries: a cluster that already has a summary keeps it; only when new
members join is that summary rewritten (a revision) and linked to them; an unchanged cluster
changes nothing. Members are never dropped from a summary because they aged out of the window.
"""

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.llm.errors import LLMUnavailable
from app.memories.derive import content_hash, tag_prefixes
from app.memories.edits import mirror_update
from app.memories.service import store_memories
from app.models import Memory, MemoryType, Status, to_iso
from app.scope import Scope, agent_lineage
from app.storage import Stores
from app.storage.graph import lifecycle as store
from app.storage.graph.records import new_id
from app.storage.vectors.base import VectorFilter

log = logging.getLogger(__name__)

ACTOR = "engram:lifecycle"
NEIGHBOURS = 10
MAX_CANDIDATES = 50_000
RETRIEVE_BATCH = 256
SEARCHES_AT_ONCE = 8
SUMMARY_CHARS = 1500
MEMBER_CHARS = 200
LLM_MEMBERS = 30
SYSTEM = (
    "You summarise a user's related memories into one short memory (one to three sentences) "
    'that keeps every durable fact they share. Answer with JSON {"summary": "..."}.'
)
SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ClusterConfig:
    similarity: float = 0.75
    min_size: int = 3
    window_days: float = 30.0


def components(pairs: Sequence[tuple[str, str]], nodes: Sequence[str]) -> list[list[str]]:
    """Connected components of the similarity graph (union-find), each sorted, largest first."""
    parent = {node: node for node in nodes}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        groups[root(node)].append(node)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))


def extractive_summary(contents: Sequence[str]) -> str:
    """The members' own words: each one's opening, oldest first, within SUMMARY_CHARS."""
    parts: list[str] = []
    used = 0
    for text in contents:
        part = " ".join(text.split())
        if len(part) > MEMBER_CHARS:
            part = part[: MEMBER_CHARS - 1].rstrip() + "…"
        if used + len(part) > SUMMARY_CHARS:
            parts.append(f"(and {len(contents) - len(parts)} more)")
            break
        parts.append(part)
        used += len(part) + 3
    return f"{len(contents)} related memories: " + " | ".join(parts)


async def run_clustering(
    deps: Any,
    config: ClusterConfig,
    now: datetime,
    *,
    user_id: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Clusters every scope's recent memories (of one user, or all); returns a report."""
    stores: Stores = deps.stores
    since = to_iso(now - timedelta(days=config.window_days))
    rows = await store.cluster_candidates(
        stores.graph, since=since, user_id=user_id, limit=MAX_CANDIDATES
    )
    groups: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for memory_id, owner, agent in rows:
        groups[(owner, agent)].append(memory_id)
    report: dict[str, Any] = {
        "candidates": len(rows),
        "clusters": 0,
        "created": 0,
        "updated": 0,
        "unchanged": 0,
        "summary_ids": [],
        "dry_run": dry_run,
    }
    for (owner, agent), ids in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        if len(ids) < config.min_size:
            continue
        scope = Scope(owner, agent)
        pairs = await similar_pairs(stores, scope, ids, since, config.similarity)
        for cluster in components(pairs, ids):
            if len(cluster) < config.min_size:
                break
            report["clusters"] += 1
            outcome, summary_id = await summarise(deps, scope, cluster, now, dry_run)
            report[outcome] += 1
            if summary_id and len(report["summary_ids"]) < 20:
                report["summary_ids"].append(summary_id)
    return report


async def similar_pairs(
    stores: Stores, scope: Scope, ids: list[str], since: str, threshold: float
) -> list[tuple[str, str]]:
    """Pairs of these memories at cosine ≥ threshold, from each one's nearest neighbours."""
    members = set(ids)
    flt = VectorFilter(
        scope=scope, layers=["consolidated"], time_field="created_at", time_gte=since
    )
    pairs: list[tuple[str, str]] = []
    gate = asyncio.Semaphore(SEARCHES_AT_ONCE)

    async def neighbours(memory_id: str, vector: list[float]) -> None:
        async with gate:
            hits = await stores.vectors.search_dense(
                vector, flt, NEIGHBOURS + 1, with_payload=False
            )
        pairs.extend(
            (memory_id, hit.id)
            for hit in hits
            if hit.id != memory_id and hit.id in members and hit.score >= threshold
        )

    for start in range(0, len(ids), RETRIEVE_BATCH):
        records = await stores.vectors.retrieve(ids[start : start + RETRIEVE_BATCH])
        await asyncio.gather(
            *(
                neighbours(memory_id, record.dense)
                for memory_id, record in records.items()
                if record.dense
            )
        )
    return pairs


async def summarise(
    deps: Any, scope: Scope, cluster: list[str], now: datetime, dry_run: bool
) -> tuple[str, str | None]:
    """("created" | "updated" | "unchanged", summary id) for one cluster."""
    graph = deps.stores.graph
    existing = await store.summaries_of(graph, scope.user_id, cluster)
    members = set(cluster)
    summary_id = None
    if existing:
        summary_id = max(existing, key=lambda s: (len(existing[s] & members), s))
        if members <= existing[summary_id]:
            return "unchanged", summary_id
        members |= existing[summary_id]
    if dry_run:
        return ("updated" if summary_id else "created"), summary_id
    rows = await store.member_contents(graph, scope.user_id, sorted(members))
    text, method = await _summary_text(deps, [row["content"] for row in rows])
    stamp = to_iso(now)
    if summary_id is None:
        summary_id = await _create(deps, scope, rows, text, method, now)
        outcome = "created"
    else:
        await _rewrite(deps, scope, summary_id, rows, text, method, stamp)
        outcome = "updated"
    await store.link_summary(graph, scope.user_id, summary_id, [r["id"] for r in rows], stamp)
    return outcome, summary_id


async def _summary_text(deps: Any, contents: list[str]) -> tuple[str, str]:
    llm = getattr(deps, "llm", None)
    if llm is not None:
        listing = "\n".join(f"- {c[: MEMBER_CHARS * 2]}" for c in contents[:LLM_MEMBERS])
        try:
            answer = await llm.chat_json(
                SYSTEM, listing, schema=SCHEMA, schema_name="cluster_summary", max_tokens=300
            )
            summary = " ".join(str(answer.get("summary", "")).split())[:SUMMARY_CHARS]
            if summary:
                return summary, "llm"
        except LLMUnavailable as exc:  # the extractive summary is always available
            log.warning("cluster summary by LLM failed, extractive instead: %s", exc)
    return extractive_summary(contents), "extractive"


def _cluster_meta(rows: list[store.ClusterMember], method: str) -> dict[str, Any]:
    span = {"first": rows[0]["created_at"], "last": rows[-1]["created_at"]}
    return {"cluster": {"size": len(rows), "method": method, **span}}


async def _create(
    deps: Any, scope: Scope, rows: list[store.ClusterMember], text: str, method: str, now: datetime
) -> str:
    shared_tags = set.intersection(*(set(r["tags"] or []) for r in rows)) if rows else set()
    tags = sorted(shared_tags)
    stamp = to_iso(now)
    memory = Memory(
        id=new_id(),
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        agent_lineage=agent_lineage(scope.agent_id),
        content=text,
        type=MemoryType.PATTERN,
        confidence=0.7 if method == "llm" else 0.6,
        importance=max(float(r["importance"] or 0.5) for r in rows),
        tags=tags,
        tag_prefixes=tag_prefixes(tags),
        metadata=_cluster_meta(rows, method),
        timestamp=stamp,
        t_valid=stamp,
        created_at=stamp,
        updated_at=stamp,
        last_accessed=stamp,
        source={"created_by": ACTOR},
        derived_from=[r["id"] for r in rows],
        cluster_summary=True,
        content_hash=content_hash(text),
    )
    await store_memories(
        stores=deps.stores, scope=scope, actor=ACTOR, memories=[memory], vectors={memory.id: None}
    )
    return memory.id


async def _rewrite(
    deps: Any,
    scope: Scope,
    summary_id: str,
    rows: list[store.ClusterMember],
    text: str,
    method: str,
    stamp: str,
) -> None:
    stores: Stores = deps.stores
    current = await stores.graph.get_memory(scope, summary_id)
    if current is None:
        return
    changes = {
        "content": text,
        "content_hash": content_hash(text),
        "embedding_status": Status.PENDING.value,
        "enrichment_status": Status.PENDING.value,
        "derived_from": [r["id"] for r in rows],
        "metadata": _cluster_meta(rows, method),
    }
    updated = await stores.graph.update_memory(
        scope, summary_id, version=current.version, changes=changes, actor=ACTOR, now=stamp
    )
    if updated is not None:
        await mirror_update(stores, scope, updated, None, True)
