from pydantic import BaseModel, Field


class RememberSettings(BaseModel):
    """/remember and conversations

    What `/remember` takes and keeps of a conversation (app/remember/), how long, and how often
    a user may store or erase.
    """

    remember_max_messages: int = Field(
        50,
        ge=1,
        validation_alias="REMEMBER_MAX_MESSAGES",
        description="messages per call (413 beyond)",
    )
    remember_max_chars: int = Field(
        32000,
        ge=1,
        validation_alias="REMEMBER_MAX_CHARS",
        description="characters per call (413 beyond)",
    )
    remember_rate_per_minute: int = Field(
        120,
        ge=1,
        validation_alias="REMEMBER_RATE_PER_MINUTE",
        description="calls per user per minute (429 beyond)",
    )
    # Erasures (`erase=true` on DELETE /memory/{id} and DELETE /me) per user and minute: each
    # rewrites the vector shard and the graph's append-only file, which hold every user's data.
    erase_rate_per_minute: int = Field(
        30,
        ge=1,
        validation_alias="ERASE_RATE_PER_MINUTE",
        description=(
            "erasures (`erase=true` on `DELETE /memory/{id}` and `DELETE /me`) per "
            "user per minute (429 beyond): each rewrites the vector shard and the "
            "graph's append-only file, which hold every user's data; the admin's "
            "erasures are not counted"
        ),
    )
    # Transcript turns (every message /remember keeps verbatim) are deleted by the hourly
    # retention job this many days after they were said; 0 = kept for good (the default).
    transcript_retention_days: float = Field(
        0,
        ge=0,
        validation_alias="TRANSCRIPT_RETENTION_DAYS",
        description=(
            "transcript turns (every message `/remember` keeps verbatim) are deleted "
            "by the hourly retention job this many days after they were said; the "
            "facts stay (0 = kept for good)"
        ),
    )
    # /recall/context for a session puts its last N messages first (0 = off).
    session_context_messages: int = Field(
        10,
        ge=0,
        le=200,
        validation_alias="SESSION_CONTEXT_MESSAGES",
        description=(
            "`/recall/context` for a session puts its last N messages first (0 = off; "
            "a request's `session_messages` overrides it)"
        ),
    )
    remember_dedup_threshold: float = Field(
        0.92, ge=0, le=1, validation_alias="REMEMBER_DEDUP_THRESHOLD", description="raw-layer dedup"
    )
    remember_contradiction_threshold: float = Field(
        0.7,
        ge=0,
        le=1,
        validation_alias="REMEMBER_CONTRADICTION_THRESHOLD",
        description="candidates for a contradiction check",
    )
    session_idle_seconds: float = Field(
        1800.0,
        ge=0,
        validation_alias="SESSION_IDLE_SECONDS",
        description="quiet time before a session's facts are consolidated",
    )
    raw_retention_days: float = Field(
        30.0,
        ge=0,
        validation_alias="RAW_RETENTION_DAYS",
        description="how long superseded raw facts are kept",
    )
    # A reflection (a profile of the user's current facts) every N user messages; 0 = off.
    reflection_every: int = Field(
        10,
        ge=0,
        validation_alias="REFLECTION_EVERY",
        description="a reflection (profile of current facts) every N user messages; 0 = off",
    )
