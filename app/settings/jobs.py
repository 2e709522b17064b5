from pydantic import BaseModel, Field


class JobSettings(BaseModel):
    """Jobs and workers

    Durable jobs, queued in the FalkorDB server's Redis, and the processes that run them.
    """

    # Concurrent job slots per kind run inside the API process; 0 = none (run
    # `python -m app.worker` processes instead).
    workers: int = Field(2, ge=0, validation_alias="ENGRAM_WORKERS")
    worker_heartbeat_s: float = Field(5.0, gt=0, validation_alias="ENGRAM_WORKER_HEARTBEAT_S")
    jobs_namespace: str = Field("engram", validation_alias="JOBS_NAMESPACE")
    jobs_max_attempts: int = Field(5, ge=1, validation_alias="JOBS_MAX_ATTEMPTS")
    jobs_base_delay_s: float = Field(2.0, ge=0, validation_alias="JOBS_BASE_DELAY_S")
    jobs_max_delay_s: float = Field(300.0, ge=0, validation_alias="JOBS_MAX_DELAY_S")
    jobs_heartbeat_s: int = Field(10, ge=1, validation_alias="JOBS_HEARTBEAT_S")
    jobs_sweep_s: int = Field(10, ge=1, validation_alias="JOBS_SWEEP_S")
