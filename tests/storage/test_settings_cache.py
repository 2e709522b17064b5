"""The cache of the Personal Intelligence switch (app/storage/graph/settings_cache.py), alone: fresh
entries answer, a change drops them, and a read in flight across a change is not cached."""

from app.storage.graph import settings_cache


class Graph:
    """Stands for a graph: the cache keys its entries by the graph object."""


def reader(values: list[bool], calls: list[int]):
    async def read() -> bool:
        calls.append(1)
        return values[-1]

    return read


async def test_a_fresh_entry_answers_and_a_change_drops_it():
    graph, values, calls = Graph(), [True], []
    assert await settings_cache.cached(graph, "alice", reader(values, calls)) is True
    assert await settings_cache.cached(graph, "alice", reader(values, calls)) is True
    assert len(calls) == 1  # the second came from the cache
    values.append(False)
    settings_cache.forget(graph, "alice")
    assert await settings_cache.cached(graph, "alice", reader(values, calls)) is False
    assert len(calls) == 2


async def test_users_and_graphs_are_apart():
    one, other, calls = Graph(), Graph(), []
    assert await settings_cache.cached(one, "alice", reader([False], calls)) is False
    assert await settings_cache.cached(one, "bob", reader([True], calls)) is True
    assert await settings_cache.cached(other, "alice", reader([True], calls)) is True
    assert len(calls) == 3


async def test_a_read_in_flight_across_a_change_is_not_kept():
    graph, calls = Graph(), []

    async def stale_read() -> bool:
        settings_cache.forget(graph, "alice")  # the change lands while this read is out
        return True

    assert await settings_cache.cached(graph, "alice", stale_read) is True
    assert await settings_cache.cached(graph, "alice", reader([False], calls)) is False
    assert len(calls) == 1


async def test_forgetting_every_user():
    graph, calls = Graph(), []
    await settings_cache.cached(graph, "alice", reader([True], calls))
    await settings_cache.cached(graph, "bob", reader([True], calls))
    settings_cache.forget(graph)
    await settings_cache.cached(graph, "alice", reader([False], calls))
    await settings_cache.cached(graph, "bob", reader([False], calls))
    assert len(calls) == 4
