from typing import Literal

from pydantic import BaseModel, Field


class EmbeddingSettings(BaseModel):
    """Embeddings

    `local` (the default, offline), `openai` (any OpenAI-compatible API), or `hash` (tests only).
    """

    embedding_provider: Literal["local", "openai", "hash"] = Field(
        "local", validation_alias="EMBEDDING_PROVIDER"
    )
    embedding_model: str | None = Field(None, validation_alias="EMBEDDING_MODEL")
    embedding_base_url: str | None = Field(None, validation_alias="EMBEDDING_BASE_URL")
    embedding_api_key: str | None = Field(None, validation_alias="EMBEDDING_API_KEY")
    # The vector size for openai/hash; the local model is always 384.
    embedding_dimensions: int | None = Field(None, validation_alias="EMBEDDING_DIMENSIONS")
    embedding_send_dimensions: bool = Field(False, validation_alias="EMBEDDING_SEND_DIMENSIONS")
    embedding_batch_size: int = Field(32, ge=1, le=2048, validation_alias="EMBEDDING_BATCH_SIZE")
    embedding_timeout_s: float = Field(30.0, validation_alias="EMBEDDING_TIMEOUT_S")
    embedding_max_retries: int = Field(3, ge=0, validation_alias="EMBEDDING_MAX_RETRIES")
    embedding_threads: int = Field(2, ge=1, validation_alias="EMBEDDING_THREADS")
    # Embed "[8 May 2023] content" rather than the bare content (see storage/mirror.py).
    embedding_include_date: bool = Field(True, validation_alias="EMBEDDING_INCLUDE_DATE")
