from typing import Literal

from pydantic import BaseModel, Field


class EmbeddingSettings(BaseModel):
    """Embeddings

    `local` (the default, offline), `openai` (any OpenAI-compatible API), or `hash` (tests only).
    """

    embedding_provider: Literal["local", "openai", "hash"] = Field(
        "local",
        validation_alias="EMBEDDING_PROVIDER",
        description=(
            "`local` (offline, all-MiniLM-L6-v2), `openai` (any OpenAI-compatible "
            "API), `hash` (tests only)"
        ),
    )
    embedding_model: str | None = Field(
        None, validation_alias="EMBEDDING_MODEL", description="the remote embedder: its model"
    )
    embedding_base_url: str | None = Field(
        None,
        validation_alias="EMBEDDING_BASE_URL",
        description="the remote embedder: its API's base URL",
    )
    embedding_api_key: str | None = Field(
        None, validation_alias="EMBEDDING_API_KEY", description="the remote embedder: its API key"
    )
    # The vector size for openai/hash; the local model is always 384.
    embedding_dimensions: int | None = Field(
        None,
        validation_alias="EMBEDDING_DIMENSIONS",
        description="vector size for `openai`/`hash` (the local model is 384)",
    )
    embedding_send_dimensions: bool = Field(
        False,
        validation_alias="EMBEDDING_SEND_DIMENSIONS",
        description="pass `dimensions` to the API",
    )
    embedding_batch_size: int = Field(
        32,
        ge=1,
        le=2048,
        validation_alias="EMBEDDING_BATCH_SIZE",
        description="texts embedded in one call (1–2048)",
    )
    embedding_timeout_s: float = Field(
        30.0, validation_alias="EMBEDDING_TIMEOUT_S", description="a remote call's time limit"
    )
    embedding_max_retries: int = Field(
        3,
        ge=0,
        validation_alias="EMBEDDING_MAX_RETRIES",
        description="retries of a failed remote call",
    )
    embedding_threads: int = Field(
        2,
        ge=1,
        validation_alias="EMBEDDING_THREADS",
        description="the local model's ONNX Runtime threads for background embedding",
    )
    # Embed "[8 May 2023] content" rather than the bare content (see storage/mirror.py).
    embedding_include_date: bool = Field(
        True,
        validation_alias="EMBEDDING_INCLUDE_DATE",
        description="embed `[8 May 2023] content` (BM25 indexes the bare content)",
    )
