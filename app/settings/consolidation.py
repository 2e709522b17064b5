from pydantic import BaseModel, Field


class ConsolidationSettings(BaseModel):
    """Consolidation: schedules, clustering, fsck

    When the lifecycle's tasks run (seconds between runs; 0 = off; runs are due at multiples of
    the interval), what forms a cluster, and fsck's bounds ([lifecycle.md](lifecycle.md)).
    """

    consolidation_decay_interval_s: int = Field(
        86_400, ge=0, validation_alias="CONSOLIDATION_DECAY_INTERVAL_SECONDS"
    )
    consolidation_forget_interval_s: int = Field(
        86_400, ge=0, validation_alias="CONSOLIDATION_FORGET_INTERVAL_SECONDS"
    )
    consolidation_cluster_interval_s: int = Field(
        604_800, ge=0, validation_alias="CONSOLIDATION_CLUSTER_INTERVAL_SECONDS"
    )
    consolidation_fsck_interval_s: int = Field(
        0, ge=0, validation_alias="CONSOLIDATION_FSCK_INTERVAL_SECONDS"
    )
    consolidation_tick_s: float = Field(60.0, gt=0, validation_alias="CONSOLIDATION_TICK_SECONDS")
    consolidation_history_limit: int = Field(
        20, ge=1, validation_alias="CONSOLIDATION_HISTORY_LIMIT"
    )
    cluster_similarity: float = Field(
        0.75, ge=0, le=1, validation_alias="CONSOLIDATION_CLUSTER_SIMILARITY_THRESHOLD"
    )
    cluster_min_size: int = Field(3, ge=2, validation_alias="CONSOLIDATION_MIN_CLUSTER_SIZE")
    cluster_window_days: float = Field(30.0, gt=0, validation_alias="CONSOLIDATION_CLUSTER_DAYS")
    fsck_max_memories: int = Field(5000, ge=1, validation_alias="FSCK_MAX_MEMORIES")
    fsck_max_llm_calls: int = Field(200, ge=0, validation_alias="FSCK_MAX_LLM_CALLS")
