"""The job kinds Engram runs: one explicit dict from kind to handler and policy.

Part of the composition root: it names every domain's handlers, so no domain imports it.
"""

from app.artifacts.search import artifact_index_job
from app.config import Settings
from app.enrichment.tasks import enrich_job
from app.jobs.kinds import (
    ARTIFACT_INDEX,
    CONSOLIDATE,
    EMBED,
    ENRICH,
    LIFECYCLE,
    RAW_RETENTION,
    REEMBED,
    REFLECT,
    REMEMBER,
    SYNC,
    WEBHOOK,
    WINDOWS,
)
from app.jobs.spec import DROP_ON_FINISH, JobKind, RetryPolicy
from app.lifecycle.tasks import lifecycle_job
from app.memories.tasks import embed_job
from app.memories.windows import windows_job
from app.ops.tasks import reembed_job, sync_job
from app.remember.tasks import consolidate_job, raw_retention_job, reflect_job, remember_job
from app.webhooks.delivery import webhook_job

HOUR = 3600


def job_kinds(settings: Settings) -> dict[str, JobKind]:
    """Handlers and retry policies, from settings."""
    retry = RetryPolicy(
        max_attempts=settings.jobs_max_attempts,
        base_delay_s=settings.jobs_base_delay_s,
        max_delay_s=settings.jobs_max_delay_s,
    )
    beat = settings.jobs_heartbeat_s
    kinds = {
        EMBED: JobKind(embed_job, retry=retry, timeout_s=300, heartbeat_s=beat),
        WINDOWS: JobKind(windows_job, retry=retry, timeout_s=300, heartbeat_s=beat),
        SYNC: JobKind(sync_job, retry=retry, timeout_s=6 * HOUR, heartbeat_s=beat, concurrency=1),
        REEMBED: JobKind(
            reembed_job, retry=retry, timeout_s=24 * HOUR, heartbeat_s=beat, concurrency=1
        ),
    }
    kinds[REMEMBER] = JobKind(remember_job, retry=retry, timeout_s=600, heartbeat_s=beat)
    kinds[CONSOLIDATE] = JobKind(consolidate_job, retry=retry, timeout_s=600, heartbeat_s=beat)
    kinds[REFLECT] = JobKind(reflect_job, retry=retry, timeout_s=600, heartbeat_s=beat)
    kinds[ARTIFACT_INDEX] = JobKind(
        artifact_index_job, retry=retry, timeout_s=HOUR, heartbeat_s=beat
    )
    kinds[RAW_RETENTION] = JobKind(
        raw_retention_job, retry=retry, timeout_s=HOUR, heartbeat_s=beat, concurrency=1
    )
    kinds[LIFECYCLE] = JobKind(
        lifecycle_job, retry=retry, timeout_s=6 * HOUR, heartbeat_s=beat, concurrency=1
    )
    # An attempt is one POST, bounded by WEBHOOK_TIMEOUT_S. A delivered event's record goes at
    # once (no one reads it, and it holds the user's ids); a failed one stays a dead letter.
    webhook_timeout = int(settings.webhook_timeout_s) + 30
    kinds[WEBHOOK] = JobKind(
        webhook_job,
        retry=retry,
        timeout_s=webhook_timeout,
        heartbeat_s=beat,
        result_ttl_s=DROP_ON_FINISH,
    )
    if settings.enrichment_enabled:
        kinds[ENRICH] = JobKind(enrich_job, retry=retry, timeout_s=600, heartbeat_s=beat)
    return kinds
