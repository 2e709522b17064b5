from pydantic import BaseModel, Field


class MirrorSettings(BaseModel):
    """Graph and vectors in step

    The graph is the record and the vector index its mirror: what brings the mirror back in step
    (the backlog at start-up, the sync, the embedding sweep, the drift check) and how long
    `POST /admin/reembed` waits.
    """

    backlog_scan: bool = Field(True, validation_alias="ENGRAM_BACKLOG_SCAN")
    sync_interval_s: float = Field(3600.0, ge=0, validation_alias="SYNC_INTERVAL_S")
    # How often memories left `pending` with no embed job queued get one (0: never), and how
    # old they must be (a write answered 503 after its graph write: app/wiring/schedule.py).
    embedding_sweep_interval_s: float = Field(
        30.0, ge=0, validation_alias="EMBEDDING_SWEEP_INTERVAL_S"
    )
    embedding_sweep_min_age_s: float = Field(
        30.0, ge=0, validation_alias="EMBEDDING_SWEEP_MIN_AGE_S"
    )
    # How often the graph's counts are compared with the vector index's (0: on /health only).
    drift_check_interval_s: float = Field(30.0, ge=0, validation_alias="DRIFT_CHECK_INTERVAL_S")
    # POST /admin/reembed answers AutoMem's 200 with the result when it waits for the job: when
    # asked (?wait=true), or when at most this many memories are to be re-embedded. It waits at
    # most REEMBED_WAIT_S; a job still running then is answered 202 and carries on.
    reembed_sync_max: int = Field(1000, ge=0, validation_alias="ENGRAM_REEMBED_SYNC_MAX")
    reembed_wait_s: float = Field(60.0, ge=0, validation_alias="ENGRAM_REEMBED_WAIT_S")
