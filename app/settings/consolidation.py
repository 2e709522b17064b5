from pydantic import BaseModel, Field


class ConsolidationSettings(BaseModel):
    """Consolidation: schedules, clustering, fsck

    When the lifecycle's tasks run (seconds between runs; 0 = off; runs are due at multiples of
    the interval), what forms a cluster, and fsck's bounds ([lifecycle.md](lifecycle.md)).
    """

    consolidation_decay_interval_s: int = Field(
        86_400,
        ge=0,
        validation_alias="CONSOLIDATION_DECAY_INTERVAL_SECONDS",
        description="rescore every memory (0 = off)",
    )
    consolidation_forget_interval_s: int = Field(
        86_400,
        ge=0,
        validation_alias="CONSOLIDATION_FORGET_INTERVAL_SECONDS",
        description="forgetting (0 = off)",
    )
    consolidation_cluster_interval_s: int = Field(
        604_800,
        ge=0,
        validation_alias="CONSOLIDATION_CLUSTER_INTERVAL_SECONDS",
        description="clustering (0 = off)",
    )
    consolidation_fsck_interval_s: int = Field(
        0,
        ge=0,
        validation_alias="CONSOLIDATION_FSCK_INTERVAL_SECONDS",
        description="a report-only fsck of every user (0 = off)",
    )
    consolidation_tick_s: float = Field(
        60.0,
        gt=0,
        validation_alias="CONSOLIDATION_TICK_SECONDS",
        description="how often each worker process looks for due tasks",
    )
    consolidation_history_limit: int = Field(
        20,
        ge=1,
        validation_alias="CONSOLIDATION_HISTORY_LIMIT",
        description="runs kept in the history",
    )
    cluster_similarity: float = Field(
        0.75,
        ge=0,
        le=1,
        validation_alias="CONSOLIDATION_CLUSTER_SIMILARITY_THRESHOLD",
        description="what forms a cluster: the similarity its memories need",
    )
    cluster_min_size: int = Field(
        3,
        ge=2,
        validation_alias="CONSOLIDATION_MIN_CLUSTER_SIZE",
        description="what forms a cluster: at least this many memories",
    )
    cluster_window_days: float = Field(
        30.0,
        gt=0,
        validation_alias="CONSOLIDATION_CLUSTER_DAYS",
        description="what forms a cluster: memories within this many days",
    )
    fsck_max_memories: int = Field(
        5000,
        ge=1,
        validation_alias="FSCK_MAX_MEMORIES",
        description="fsck's bounds: memories checked in one run",
    )
    fsck_max_llm_calls: int = Field(
        200,
        ge=0,
        validation_alias="FSCK_MAX_LLM_CALLS",
        description="fsck's bounds: LLM calls in one run",
    )
