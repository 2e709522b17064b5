"""A start with another embedding model re-embeds every memory instead of mixing vector spaces."""

from pathlib import Path

import httpx
import numpy as np

from app.embeddings.local import MODEL_ID
from app.memories.mirror import embedding_text
from app.ops.embedding_model import adopt_embedding_model
from app.scope import Scope
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.memories.test_embedding_jobs import FAST_JOBS, embedded, wait_until

H = auth(ALICE_KEY)
NOTES = ["My cat sleeps on the windowsill all afternoon", "The invoice for March is overdue"]


async def model_vector(client: httpx.AsyncClient, memory_id: str) -> list[float]:
    """What the running embedder makes of a stored memory."""
    memory = (await client.app.state.stores.graph.memories_of_user("alice", [memory_id]))[0]
    text = embedding_text(memory, with_date=True)
    return (await client.app.state.runtime.embedder.embed([text]))[0]


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
        created = await client.post("/memory", json={"content": NOTES[0]}, headers=H)
        memory_id = created.json()["memory_id"]
        await stores.graph.set_embedding_status(Scope("alice", None), [memory_id], "done")

        assert await adopt_embedding_model(stores, "hash-bow-v1-8") == 0  # already recorded
        assert await adopt_embedding_model(stores, "another-model") == 1
        assert await adopt_embedding_model(stores, "another-model") == 0
        stored = (await stores.graph.memories_of_user("alice", [memory_id]))[0]
        assert stored.embedding_status == "pending"
        assert await stores.vectors.embedding_model() == "another-model"
