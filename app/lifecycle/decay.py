"""Decay and forgetting over the stores: score every live memory, archive or delete the ones
forgetting's policy lets go (see relevance.py and policy.py for the rules).

One pass reads live memories a page at a time in id order, scores each, writes the changed
scores (graph, then the Qdrant payload), and — when forgetting — archives (a revision) or deletes
(a tombstone) what falls below the thresholds. A dry run computes and reports, writing nothing.
"""

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.config import Settings
from app.lifecycle.cluster import ClusterConfig
from app.lifecycle.policy import ForgetPolicy, decide
from app.lifecycle.relevance import DEFAULT_HALF_LIVES, Facts, RelevanceConfig, relevance
from app.memories.ttl import ttl_table
from app.models import Memory, to_iso
from app.storage import Stores
from app.storage.graph import lifecycle as store
from app.storage.mirror import vector_payload
from app.storage.vectors.base import VectorIndexError, VectorPointNotFound

log = logging.getLogger(__name__)

PAGE = 500
ACTOR = "engram:lifecycle"
SCORE_EPSILON = 0.0005  # a smaller change of score is not written again
VECTOR_COMPONENT = "qdrant"
SAMPLE = 20  # ids listed per action in a report


@dataclass(frozen=True)
class LifecycleConfig:
    relevance: RelevanceConfig = field(default_factory=RelevanceConfig)
    policy: ForgetPolicy = field(default_factory=ForgetPolicy)
    ttl_days: dict[str, float] = field(default_factory=dict)
    cluster: ClusterConfig = field(default_factory=ClusterConfig)


def lifecycle_config(settings: Settings) -> LifecycleConfig:
    """The lifecycle's rules, from settings."""
    return LifecycleConfig(
        relevance=RelevanceConfig(
            half_lives={**DEFAULT_HALF_LIVES, **settings.relevance_half_lives},
            importance_floor=settings.relevance_importance_floor,
        ),
        policy=ForgetPolicy(
            archive_below=settings.forget_archive_threshold,
            delete_below=settings.forget_delete_threshold,
            protect_importance=settings.forget_protect_importance,
            grace_days=settings.forget_grace_days,
            protected_types=frozenset(settings.forget_protected_types),
        ),
        ttl_days=ttl_table(
            settings.ttl_event_days, settings.ttl_habit_days, settings.ttl_context_days
        ),
        cluster=ClusterConfig(
            similarity=settings.cluster_similarity,
            min_size=settings.cluster_min_size,
            window_days=settings.cluster_window_days,
        ),
    )


@dataclass
class Pass:
    """What one pass did (or, dry, would do)."""

    scored: int = 0
    updated: int = 0
    archived: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    protected: Counter[str] = field(default_factory=Counter)
    distribution: Counter[str] = field(default_factory=Counter)

    def as_dict(self, dry_run: bool) -> dict[str, Any]:
        return {
            "dry_run": dry_run,
            "processed": self.scored,
            "scores_updated": self.updated,
            "archived": len(self.archived),
            "deleted": len(self.deleted),
            "archived_ids": self.archived[:SAMPLE],
            "deleted_ids": self.deleted[:SAMPLE],
            "protected": dict(self.protected),
            "distribution": {k: self.distribution.get(k, 0) for k in BANDS},
        }


BANDS = ("high", "medium", "low", "archive")


def band(score: float, archive_below: float) -> str:
    """AutoMem's distribution bands: high > 0.7, medium > 0.3, low ≥ the archive threshold."""
    if score > 0.7:
        return "high"
    if score > 0.3:
        return "medium"
    return "low" if score >= archive_below else "archive"


async def run_pass(
    stores: Stores,
    config: LifecycleConfig,
    now: datetime,
    *,
    forget: bool,
    user_id: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Scores every live memory (of one user, or all); with `forget`, archives and deletes."""
    done, after, stamp = Pass(), "", to_iso(now)
    while page := await store.scoring_page(stores.graph, after=after, limit=PAGE, user_id=user_id):
        after = page[-1][0].id
        scores: list[tuple[Memory, dict[str, Any]]] = []
        archive: list[dict[str, Any]] = []
        delete: list[dict[str, Any]] = []
        for memory, links in page:
            props = memory.model_dump(mode="json")
            score = relevance(Facts.of(props, links), now, config.relevance)
            done.scored += 1
            done.distribution[band(score, config.policy.archive_below)] += 1
            action, reason = decide(props, score, now, config.policy)
            if forget and reason:
                done.protected[reason] += 1
            row: dict[str, Any] = {
                "id": memory.id,
                "user_id": memory.user_id,
                "version": memory.version,
                "score": score,
            }
            if forget and action == "delete":
                delete.append(row)
            elif forget and action == "archive":
                archive.append(row)
            elif _changed(memory.relevance_score, score):
                scores.append((memory, row))
        done.updated += len(scores)
        done.archived += [r["id"] for r in archive]
        done.deleted += [r["id"] for r in delete]
        if not dry_run:
            await _write(stores, scores, archive, delete, stamp)
    return done.as_dict(dry_run)


def _changed(old: float | None, new: float) -> bool:
    return old is None or abs(old - new) >= SCORE_EPSILON


async def _write(
    stores: Stores,
    scores: list[tuple[Memory, dict[str, Any]]],
    archive: list[dict[str, Any]],
    delete: list[dict[str, Any]],
    stamp: str,
) -> None:
    await store.set_relevance(stores.graph, [row for _, row in scores], stamp)
    archived = await store.archive(stores.graph, archive, actor=ACTOR, now=stamp)
    # Payloads are replaced whole: built from the memories as they are now, not as the page
    # read them, so a PATCH that landed in between is not undone in the index.
    rescored = await _current(stores, [memory for memory, _ in scores])
    await mirror_payloads(stores, rescored + archived)
    deleted = await store.forget(stores.graph, delete, actor=ACTOR, now=stamp)
    if deleted:
        try:
            await stores.vectors.delete(deleted)
        except Exception as exc:  # an orphan point is hidden by hydration; sync removes it
            log.exception("vector delete of %d forgotten memories failed", len(deleted))
            stores.health.failed(VECTOR_COMPONENT, exc)


async def _current(stores: Stores, memories: list[Memory]) -> list[Memory]:
    owners: dict[str, list[str]] = {}
    for memory in memories:
        owners.setdefault(memory.user_id, []).append(memory.id)
    current: list[Memory] = []
    for owner, ids in owners.items():
        current += await stores.graph.memories_of_user(owner, ids)
    return current


async def mirror_payloads(stores: Stores, memories: list[Memory]) -> None:
    """Each memory's payload in the vector index (a point not embedded yet is skipped)."""
    failed: Exception | None = None
    for memory in memories:
        try:
            await stores.vectors.set_payload(memory.id, vector_payload(memory))
        except VectorPointNotFound:
            continue
        except (VectorIndexError, OSError) as exc:
            failed = exc
    if failed is not None:
        log.error("vector payload update failed during decay: %s", failed)
        stores.health.failed(VECTOR_COMPONENT, failed)
