"""Building the Edge shard's HNSW index on request (POST /admin/vectors/index): the large
segment gets a graph, searches through it keep each user's points to that user, and points
written afterwards are found beside the graph."""

import uuid
from pathlib import Path

import numpy as np

from app.scope import Scope
from app.storage.vectors import EdgeVectorIndex, VectorFilter, VectorPoint
from app.storage.vectors.base import SHARED_LIVE
from app.storage.vectors.edge_index import segment_index_kinds

# Qdrant indexes a segment past 10 MB of vectors, and searches a filter through the graph once
# its points pass 10 MB too: at 4,096 float16 dimensions (8 KB a vector) 1,400 points do both.
DIMENSION = 4096
ALICE_POINTS, BOB_POINTS = 1400, 100


def unit_vectors(count: int, seed: int) -> np.ndarray:
    """Clustered, like embeddings: 20 centres plus noise."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, DIMENSION))
    vectors = centres[rng.integers(0, 20, count)] + 0.3 * rng.standard_normal((count, DIMENSION))
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def points(user: str, vectors: np.ndarray) -> list[VectorPoint]:
    payload = {"user_id": user, SHARED_LIVE: user}
    return [
        VectorPoint(str(uuid.uuid4()), v.tolist(), f"{user} memory {i}", payload)
        for i, v in enumerate(vectors)
    ]


async def nearest(index: EdgeVectorIndex, user: str, vector: np.ndarray) -> list[str]:
    hits = await index.search_dense(vector.tolist(), VectorFilter(Scope(user)), 10)
    return [hit.id for hit in hits]


async def test_the_build_indexes_the_large_segment_and_keeps_searches_scoped(tmp_path: Path):
    path = tmp_path / "qdrant"
    index = EdgeVectorIndex(path, DIMENSION)
    await index.open()
    try:
        vectors = unit_vectors(ALICE_POINTS + BOB_POINTS, seed=3)
        alice = points("alice", vectors[:ALICE_POINTS])
        bob = points("bob", vectors[ALICE_POINTS:])
        await index.upsert(alice + bob)
        assert segment_index_kinds(path) == ["plain"]
        probes = [0, 333, 999, ALICE_POINTS - 1]
        before = [await nearest(index, "alice", vectors[i]) for i in probes]

        build = await index.build_index()

        assert build.built and build.engine == "edge" and build.points == len(alice + bob)
        assert build.indexed_segments >= 1 and "hnsw" in segment_index_kinds(path)
        for i, exact in zip(probes, before, strict=True):
            found = await nearest(index, "alice", vectors[i])
            assert found[0] == alice[i].id  # its own vector: the nearest, through the graph
            assert len(set(found) & set(exact)) >= 8
        alice_ids = {p.id for p in alice}
        assert not alice_ids & set(await nearest(index, "bob", vectors[0]))

        late = points("alice", unit_vectors(1, seed=9))
        await index.upsert(late)  # after the build: a plain segment beside the graph
        assert (await nearest(index, "alice", np.array(late[0].dense)))[0] == late[0].id
        assert await index.count(Scope("alice")) == ALICE_POINTS + 1
    finally:
        await index.close()


async def test_a_small_shard_is_left_plain_and_searched_exactly(tmp_path: Path):
    path = tmp_path / "qdrant"
    index = EdgeVectorIndex(path, 8)
    await index.open()
    try:
        vectors = unit_vectors(50, seed=5)[:, :8]
        stored = points("alice", vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        await index.upsert(stored)
        build = await index.build_index()
        assert build.built and build.points == 50 and build.indexed_segments == 0
        assert (await nearest(index, "alice", np.array(stored[7].dense)))[0] == stored[7].id
    finally:
        await index.close()
