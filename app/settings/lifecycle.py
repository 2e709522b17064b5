from pydantic import BaseModel, Field


class LifecycleSettings(BaseModel):
    """Lifecycle

    TTLs, relevance decay and forgetting (app/lifecycle/); how they work:
    [lifecycle.md](lifecycle.md). Days; 0 = permanent.
    """

    ttl_event_days: float = Field(
        90.0,
        ge=0,
        validation_alias="TTL_EVENT_DAYS",
        description="default TTL of a new `Event` memory (0 = permanent)",
    )
    ttl_habit_days: float = Field(
        60.0,
        ge=0,
        validation_alias="TTL_HABIT_DAYS",
        description="default TTL of a new `Habit` memory (0 = permanent)",
    )
    ttl_context_days: float = Field(
        7.0,
        ge=0,
        validation_alias="TTL_CONTEXT_DAYS",
        description="default TTL of a new `Context` memory (0 = permanent)",
    )
    # Relevance: per-type half-lives in days (JSON {"Event": 30, …}) override the defaults.
    relevance_half_lives: dict[str, float] = Field(
        {},
        validation_alias="RELEVANCE_HALF_LIVES",
        description='JSON `{"<type>": days}` overriding the per-type half-lives',
    )
    relevance_importance_floor: float = Field(
        0.15,
        ge=0,
        le=1,
        validation_alias="RELEVANCE_IMPORTANCE_FLOOR",
        description="relevance never falls below importance × this",
    )
    # Forgetting: below the archive threshold a memory is archived; below the delete threshold
    # (0 = never) it is deleted (a tombstone remains). Protected: pinned, `protected`, importance
    # at or above the protection threshold, touched within the grace period, protected types.
    forget_archive_threshold: float = Field(
        0.1,
        ge=0,
        le=1,
        validation_alias="FORGET_ARCHIVE_THRESHOLD",
        description="archive below this relevance",
    )
    forget_delete_threshold: float = Field(
        0.0,
        ge=0,
        le=1,
        validation_alias="FORGET_DELETE_THRESHOLD",
        description="delete (tombstone) below this relevance (0 = never)",
    )
    forget_protect_importance: float = Field(
        0.7,
        ge=0,
        le=1,
        validation_alias="FORGET_PROTECT_IMPORTANCE",
        description="never forget at or above this importance",
    )
    forget_grace_days: float = Field(
        30.0,
        ge=0,
        validation_alias="FORGET_GRACE_DAYS",
        description="never forget what was created or recalled this recently",
    )
    forget_protected_types: list[str] = Field(
        ["Decision", "Insight"],
        validation_alias="FORGET_PROTECTED_TYPES",
        description="types never forgotten (JSON list)",
    )
