"""Embedders behind one interface: local MiniLM (default), any OpenAI-compatible server, hash."""

from app.embeddings.base import ChainingEmbedder, Embedder, EmbedderUnavailable, EmbeddingError
from app.embeddings.hashed import HashEmbedder
from app.embeddings.local import DIMENSION as LOCAL_DIMENSION
from app.embeddings.local import MODEL_ALIASES as LOCAL_MODELS
from app.embeddings.local import LocalEmbedder
from app.embeddings.remote import OpenAIEmbedder

__all__ = [
    "PROVIDERS",
    "ChainingEmbedder",
    "Embedder",
    "EmbedderUnavailable",
    "EmbeddingError",
    "HashEmbedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "create_embedder",
]

PROVIDERS = ("local", "openai", "hash")


def create_embedder(
    provider: str,
    *,
    dimension: int | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    batch_size: int = 32,
    timeout: float = 30.0,
    max_retries: int = 3,
    threads: int = 2,
    send_dimensions: bool = False,
) -> Embedder:
    """Builds the configured embedder; raises ValueError on an unknown provider or bad settings.

    local: `model` (if set) must name all-MiniLM-L6-v2 and `dimension` (if set) be 384.
    openai: `base_url` (with its /v1), `model` and `dimension` are required; `dimension` is
    also sent as the `dimensions` parameter when `send_dimensions` is set.
    hash: `dimension` defaults to 384; for tests only, never chosen implicitly.
    """
    match provider:
        case "local":
            return _local(dimension=dimension, model=model, batch_size=batch_size, threads=threads)
        case "openai":
            if not (base_url and model and dimension):
                raise ValueError("the openai provider needs base_url, model and dimension")
            return OpenAIEmbedder(
                base_url=base_url,
                model=model,
                dimension=dimension,
                api_key=api_key,
                send_dimensions=send_dimensions,
                batch_size=batch_size,
                timeout=timeout,
                max_retries=max_retries,
            )
        case "hash":
            return HashEmbedder(dimension=dimension or LOCAL_DIMENSION)
    raise ValueError(f"unknown embedding provider {provider!r}; expected one of {PROVIDERS}")


def _local(*, dimension: int | None, model: str | None, batch_size: int, threads: int) -> Embedder:
    if model is not None and model not in LOCAL_MODELS:
        raise ValueError(f"the local provider runs {sorted(LOCAL_MODELS)}, not {model!r}")
    if dimension is not None and dimension != LOCAL_DIMENSION:
        raise ValueError(f"the local model is {LOCAL_DIMENSION}-d, not {dimension}-d")
    return LocalEmbedder(batch_size=batch_size, threads=threads)
