from pydantic import BaseModel, Field


class MirrorSettings(BaseModel):
    """Graph and vectors in step

    The graph is the record and the vector index its mirror: what brings the mirror back in step
    (the backlog at start-up, the sync, the embedding sweep, the drift check) and how long
    `POST /admin/reembed` waits.
    """

    backlog_scan: bool = Field(
        True,
        validation_alias="ENGRAM_BACKLOG_SCAN",
        description="at start-up, queue every memory whose embedding is not done",
    )
    sync_interval_s: float = Field(
        3600.0,
        ge=0,
        validation_alias="SYNC_INTERVAL_S",
        description="scheduled graph↔vector sync and raw-layer retention (0 = off)",
    )
    # How often memories left `pending` with no embed job queued get one (0: never), and how
    # old they must be (a write answered 503 after its graph write: app/wiring/schedule.py).
    embedding_sweep_interval_s: float = Field(
        30.0,
        ge=0,
        validation_alias="EMBEDDING_SWEEP_INTERVAL_S",
        description=(
            "how often memories left `pending` with no embed job queued get one (0 = "
            "off; [operations](operations.md))"
        ),
    )
    embedding_sweep_min_age_s: float = Field(
        30.0,
        ge=0,
        validation_alias="EMBEDDING_SWEEP_MIN_AGE_S",
        description=(
            "how long such a memory must have been `pending` before the sweep queues its job"
        ),
    )
    # How often the graph's counts are compared with the vector index's (0: on /health only).
    drift_check_interval_s: float = Field(
        30.0,
        ge=0,
        validation_alias="DRIFT_CHECK_INTERVAL_S",
        description=(
            "how often the graph's counts are compared with the vector index's; drift "
            "queues the repairing sync (0 = at start-up and on `/health` only)"
        ),
    )
    # POST /admin/reembed answers AutoMem's 200 with the result when it waits for the job: when
    # asked (?wait=true), or when at most this many memories are to be re-embedded. It waits at
    # most REEMBED_WAIT_S; a job still running then is answered 202 and carries on.
    reembed_sync_max: int = Field(
        1000,
        ge=0,
        validation_alias="ENGRAM_REEMBED_SYNC_MAX",
        description=(
            "`POST /admin/reembed` waits for its job (200, AutoMem's answer) when at "
            "most this many memories are to be re-embedded "
            "([api](api.md#post-adminreembed-200-or-202))"
        ),
    )
    reembed_wait_s: float = Field(
        60.0,
        ge=0,
        validation_alias="ENGRAM_REEMBED_WAIT_S",
        description=(
            "how long `POST /admin/reembed` waits for its job at most; a job still "
            "running then is answered 202 and carries on"
        ),
    )
