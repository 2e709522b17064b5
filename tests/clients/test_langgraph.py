"""engram_client.langgraph.EngramStore, LangGraph's own BaseStore interface, on a real Engram:
put / get / search (semantic and filtered) / delete / list_namespaces, sync and async, and the
namespace's agent part kept apart by Engram."""

import uuid

import pytest
from engram_client import AsyncEngram, Engram
from engram_client.langgraph import EngramStore
from langgraph.store.base import BaseStore

from tests.conftest import ALICE_KEY


@pytest.fixture
def store(engram_url: str):
    with Engram(engram_url, api_key=ALICE_KEY, agent_id="langgraph") as client:
        yield EngramStore(client, agent_index=1)


def test_put_get_search_delete(store: BaseStore):
    app = f"app{uuid.uuid4().hex[:6]}"
    store.put((app, "alice", "food"), "tea", {"text": "Alice drinks green tea", "rating": 5})
    store.put((app, "alice", "food"), "cake", {"text": "Alice bakes lemon cake", "rating": 3})
    store.put((app, "alice", "travel"), "trip", {"text": "Alice flies to Lisbon", "rating": 4})
    store.put((app, "bob", "food"), "tea", {"text": "Bob drinks black tea", "rating": 5})

    tea = store.get((app, "alice", "food"), "tea")
    assert tea is not None and tea.value == {"text": "Alice drinks green tea", "rating": 5}
    assert (tea.namespace, tea.key) == ((app, "alice", "food"), "tea")
    assert store.get((app, "alice", "food"), "coffee") is None

    store.put((app, "alice", "food"), "tea", {"text": "Alice drinks oolong tea", "rating": 5})
    again = store.get((app, "alice", "food"), "tea")
    assert again is not None and again.value["text"] == "Alice drinks oolong tea"
    assert again.created_at == tea.created_at and again.updated_at > tea.updated_at

    found = store.search((app, "alice"), query="oolong tea", limit=2)
    assert found[0].key == "tea" and found[0].score is not None
    assert {item.namespace[1] for item in found} == {"alice"}

    liked = store.search((app,), filter={"rating": 5})
    assert {(item.namespace[1], item.key) for item in liked} == {("alice", "tea"), ("bob", "tea")}
    high = store.search((app, "alice"), filter={"rating": {"$gte": 4}})
    assert sorted(item.key for item in high) == ["tea", "trip"]
    assert len(store.search((app,), limit=2)) == 2

    assert store.list_namespaces(prefix=(app,)) == [
        (app, "alice", "food"),
        (app, "alice", "travel"),
        (app, "bob", "food"),
    ]
    assert store.list_namespaces(prefix=(app,), max_depth=2) == [(app, "alice"), (app, "bob")]
    assert store.list_namespaces(prefix=(app,), suffix=("food",)) == [
        (app, "alice", "food"),
        (app, "bob", "food"),
    ]

    store.delete((app, "alice", "food"), "cake")
    assert store.get((app, "alice", "food"), "cake") is None


def test_the_agent_part_is_an_engram_agent(engram_url: str, store: EngramStore):
    app = f"app{uuid.uuid4().hex[:6]}"
    store.put((app, "carol"), "note", {"text": "Carol's private note"})
    with Engram(engram_url, api_key=ALICE_KEY, agent_id="langgraph:dave") as dave:
        assert dave.recall("Carol's private note", labels={"lg_key": "note"}).results == []
    with Engram(engram_url, api_key=ALICE_KEY, agent_id="langgraph:carol") as carol:
        (memory,) = carol.list_memories(labels={"lg_key": "note"}).memories
    assert memory.agent_id == "langgraph:carol" and memory.content == "Carol's private note"


async def test_the_async_interface(engram_url: str):
    app = f"app{uuid.uuid4().hex[:6]}"
    async with AsyncEngram(engram_url, api_key=ALICE_KEY) as client:
        store = EngramStore(aclient=client)
        await store.aput((app, "memories"), "m1", {"text": "The deploy runs every Friday"})
        await store.aput((app, "memories"), "m2", {"text": "Staging lives on port 8080"})
        item = await store.aget((app, "memories"), "m1")
        assert item is not None and item.value["text"] == "The deploy runs every Friday"
        hits = await store.asearch((app,), query="when does the deploy run", limit=1)
        assert [hit.key for hit in hits] == ["m1"]
        assert await store.alist_namespaces(prefix=(app,)) == [(app, "memories")]
        await store.adelete((app, "memories"), "m1")
        assert await store.aget((app, "memories"), "m1") is None
        assert [i.key for i in await store.asearch((app,))] == ["m2"]
