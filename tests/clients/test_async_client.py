"""engram_client.AsyncEngram against a real Engram, and its surface kept equal to Engram's."""

import inspect
import uuid

import pytest
from engram_client import AsyncEngram, Engram, NotFoundError

from tests.conftest import ALICE_KEY


def public(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_") and name not in ("close", "aclose")
    }


def test_both_clients_have_the_same_methods_and_parameters():
    sync, asynchronous = public(Engram), public(AsyncEngram)
    assert sync.keys() == asynchronous.keys()
    for name, signature in sync.items():
        assert list(signature.parameters) == list(asynchronous[name].parameters), name


async def test_round_trip_remember_and_export(engram_url: str):
    async with AsyncEngram(engram_url, api_key=ALICE_KEY) as alice:
        stored = await alice.store("Async Alice waters the plants on Sundays", tags=["garden"])
        assert (await alice.get(stored.memory_id)).tags == ["garden"]
        found = await alice.recall("waters the plants", tags=["garden"], limit=2)
        assert found.results[0].id == stored.memory_id
        listed = [m.id async for m in alice.iter_memories(page_size=1, tags=["garden"])]
        assert listed == [stored.memory_id]
        accepted = await alice.remember(
            [{"role": "user", "content": "My sister Ana lives in Porto."}],
            session_id=f"a-{uuid.uuid4().hex[:8]}",
            wait=True,
            timeout_s=60,
        )
        assert accepted.job is not None and accepted.job.state == "done"
        exported = {line["memory"]["id"] async for line in alice.export() if "memory" in line}
        assert stored.memory_id in exported
        await alice.delete(stored.memory_id)
        with pytest.raises(NotFoundError):
            await alice.get(stored.memory_id)
