"""Engram's settings: one typed object, read from the environment (and `.env`) once.

`Settings` composes the domains' classes (app/settings/): every field keeps its flat name
(`settings.falkordb_url`) and its environment variable."""

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict

from app.settings.artifacts import ArtifactSettings
from app.settings.auth import AuthSettings
from app.settings.consolidation import ConsolidationSettings
from app.settings.embeddings import EmbeddingSettings
from app.settings.enrichment import EnrichmentSettings
from app.settings.falkordb import MAX_SENTINELS, FalkorDBSettings
from app.settings.jobs import JobSettings
from app.settings.lifecycle import LifecycleSettings
from app.settings.llm import LLMSettings
from app.settings.mcp_oauth import McpOAuthSettings
from app.settings.mirror import MirrorSettings
from app.settings.qdrant import QdrantSettings
from app.settings.recall import RecallSettings
from app.settings.remember import RememberSettings
from app.settings.service import ServiceSettings
from app.settings.webhooks import WebhookSettings

__all__ = ["MAX_SENTINELS", "Settings", "get_settings"]


class Settings(
    ArtifactSettings,
    ConsolidationSettings,
    LifecycleSettings,
    RememberSettings,
    EnrichmentSettings,
    LLMSettings,
    RecallSettings,
    WebhookSettings,
    McpOAuthSettings,
    MirrorSettings,
    JobSettings,
    EmbeddingSettings,
    QdrantSettings,
    FalkorDBSettings,
    AuthSettings,
    ServiceSettings,
    BaseSettings,
):
    """Every knob Engram reads. Unset store URLs mean the embedded default.

    The domains are listed last to first because pydantic takes the fields of the last base
    first: so the fields (in a repr, a dump, validation errors) come in docs/configuration.md's
    order."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
