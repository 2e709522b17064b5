"""`include_artifacts`: recall also searches the chunks of the caller's text artifacts (slow
memory, app/artifacts/search.py) and answers them apart from the memories, under
`artifacts`, best first; routine recall never reads them."""

from app.artifacts import search as artifact_search
from app.embeddings import Embedder
from app.recall.params import RecallRequest
from app.scope import Scope
from app.storage import Stores

# More chunks than this are never returned by one request, whatever its `limit`.
MAX_CHUNKS = 20


async def search(
    stores: Stores,
    embedder: Embedder,
    scope: Scope,
    params: RecallRequest,
    *,
    floor: float,
    budget: int,
) -> artifact_search.ArtifactsFound:
    """The `artifacts` part of a recall's answer; empty without a query or an embedding."""
    if params.embedding is not None:
        vector: list[float] = list(params.embedding)
    elif params.query:
        vector = await embedder.embed_query(params.query)
    else:
        return artifact_search.ArtifactSearch().as_dict()
    found = await artifact_search.search(
        stores,
        embedder,
        scope,
        vector,
        limit=min(params.limit, MAX_CHUNKS),
        floor=params.relevance_floor if params.relevance_floor is not None else floor,
        budget=budget,
    )
    return found.as_dict()
