"""A start with another embedding model re-embeds every memory instead of mixing vector spaces."""

from functools import partial
from pathlib import Path

import httpx
import numpy as np
import pytest

from app.embeddings import EmbeddingError
from app.embeddings.local import MODEL_ID
from app.memories.tasks import EmbedDeps, embed_memories
from app.ops.embedding_model import adopt_embedding_model
from app.scope import Scope
from app.storage import Stores
from app.storage.mirror import embedding_text
from app.storage.vectors.edge_owner import MODEL_FILE
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.memories.test_embedding_jobs import FAST_JOBS, embedded, wait_until

H = auth(ALICE_KEY)
NOTES = ["My cat sleeps on the windowsill all afternoon", "The invoice for March is overdue"]


async def model_vector(client: httpx.AsyncClient, memory_id: str) -> list[float]:
    """What the running embedder makes of a stored memory."""
    memory = (await client.app.state.stores.graph.memories_of_user("alice", [memory_id]))[0]
    text = embedding_text(memory, with_date=True)
    return (await client.app.state.runtime.embedder.embed([text]))[0]


async def marked_embedded(client: httpx.AsyncClient, content: str) -> str:
    """A stored memory marked embedded, as one made before a change of model; its id."""
    created = await client.post("/memory", json={"content": content}, headers=H)
    memory_id = created.json()["memory_id"]
    graph = client.app.state.stores.graph
    await graph.set_embedding_status(Scope("alice", None), [memory_id], "done")
    return memory_id


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_a_new_model_reembeds_everything_and_then_searches_by_meaning(
    falkordb_url: str, tmp_path: Path
):
    hashed = test_settings(
        tmp_path, falkordb_url=falkordb_url, embedding_dimensions=384, **FAST_JOBS
    )
    async with running_client(hashed) as client:
        ids = [
            (await client.post("/memory", json={"content": n}, headers=H)).json()["memory_id"]
            for n in NOTES
        ]
        for memory_id in ids:
            await wait_until(lambda m=memory_id: embedded(client, m))
        assert await client.app.state.stores.vectors.embedding_model() == "hash-bow-v1-384"

    local = hashed.model_copy(update={"embedding_provider": "local", "embedding_dimensions": None})
    async with running_client(local) as client:
        stores = client.app.state.stores
        assert await stores.vectors.embedding_model() == MODEL_ID
        for memory_id in ids:
            await wait_until(lambda m=memory_id: embedded(client, m), timeout=60)
        for memory_id in ids:  # every stored vector is now the new model's
            stored = (await stores.vectors.retrieve([memory_id]))[memory_id].dense
            assert cosine(stored, await model_vector(client, memory_id)) > 0.999
        found = await client.post("/recall", json={"query": "a sleepy kitten"}, headers=H)
        first = found.json()["results"][0]
        assert (first["id"], first["match_type"]) == (ids[0], "vector")


async def test_the_same_model_changes_nothing_and_another_sends_memories_back_to_pending(
    falkordb_url: str, tmp_path: Path
):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        stores = client.app.state.stores
        memory_id = await marked_embedded(client, NOTES[0])

        adopt = partial(adopt_embedding_model, stores, trust_unrecorded=False)
        assert await adopt("hash-bow-v1-8") == 0  # recorded at start
        assert await adopt("another-model") == 1
        assert await adopt("another-model") == 0
        stored = (await stores.graph.memories_of_user("alice", [memory_id]))[0]
        assert stored.embedding_status == "pending"
        assert await stores.vectors.embedding_model() == "another-model"


async def test_an_unrecorded_index_is_trusted_when_told_and_redone_otherwise(
    falkordb_url: str, tmp_path: Path
):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        stores = client.app.state.stores
        await marked_embedded(client, NOTES[1])

        await forget_model(stores, tmp_path)  # as an index from before models were kept
        assert await adopt_embedding_model(stores, "remote-model", trust_unrecorded=True) == 0
        assert await stores.vectors.embedding_model() == "remote-model"
        await forget_model(stores, tmp_path)
        assert await adopt_embedding_model(stores, "local-model", trust_unrecorded=False) == 1


async def forget_model(stores: Stores, data_dir: Path) -> None:
    """Reopens the Edge shard without its model record."""
    await stores.vectors.close()
    (data_dir / "qdrant" / MODEL_FILE).unlink()
    await stores.vectors.open()
    assert await stores.vectors.embedding_model() is None


async def test_a_process_on_another_model_writes_no_vectors(falkordb_url: str, tmp_path: Path):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        runtime = client.app.state.runtime
        created = await client.post("/memory", json={"content": NOTES[0]}, headers=H)
        memory_id = created.json()["memory_id"]
        await runtime.stores.vectors.set_embedding_model("the-new-model")  # another process's
        deps = EmbedDeps(runtime.stores, runtime.embedder, runtime.jobs)

        with pytest.raises(EmbeddingError, match="the-new-model"):
            await embed_memories(deps, "alice", [memory_id])

        assert not (await runtime.stores.vectors.retrieve([memory_id]))[memory_id].has_dense
        stored = (await runtime.stores.graph.memories_of_user("alice", [memory_id]))[0]
        assert stored.embedding_status == "pending"
