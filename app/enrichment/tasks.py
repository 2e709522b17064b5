"""The enrichment job: entities, summary, type re-classification and links for memories.

It runs after a memory's embedding is done (the embed job queues it), because SIMILAR_TO needs
the memory's vector. It is idempotent: a memory whose current content was already enriched is
skipped unless the job is forced, and a memory changed while it was being enriched is queued
again rather than written from stale content. A failure raises, so the job queue retries it with
backoff and, after the last attempt, keeps it in the dead letters (AutoMem's retries dropped work).
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.classify import Classification, ClassificationStats, classify_with_llm
from app.enrichment.entities import Entity, extract_many
from app.enrichment.summary import summarize
from app.jobs.kinds import enqueue_enrichment
from app.jobs.queue import JobQueue
from app.jobs.spec import JobContext
from app.llm import LLMClient
from app.memories.derive import tag_prefixes
from app.memories.service import VECTOR_COMPONENT
from app.models import Memory, Status, to_iso, utc_now
from app.nlp import run_nlp
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import enrichment as store
from app.storage.graph.records import json_property
from app.storage.mirror import vector_payload
from app.storage.vectors import VectorFilter, VectorPointNotFound

log = logging.getLogger(__name__)

ENTITY_TAG = "entity"


@dataclass
class EnrichmentConfig:
    similarity_threshold: float = 0.8
    similar_limit: int = 5


@dataclass
class EnrichDeps:
    """What enrichment needs; the worker's dependency object provides these attributes."""

    stores: Stores
    jobs: JobQueue
    enrichment: EnrichmentConfig = field(default_factory=EnrichmentConfig)
    llm: LLMClient | None = None
    classification_stats: ClassificationStats = field(default_factory=ClassificationStats)


async def enrich_job(ctx: JobContext) -> int:
    """Handler of `enrich` jobs: ids = [user_id, key], payload = {memory_ids, force}."""
    deps: EnrichDeps = ctx.deps
    user_id, payload = ctx.ids[0], ctx.payload
    try:
        return await enrich_memories(
            deps, user_id, payload["memory_ids"], force=payload.get("force", False)
        )
    except Exception:
        if ctx.attempt >= ctx.max_attempts:
            await store.set_enrichment_status(
                deps.stores.graph, user_id, payload["memory_ids"], Status.FAILED.value
            )
        raise


def is_enriched(memory: Memory) -> bool:
    """Whether the memory's current content has been enriched."""
    run = memory.metadata.get("enrichment") or {}
    return (
        memory.enrichment_status == Status.DONE and run.get("content_hash") == memory.content_hash
    )


async def enrich_memories(
    deps: EnrichDeps, user_id: str, memory_ids: Sequence[str], *, force: bool = False
) -> int:
    """Enriches live memories of one user; returns how many were written."""
    memories = await deps.stores.graph.memories_of_user(user_id, memory_ids)
    if not force:
        memories = [m for m in memories if not is_enriched(m)]
    if not memories:
        return 0
    entities = await run_nlp(extract_many, [m.content for m in memories])
    classes = await _reclassify(deps, memories)
    similar = await _similar(deps, user_id, memories)
    now = to_iso(utc_now())
    rows = [
        _row(m, ents, classes.get(m.id), similar.get(m.id, []), now=now, forced=force)
        for m, ents in zip(memories, entities, strict=True)
    ]
    written, unchained = await store.write_enrichment(deps.stores.graph, user_id, rows, now=now)
    changed = {m.id for m in memories} - {m.id for m in written}
    if changed:  # edited meanwhile: enrich the new state instead
        await enqueue_enrichment(deps.jobs, user_id, sorted(changed))
    await _link(deps, user_id, written, similar, now, unchained)
    await _mirror_payloads(deps.stores, written)
    return len(written)


async def _reclassify(deps: EnrichDeps, memories: list[Memory]) -> dict[str, Classification]:
    """LLM classification for memories no pattern could type (only with an LLM configured)."""
    if deps.llm is None:
        return {}
    flagged = [m for m in memories if _needs_reclassification(m)]
    budget, found = deps.llm.new_budget(), {}
    for memory in flagged:
        found[memory.id] = await classify_with_llm(
            deps.llm, memory.content, budget, stats=deps.classification_stats
        )
    return found


def _needs_reclassification(memory: Memory) -> bool:
    return bool((memory.metadata.get("classification") or {}).get("needs_reclassification"))


async def _similar(
    deps: EnrichDeps, user_id: str, memories: list[Memory]
) -> dict[str, list[dict[str, Any]]]:
    """Same-owner neighbours with cosine ≥ the threshold, from each memory's stored vector."""
    config = deps.enrichment
    if not config.similar_limit:
        return {}
    records = await deps.stores.vectors.retrieve([m.id for m in memories])
    owner = VectorFilter(scope=Scope(user_id=user_id), include_archived=True)
    found = {}
    for memory in memories:
        record = records.get(memory.id)
        if record is None or record.dense is None:
            continue
        hits = await deps.stores.vectors.search_dense(
            record.dense, owner, config.similar_limit + 1, with_payload=False
        )
        found[memory.id] = [
            {"id": hit.id, "score": round(hit.score, 4)}
            for hit in hits
            if hit.id != memory.id and hit.score >= config.similarity_threshold
        ][: config.similar_limit]
    return found


def _row(
    memory: Memory,
    entities: list[Entity],
    classification: Classification | None,
    similar: list[dict[str, Any]],
    *,
    now: str,
    forced: bool,
) -> dict[str, Any]:
    """The graph write for one memory: derived fields, kept alongside what the client set."""
    previous = memory.metadata.get("enrichment") or {}
    entity_tags = [f"{ENTITY_TAG}:{e.category}:{e.slug}" for e in entities]
    own_tags = [t for t in memory.tags if t not in set(previous.get("entity_tags") or [])]
    tags = list(dict.fromkeys(own_tags + entity_tags))
    metadata = dict(memory.metadata)
    metadata["entities"] = _by_category(entities)
    metadata["enrichment"] = {
        "last_run": now,
        "forced": forced,
        "content_hash": memory.content_hash,
        "entity_tags": entity_tags,
        "semantic_neighbors": similar,
    }
    memory_type, confidence = memory.type.value, memory.confidence
    if classification is not None:
        memory_type, confidence = classification.type.value, classification.confidence
        metadata["classification"] = {
            "method": classification.method,
            "needs_reclassification": classification.needs_reclassification,
        }
    return {
        "id": memory.id,
        "version": memory.version,
        "content_hash": memory.content_hash,
        "tags": tags,
        "tag_prefixes": tag_prefixes(tags),
        "summary": summarize(memory.content),
        "metadata": json_property("metadata", metadata),
        "type": memory_type,
        "confidence": confidence,
        "entities": [{"category": e.category, "slug": e.slug, "name": e.name} for e in entities],
        # Content changed since the last run: the links it made from the old content (similar
        # memories, shared entities) go before the new ones are made. Not on a first run: the
        # links other memories made to this one are theirs.
        "relink": bool(previous.get("content_hash"))
        and previous.get("content_hash") != memory.content_hash,
    }


def _by_category(entities: list[Entity]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for entity in entities:
        grouped.setdefault(entity.category, []).append(entity.name)
    return grouped


async def _link(
    deps: EnrichDeps,
    user_id: str,
    written: list[Memory],
    similar: dict[str, list[dict[str, Any]]],
    now: str,
    unchained: Sequence[str] = (),
) -> None:
    """Links the written memories; the memories that lost an entity link to one of them
    (`unchained`: its content changed) find their neighbours by entity again."""
    if not written:
        return
    graph, ids = deps.stores.graph, [m.id for m in written]
    pairs = [
        {"a": m.id, "b": near["id"], "score": near["score"]}
        for m in written
        for near in similar.get(m.id, [])
    ]
    await store.link_similar(graph, user_id, pairs, now=now)
    relinked = list(dict.fromkeys([*ids, *unchained]))
    await store.link_entity_predecessors(graph, user_id, relinked, now=now)
    await store.link_patterns(graph, user_id, ids, now=now)


async def _mirror_payloads(stores: Stores, written: list[Memory]) -> None:
    """Tags changed: the vector payload follows, so tag filters see entity tags. A failure is
    shown on the health board and repaired by the sync job (stale payloads are rewritten)."""
    for memory in written:
        try:
            await stores.vectors.set_payload(memory.id, vector_payload(memory))
        except VectorPointNotFound:
            continue  # not embedded yet: the embed job writes the point from the graph state
        except Exception as exc:  # the graph holds the truth; sync rewrites the payload
            log.exception("vector payload update failed for %s", memory.id)
            stores.health.failed(VECTOR_COMPONENT, exc)
            return
    stores.health.succeeded(VECTOR_COMPONENT)
