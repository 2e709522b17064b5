from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class ServiceSettings(BaseModel):
    """Service and HTTP

    Where Engram listens and keeps its data, its logs, and the largest request it reads.
    """

    host: str = Field("127.0.0.1", validation_alias="ENGRAM_HOST")
    port: int = Field(8001, validation_alias="ENGRAM_PORT")
    data_dir: Path = Field(Path("data"), validation_alias="ENGRAM_DATA_DIR")
    log_level: str = Field("info", validation_alias="ENGRAM_LOG_LEVEL")
    # A request body over this many bytes is a 413 before it is parsed. The default is above the
    # largest valid body: a batch of 500 memories at their field limits, with vectors.
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024, validation_alias="ENGRAM_MAX_BODY_BYTES")
    # json: one object a line (with the request id); text: plain lines for a terminal.
    log_format: Literal["json", "text"] = Field("json", validation_alias="ENGRAM_LOG_FORMAT")
    access_log: bool = Field(True, validation_alias="ENGRAM_ACCESS_LOG")
    # GET /metrics (Prometheus): aggregate figures only, no memory content, no user ids.
    metrics_enabled: bool = Field(True, validation_alias="ENGRAM_METRICS")
