from pydantic import BaseModel, Field


class EnrichmentSettings(BaseModel):
    """Enrichment

    Entities, summary and links, added to a memory after it is embedded (app/enrichment/).
    """

    enrichment_enabled: bool = Field(
        True,
        validation_alias="ENRICHMENT_ENABLED",
        description="run the enrichment job after embedding",
    )
    enrichment_similarity_threshold: float = Field(
        0.8,
        ge=0,
        le=1,
        validation_alias="ENRICHMENT_SIMILARITY_THRESHOLD",
        description="`SIMILAR_TO` links: the similarity a link needs",
    )
    enrichment_similar_limit: int = Field(
        5,
        ge=0,
        validation_alias="ENRICHMENT_SIMILAR_LIMIT",
        description="`SIMILAR_TO` links: at most this many per memory",
    )
