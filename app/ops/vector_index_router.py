"""POST /admin/vectors/index: builds the embedded vector index's HNSW graphs on request.

The embedded Qdrant Edge shard has no background optimizer, so every search is exact until the
operator builds the index (app/storage/vectors/edge_index.py); a Qdrant server builds its own and
the call only says so. The build holds the process's GIL: the server answers nothing else while
it runs (about 2 minutes at 100k memories), so the usual way is `engram index-vectors
--data-dir DIR` on a stopped data directory (docs/operations.md).
"""

import logging
from dataclasses import asdict

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.deps import AdminDep, StoresDep
from app.storage.vectors import IndexBuilder

router = APIRouter(tags=["admin"])
log = logging.getLogger(__name__)


class IndexBuildReport(BaseModel):
    engine: str = Field(description="edge (embedded) or qdrant (a Qdrant server).")
    built: bool = Field(
        description="true: Engram built the index now; false: the engine builds its own "
        "(a Qdrant server's optimizer), nothing was done."
    )
    seconds: float = Field(description="How long the build took.")
    points: int = Field(description="Points in the index.")
    segments: int = Field(description="Segments of the index (-1: the engine does not say).")
    indexed_segments: int = Field(
        description="Segments whose dense vectors have an HNSW graph; the others (points "
        "written since the last build, or too few to index) are searched exactly."
    )


@router.post("/admin/vectors/index", response_model=IndexBuildReport)
async def build_vector_index(stores: StoresDep, _: AdminDep) -> IndexBuildReport:
    """Builds HNSW graphs where the embedded vector index's segments are large enough (Qdrant's
    indexing threshold, ~13,000 points); the server answers nothing else until it is done."""
    vectors = stores.vectors
    if not isinstance(vectors, IndexBuilder):
        return IndexBuildReport(
            engine=vectors.kind,
            built=False,
            seconds=0.0,
            points=await vectors.count(),
            segments=-1,
            indexed_segments=-1,
        )
    log.warning("building the vector index: no search is answered until it is done")
    build = await vectors.build_index()
    log.warning("vector index built in %.1f s (%d points)", build.seconds, build.points)
    return IndexBuildReport(**asdict(build))
