from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class ServiceSettings(BaseModel):
    """Service and HTTP

    Where Engram listens and keeps its data, its logs, and the largest request it reads.
    """

    host: str = Field(
        "127.0.0.1", validation_alias="ENGRAM_HOST", description="where to listen: the address"
    )
    port: int = Field(8001, validation_alias="ENGRAM_PORT", description="where to listen: the port")
    data_dir: Path = Field(
        Path("data"),
        validation_alias="ENGRAM_DATA_DIR",
        description=(
            "the embedded stores' data and the generated local key; one Engram at a "
            "time (`engram.lock`)"
        ),
    )
    log_level: str = Field("info", validation_alias="ENGRAM_LOG_LEVEL", description="log level")
    # A request body over this many bytes is a 413 before it is parsed. The default is above the
    # largest valid body: a batch of 500 memories at their field limits, with vectors.
    max_body_bytes: int = Field(
        64 * 1024 * 1024,
        ge=1024,
        validation_alias="ENGRAM_MAX_BODY_BYTES",
        description=(
            "a request body over this is a 413 before it is read whole ([errors](errors.md))"
        ),
    )
    # json: one object a line (with the request id); text: plain lines for a terminal.
    log_format: Literal["json", "text"] = Field(
        "json",
        validation_alias="ENGRAM_LOG_FORMAT",
        description=(
            "`json`: one JSON object a line (with the request id); `text`: plain "
            "lines for a terminal"
        ),
    )
    access_log: bool = Field(
        True,
        validation_alias="ENGRAM_ACCESS_LOG",
        description="the access log ([integrations](integrations.md))",
    )
    # GET /metrics (Prometheus): aggregate figures only, no memory content, no user ids.
    metrics_enabled: bool = Field(
        True, validation_alias="ENGRAM_METRICS", description="serve `GET /metrics`"
    )
