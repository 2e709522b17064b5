"""The vector index's errors (re-exported by app.storage.vectors.base)."""


class VectorIndexError(Exception):
    """The vector index could not do what was asked."""


class VectorDimensionMismatch(VectorIndexError):
    """The stored dense vectors have another size than the configured embedder."""

    def __init__(self, where: str, stored: int, configured: int) -> None:
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"{where} stores {stored}-d dense vectors but the configured embedding dimension "
            f"is {configured}. Re-embed to switch models: either delete {where} so it is "
            f"recreated with {configured}-d vectors and re-synced from the graph, or switch the "
            f"embedding settings back to the {stored}-d model and run `POST /admin/reembed`."
        )


class VectorPointNotFound(VectorIndexError):
    """The point to update does not exist in the index."""
