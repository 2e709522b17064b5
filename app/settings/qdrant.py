from pydantic import BaseModel, Field


class QdrantSettings(BaseModel):
    """Qdrant (the vector mirror)

    Unset `QDRANT_URL`: a Qdrant Edge shard under the data directory; `:memory:` for tests.
    """

    qdrant_url: str | None = Field(None, validation_alias="QDRANT_URL")
    qdrant_api_key: str | None = Field(None, validation_alias="QDRANT_API_KEY")
    qdrant_collection: str = Field("memories", validation_alias="QDRANT_COLLECTION")
    # A process whose vector store is not the one the graph records refuses to start; this
    # makes its vector store the deployment's instead (after moving to a new Qdrant).
    adopt_vector_store: bool = Field(False, validation_alias="ENGRAM_ADOPT_VECTOR_STORE")

    @property
    def embedded_qdrant(self) -> bool:
        return self.qdrant_url is None
