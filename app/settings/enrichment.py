from pydantic import BaseModel, Field


class EnrichmentSettings(BaseModel):
    """Enrichment

    Entities, summary and links, added to a memory after it is embedded (app/enrichment/).
    """

    enrichment_enabled: bool = Field(True, validation_alias="ENRICHMENT_ENABLED")
    enrichment_similarity_threshold: float = Field(
        0.8, ge=0, le=1, validation_alias="ENRICHMENT_SIMILARITY_THRESHOLD"
    )
    enrichment_similar_limit: int = Field(5, ge=0, validation_alias="ENRICHMENT_SIMILAR_LIMIT")
