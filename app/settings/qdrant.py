from pydantic import BaseModel, Field


class QdrantSettings(BaseModel):
    """Qdrant (the vector mirror)

    Unset `QDRANT_URL`: a Qdrant Edge shard under the data directory; `:memory:` for tests.
    """

    qdrant_url: str | None = Field(
        None,
        validation_alias="QDRANT_URL",
        description=(
            "a Qdrant server; unset: a Qdrant Edge shard in `ENGRAM_DATA_DIR/qdrant`; "
            "`:memory:` in tests"
        ),
    )
    qdrant_api_key: str | None = Field(
        None, validation_alias="QDRANT_API_KEY", description="the server's API key"
    )
    qdrant_collection: str = Field(
        "memories", validation_alias="QDRANT_COLLECTION", description="collection name"
    )
    # A process whose vector store is not the one the graph records refuses to start; this
    # makes its vector store the deployment's instead (after moving to a new Qdrant).
    adopt_vector_store: bool = Field(
        False,
        validation_alias="ENGRAM_ADOPT_VECTOR_STORE",
        description=(
            "make this process's vector store the deployment's (after moving to a new "
            "Qdrant; [integrations](integrations.md))"
        ),
    )

    @property
    def embedded_qdrant(self) -> bool:
        return self.qdrant_url is None
