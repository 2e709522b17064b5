from pydantic import BaseModel, Field


class JobSettings(BaseModel):
    """Jobs and workers

    Durable jobs, queued in the FalkorDB server's Redis, and the processes that run them.
    """

    # Concurrent job slots per kind run inside the API process; 0 = none (run
    # `python -m app.worker` processes instead).
    workers: int = Field(
        2,
        ge=0,
        validation_alias="ENGRAM_WORKERS",
        description=(
            "job slots per kind inside the API process (0 = none; run `python -m app.worker`)"
        ),
    )
    worker_heartbeat_s: float = Field(
        5.0,
        gt=0,
        validation_alias="ENGRAM_WORKER_HEARTBEAT_S",
        description="how often a worker process renews its heartbeat file",
    )
    jobs_namespace: str = Field(
        "engram", validation_alias="JOBS_NAMESPACE", description="key prefix of the job queues"
    )
    jobs_max_attempts: int = Field(
        5,
        ge=1,
        validation_alias="JOBS_MAX_ATTEMPTS",
        description="retry policy: attempts of a job before it is dead-lettered",
    )
    jobs_base_delay_s: float = Field(
        2.0,
        ge=0,
        validation_alias="JOBS_BASE_DELAY_S",
        description=(
            "retry policy: the delay before the first retry, doubled for each next "
            "one (exponential backoff)"
        ),
    )
    jobs_max_delay_s: float = Field(
        300.0,
        ge=0,
        validation_alias="JOBS_MAX_DELAY_S",
        description="retry policy: the longest delay between attempts",
    )
    jobs_heartbeat_s: int = Field(
        10,
        ge=1,
        validation_alias="JOBS_HEARTBEAT_S",
        description="worker heartbeat: how often a running job is marked alive",
    )
    jobs_sweep_s: int = Field(
        10,
        ge=1,
        validation_alias="JOBS_SWEEP_S",
        description="how often a dead worker's jobs are looked for",
    )
