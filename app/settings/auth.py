from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode

from app.settings.text import listed


class AuthSettings(BaseModel):
    """Keys and browser origins

    Who may call: the configured keys, the admin key, the embedded default's generated key, the
    keys made at runtime (`POST /admin/keys`), and which browser origins may.
    """

    # api_keys: JSON {"<key or sha256:hex>": "user_id" | {"user_id": .., "agent_prefix": ..}}
    api_keys: dict[str, str | dict[str, str]] = Field(
        {},
        validation_alias="ENGRAM_API_KEYS",
        description=(
            'JSON: `{"<key or sha256:hex>": "user_id" | {"user_id": …, "agent_prefix": …}}`'
        ),
    )
    admin_key: str | None = Field(
        None,
        validation_alias="ENGRAM_ADMIN_KEY",
        description="admin key, at least 16 characters; unlocks `/admin/*`",
    )
    # The embedded default writes a random key for this user to data_dir/api_key on first run.
    default_user: str = Field(
        "local",
        validation_alias="ENGRAM_DEFAULT_USER",
        description="the user of the key the embedded default generates",
    )
    generate_local_key: bool = Field(
        True,
        validation_alias="ENGRAM_GENERATE_LOCAL_KEY",
        description="write a random key to `ENGRAM_DATA_DIR/api_key` on first run",
    )
    # Keys made at runtime (POST /admin/keys, app/auth/runtime_keys.py): a revocation reaches
    # the other processes within keys_refresh_s; a key's cached answer is trusted keys_cache_s.
    keys_refresh_s: float = Field(
        2.0,
        gt=0,
        le=300,
        validation_alias="ENGRAM_KEYS_REFRESH_S",
        description=(
            "how often each API process polls for revoked runtime keys "
            "(`/admin/keys`): a revocation reaches every process within this (≤ 300)"
        ),
    )
    keys_cache_s: float = Field(
        60.0,
        gt=0,
        le=3600,
        validation_alias="ENGRAM_KEYS_CACHE_S",
        description=(
            "how long a process trusts what it looked up about a runtime key (known "
            "or unknown) before asking the graph again (≤ 3600)"
        ),
    )
    max_keys_per_user: int = Field(
        100,
        ge=1,
        le=10_000,
        validation_alias="ENGRAM_MAX_KEYS_PER_USER",
        description="unrevoked runtime keys a user may hold (409 beyond)",
    )
    keys_last_used_s: float = Field(
        60.0,
        gt=0,
        validation_alias="ENGRAM_KEYS_LAST_USED_S",
        description="how often the runtime keys' `last_used_at` is written",
    )
    # AutoMem's `?api_key=` query parameter. Off: a key in a URL ends up in proxy and server logs
    # and in browser history (Engram's own request log prints the path only).
    allow_query_api_key: bool = Field(
        False,
        validation_alias="ENGRAM_ALLOW_QUERY_API_KEY",
        description=(
            "accept AutoMem's `?api_key=<key>`; **unsafe**: URLs end up in proxy logs "
            "and browser history ([api](api.md#keys-scopes-and-errors))"
        ),
    )
    # Browser origins allowed to call the API (CORS): comma-separated or a JSON list; "*" = any;
    # empty = no CORS headers at all.
    cors_origins: Annotated[list[str], NoDecode] = Field(
        [],
        validation_alias="ENGRAM_CORS_ORIGINS",
        description=(
            "browser origins allowed to call the API, comma-separated or a JSON list; "
            "`*` = any; unset: off (no CORS headers)"
        ),
    )

    @field_validator("admin_key")
    @classmethod
    def _admin_key_strong_enough(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 16:
            raise ValueError("ENGRAM_ADMIN_KEY must be at least 16 characters")
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origins_from_text(cls, value: Any) -> Any:
        return listed(value)
