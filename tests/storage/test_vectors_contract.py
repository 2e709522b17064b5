"""Contract tests for the vector index, run against both the Edge and the qdrant-client adapter."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import qdrant_edge as qe
from qdrant_client import AsyncQdrantClient

from app.scope import Scope, agent_lineage
from app.storage.vectors import (
    RRF_K,
    EdgeVectorIndex,
    RemoteVectorIndex,
    VectorDimensionMismatch,
    VectorFilter,
    VectorIndex,
    VectorIndexError,
    VectorPoint,
    VectorPointNotFound,
    create_vector_index,
    open_vector_index,
)
from app.storage.vectors.base import SHARED_LIVE

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

DIM = 8
USER = "alice"


@dataclass
class Harness:
    """An open index plus a way to reopen the same storage."""

    index: VectorIndex
    reopen: Callable[[int], Awaitable[VectorIndex]]


@pytest.fixture(params=["edge", "qdrant-memory"])
async def harness(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    """Fresh index per test; ``reopen(dim)`` closes it and opens the same storage again."""
    opened: list[VectorIndex] = []
    client = AsyncQdrantClient(location=":memory:") if request.param == "qdrant-memory" else None

    def build(dimension: int) -> VectorIndex:
        if client is None:
            return EdgeVectorIndex(tmp_path / "shard", dimension)
        return RemoteVectorIndex(collection="memories", dimension=dimension, client=client)

    async def reopen(dimension: int) -> VectorIndex:
        for index in opened:
            await index.close()
        index = build(dimension)
        opened.append(index)
        await index.open()
        return index

    yield Harness(await reopen(DIM), reopen)
    for index in opened:
        await index.close()
    if client is not None:
        await client.close()


# ---------------------------------------------------------------------- helpers


def vec(*weights: float) -> list[float]:
    """A DIM-d vector from leading components (the rest are zero)."""
    return list(weights) + [0.0] * (DIM - len(weights))


def axis(i: int) -> list[float]:
    """Unit vector along axis ``i``."""
    return [1.0 if j == i else 0.0 for j in range(DIM)]


def new_id() -> str:
    """A fresh point id."""
    return str(uuid.uuid4())


def payload(
    user: str = USER,
    agent: str | None = None,
    *,
    tags: tuple[str, ...] = (),
    prefixes: tuple[str, ...] = (),
    type_: str = "fact",
    layer: str = "semantic",
    role: str = "user",
    labels: tuple[str, ...] = (),
    archived: bool = False,
    timestamp: str = "2026-11-30T10:01:21.123456+00:00",
) -> dict:
    """A payload shaped like the ones the memory service builds."""
    return {
        "user_id": user,
        "agent_lineage": agent_lineage(agent),
        "tags": list(tags),
        "tag_prefixes": list(prefixes),
        "type": type_,
        "layer": layer,
        "role": role,
        "label_pairs": list(labels),
        "archived": archived,
        "pinned": False,
        "importance": 0.5,
        "timestamp": timestamp,
        "created_at": "2026-11-30T10:01:21.123456+00:00",
        **({SHARED_LIVE: user} if agent is None and not archived else {}),
    }


def point(
    dense: list[float] | None, text: str = "", body: dict | None = None, pid: str | None = None
) -> VectorPoint:
    """A VectorPoint with defaults."""
    return VectorPoint(id=pid or new_id(), dense=dense, text=text, payload=body or payload())


def flt(user: str = USER, agent: str | None = None, **kwargs: object) -> VectorFilter:
    """A filter for ``user``/``agent`` plus extra restrictions."""
    return VectorFilter(scope=Scope(user, agent), **kwargs)


async def all_channels(index: VectorIndex, f: VectorFilter, text: str) -> dict[str, set[str]]:
    """Ids each search channel returns for a query matching every test point."""
    query = vec(1, 1, 1, 1, 1, 1, 1, 1)
    both = await index.search_channels(query, text, f, 50)
    return {
        "dense": {h.id for h in await index.search_dense(query, f, 50)},
        "sparse": {h.id for h in await index.search_sparse(text, f, 50)},
        "hybrid": {h.id for h in await index.search_hybrid(query, text, f, 50)},
        "channels.dense": {h.id for h in both.dense or []},
        "channels.sparse": {h.id for h in both.sparse or []},
    }


# ---------------------------------------------------------------------- basics


async def test_upsert_and_retrieve(harness: Harness) -> None:
    index = harness.index
    with_dense = point(axis(0), "the cat sat on the mat", payload(tags=("pets",)))
    without = point(None, "a pending embedding")
    await index.upsert([with_dense, without])

    missing = new_id()
    got = await index.retrieve([with_dense.id, without.id, missing])

    assert set(got) == {with_dense.id, without.id}
    assert got[with_dense.id].payload == with_dense.payload
    assert got[with_dense.id].has_dense is True
    assert got[without.id].has_dense is False
    assert got[with_dense.id].dense == pytest.approx(with_dense.dense, abs=1e-6)
    assert got[without.id].dense is None
    assert await index.count() == 2
    # recall's evidence reads only the vectors: the same, without the payload
    bare = await index.retrieve([with_dense.id, without.id, missing], with_payload=False)
    assert set(bare) == {with_dense.id, without.id}
    assert bare[with_dense.id].payload == {} and bare[with_dense.id].has_dense is True
    assert bare[with_dense.id].dense == got[with_dense.id].dense
    assert bare[without.id].dense is None


async def test_upsert_replaces_the_whole_point(harness: Harness) -> None:
    index = harness.index
    p = point(axis(0), "zebra stripes", payload(tags=("old",)))
    await index.upsert([p])
    await index.upsert([point(axis(1), "giraffe necks", payload(tags=("new",)), pid=p.id)])

    assert (await index.retrieve([p.id]))[p.id].payload["tags"] == ["new"]
    assert await index.search_sparse("zebra", flt(), 10) == []
    assert [h.id for h in await index.search_sparse("giraffe", flt(), 10)] == [p.id]
    assert await index.count() == 1


async def test_dense_search_ranks_nearer_vector_first(harness: Harness) -> None:
    index = harness.index
    near, middle, far = point(vec(1, 0.1)), point(vec(1, 1)), point(vec(0, 1))
    await index.upsert([far, near, middle])

    hits = await index.search_dense(vec(1, 0), flt(), 10)

    assert [h.id for h in hits] == [near.id, middle.id, far.id]
    assert hits[0].score > hits[1].score > hits[2].score
    assert hits[0].payload == near.payload
    assert len(await index.search_dense(vec(1, 0), flt(), 2)) == 2
    bare = await index.search_dense(vec(1, 0), flt(), 10, with_payload=False)
    assert [(h.id, h.payload) for h in bare] == [(h.id, {}) for h in hits]


async def test_a_dense_search_over_given_ids_scores_each_of_them_by_cosine(
    harness: Harness,
) -> None:
    """How recall reads a candidate's similarity (app/recall/evidence.py): every id asked for
    comes back, the farthest and the archived too, scored as the cosine of its stored vector."""
    index = harness.index
    stored = [vec(1, 0.1), vec(1, 1), vec(0, 1), vec(-1, 0.2)]
    points = [point(v) for v in stored]
    points[3] = point(stored[3], body=payload(archived=True), pid=points[3].id)
    others = [point(vec(1, 0.05)) for _ in range(20)]
    await index.upsert(points + others)

    wanted = [p.id for p in points]
    only = flt(ids=wanted, include_archived=True)
    hits = await index.search_dense(vec(1, 0), only, len(wanted), with_payload=False)

    cosines = {p.id: v[0] / math.hypot(*v[:2]) for p, v in zip(points, stored, strict=True)}
    assert {h.id: h.score for h in hits} == pytest.approx(cosines, abs=1e-3)
    assert len(await index.search_dense(vec(1, 0), flt(ids=wanted), 10)) == 3  # not archived


async def test_sparse_search_finds_only_docs_with_the_word(harness: Harness) -> None:
    index = harness.index
    cat = point(axis(0), "The cat chased a mouse")
    dog = point(axis(1), "A dog barked at the mailman")
    bird = point(axis(2), "Birds sing in the morning")
    await index.upsert([cat, dog, bird])

    assert [h.id for h in await index.search_sparse("cat", flt(), 10)] == [cat.id]
    assert [h.id for h in await index.search_sparse("dogs", flt(), 10)] == [dog.id]
    assert await index.search_sparse("zebra", flt(), 10) == []
    assert await index.search_sparse("the", flt(), 10) == []
    assert await index.search_sparse("   ", flt(), 10) == []


async def test_sparse_ranks_more_occurrences_higher(harness: Harness) -> None:
    index = harness.index
    once = point(None, "quantum computers need cooling")
    twice = point(None, "quantum states and quantum noise")
    await index.upsert([once, twice, point(None, "unrelated text here")])

    hits = await index.search_sparse("quantum", flt(), 10)

    assert [h.id for h in hits] == [twice.id, once.id]


async def test_hybrid_fuses_both_channels(harness: Harness) -> None:
    index = harness.index
    query = vec(1, 0, 0)
    dense_best = point(vec(1, 0, 0), "unrelated words alpha beta")
    # No dense vector, so it can only enter the fusion through the sparse channel.
    sparse_best = point(None, "quantum quantum physics")
    both = point(vec(1, 0.3, 0), "quantum banana split dessert with cream")
    neither = point(vec(0, 1, 0.2), "gardening tips")
    await index.upsert([dense_best, sparse_best, both, neither])

    assert (await index.search_dense(query, flt(), 1))[0].id == dense_best.id
    assert (await index.search_sparse("quantum", flt(), 1))[0].id == sparse_best.id
    hits = await index.search_hybrid(query, "quantum", flt(), 10)

    ids = [h.id for h in hits]
    assert ids[0] == both.id
    assert set(ids[1:3]) == {dense_best.id, sparse_best.id}
    assert ids.index(neither.id) == 3
    # Same RRF scale on both engines: sum over channels of 1 / (RRF_K + 0-based rank).
    assert hits[0].score == pytest.approx(2 / (RRF_K + 1))
    assert hits[1].score == pytest.approx(1 / RRF_K)


async def test_search_channels_finds_what_each_search_finds(harness: Harness) -> None:
    index = harness.index
    await index.upsert(
        [
            point(vec(1, 0, 0), "unrelated words alpha beta"),
            point(None, "quantum quantum physics"),
            point(vec(1, 0.3, 0), "quantum banana split dessert with cream"),
            point(vec(0, 1, 0.2), "gardening tips"),
        ]
    )
    query = vec(1, 0.2, 0)

    both = await index.search_channels(query, "quantum", flt(), 3)

    def pairs(hits: list) -> list[tuple[str, float]]:
        return [(h.id, pytest.approx(h.score)) for h in hits]

    assert pairs(both.dense or []) == pairs(await index.search_dense(query, flt(), 3))
    assert pairs(both.sparse or []) == pairs(await index.search_sparse("quantum", flt(), 3))
    assert len(both.dense or []) == 3 and len(both.sparse or []) == 2
    assert all(h.payload == {} for h in [*(both.dense or []), *(both.sparse or [])])


async def test_search_channels_runs_only_what_it_is_given(harness: Harness) -> None:
    index = harness.index
    p = point(vec(1, 0), "walrus")
    await index.upsert([p])

    dense_only = await index.search_channels(vec(1, 0), None, flt(), 5)
    assert [h.id for h in dense_only.dense or []] == [p.id] and dense_only.sparse is None
    text_only = await index.search_channels(None, "walrus", flt(), 5)
    assert text_only.dense is None and [h.id for h in text_only.sparse or []] == [p.id]
    no_token = await index.search_channels(vec(1, 0), "the of and", flt(), 5)
    assert no_token.sparse == [] and [h.id for h in no_token.dense or []] == [p.id]
    nothing = await index.search_channels(None, None, flt(), 5)
    assert nothing.dense is None and nothing.sparse is None
    with pytest.raises(ValueError):
        await index.search_channels([1.0] * (DIM - 1), "walrus", flt(), 5)


async def test_hybrid_without_keywords_falls_back_to_dense(harness: Harness) -> None:
    index = harness.index
    near, far = point(vec(1, 0.1), "alpha"), point(vec(0, 1), "beta")
    await index.upsert([far, near])

    hits = await index.search_hybrid(vec(1, 0), "the of and", flt(), 10)

    assert [h.id for h in hits] == [near.id, far.id]
    assert len(await index.search_hybrid(vec(1, 0), "alpha", flt(), 1)) == 1


async def test_set_payload_overwrites_and_keeps_vectors(harness: Harness) -> None:
    index = harness.index
    p = point(axis(3), "penguins live in antarctica", payload(tags=("old",)) | {"extra": 1})
    await index.upsert([p])
    new_body = payload(tags=("new",))

    await index.set_payload(p.id, new_body)

    record = (await index.retrieve([p.id]))[p.id]
    assert record.payload == new_body
    assert record.has_dense is True
    assert [h.id for h in await index.search_dense(axis(3), flt(tags_any=["new"]), 5)] == [p.id]
    assert await index.search_dense(axis(3), flt(tags_any=["old"]), 5) == []
    assert [h.id for h in await index.search_sparse("penguins", flt(), 5)] == [p.id]
    with pytest.raises(VectorPointNotFound):
        await index.set_payload(new_id(), new_body)


async def test_set_payload_fields_changes_those_fields_of_the_points_that_exist(
    harness: Harness,
) -> None:
    index = harness.index
    first, second, other = (point(axis(i), f"walrus {i}") for i in range(3))
    await index.upsert([first, second, other])

    await index.set_payload_fields([first.id, second.id, new_id()], {"expires_at": "2027-01-01"})

    found = await index.retrieve([first.id, second.id, other.id])
    for changed in (first, second):
        assert found[changed.id].payload == {**changed.payload, "expires_at": "2027-01-01"}
        assert found[changed.id].has_dense
    assert found[other.id].payload == other.payload
    assert [h.id for h in await index.search_sparse("walrus", flt(), 5)] != []
    await index.set_payload_fields([], {"expires_at": "2028-01-01"})  # nothing to do


async def test_insert_missing_keeps_the_points_that_exist(harness: Harness) -> None:
    index = harness.index
    written = point(axis(0), "written with its own vector")
    await index.upsert([written])
    # A repair's keyword-only point for the same id, and one for an id with no point.
    stale = point(None, "repair copy", pid=written.id.upper())
    absent = point(None, "really missing")

    inserted = await index.insert_missing([stale, absent])

    assert inserted == [absent.id]
    found = await index.retrieve([written.id, absent.id])
    assert found[written.id].has_dense and found[written.id].payload == written.payload
    assert not found[absent.id].has_dense
    assert await index.insert_missing([]) == []


async def test_delete_removes_points_and_ignores_missing(harness: Harness) -> None:
    index = harness.index
    keep, gone = point(axis(0), "keep this memory"), point(axis(0), "delete this memory")
    await index.upsert([keep, gone])

    await index.delete([gone.id, new_id()])
    await index.delete([])

    assert set(await index.retrieve([keep.id, gone.id])) == {keep.id}
    assert {h.id for h in await index.search_dense(axis(0), flt(), 10)} == {keep.id}
    assert {h.id for h in await index.search_sparse("memory", flt(), 10)} == {keep.id}
    assert await index.count() == 1


async def test_point_without_dense_is_sparse_only(harness: Harness) -> None:
    index = harness.index
    pending = point(None, "embedding pending for walrus")
    await index.upsert([pending, point(axis(0), "has a vector")])

    assert pending.id not in {h.id for h in await index.search_dense(axis(0), flt(), 10)}
    assert [h.id for h in await index.search_sparse("walrus", flt(), 10)] == [pending.id]
    hybrid = await index.search_hybrid(axis(0), "walrus", flt(), 10)
    assert pending.id in {h.id for h in hybrid}


async def test_point_with_empty_text_is_dense_only(harness: Harness) -> None:
    index = harness.index
    silent = point(axis(0), "   ")
    await index.upsert([silent])

    assert [h.id for h in await index.search_dense(axis(0), flt(), 10)] == [silent.id]
    assert await index.search_sparse("anything", flt(), 10) == []


async def test_wrong_dimension_raises_value_error(harness: Harness) -> None:
    index = harness.index
    with pytest.raises(ValueError):
        await index.upsert([point(axis(0)), point([1.0] * (DIM + 1))])
    with pytest.raises(ValueError):
        await index.search_dense([1.0] * (DIM - 1), flt(), 5)
    with pytest.raises(ValueError):
        await index.search_hybrid([1.0] * (DIM - 1), "text", flt(), 5)
    assert await index.count() == 0


async def test_iter_ids_yields_every_id_once(harness: Harness) -> None:
    index = harness.index
    points = [point(axis(i % DIM), f"memory number {i}") for i in range(25)]
    await index.upsert(points)

    batches = [batch async for batch in index.iter_ids(batch=7)]

    seen = [i for batch in batches for i in batch]
    assert sorted(seen) == sorted(p.id for p in points)
    assert all(0 < len(batch) <= 7 for batch in batches)


async def test_health_reflects_open_state(harness: Harness) -> None:
    assert await harness.index.health() is True
    await harness.index.close()
    assert await harness.index.health() is False


# ---------------------------------------------------------------------- tenancy


async def test_users_never_see_each_other(harness: Harness) -> None:
    index = harness.index
    mine = [point(axis(i), "shared secret words", payload("alice")) for i in range(3)]
    theirs = [point(axis(i), "shared secret words", payload("bob")) for i in range(2)]
    await index.upsert(mine + theirs)

    for user, expected in (("alice", mine), ("bob", theirs), ("carol", [])):
        channels = await all_channels(index, flt(user), "secret")
        for name, ids in channels.items():
            assert ids == {p.id for p in expected}, (user, name)
        assert await index.count(Scope(user)) == len(expected)
    assert await index.count() == 5


AGENTS: dict[str, str | None] = {
    "shared": None,
    "parent": "a",
    "child": "a:b",
    "sibling": "a:c",
    "grandchild": "a:b:x",
    "other": "z",
}
VISIBLE: list[tuple[str | None, set[str]]] = [
    (None, {"shared"}),
    ("a", {"shared", "parent", "child", "sibling", "grandchild"}),
    ("a:b", {"shared", "child", "grandchild"}),
    ("a:c", {"shared", "sibling"}),
    ("a:b:x", {"shared", "grandchild"}),
    ("z", {"shared", "other"}),
    ("b", {"shared"}),
]


@pytest.mark.parametrize(("agent", "visible"), VISIBLE)
async def test_agent_visibility_rule(
    harness: Harness, agent: str | None, visible: set[str]
) -> None:
    index = harness.index
    points = {n: point(vec(1, 1), "lineage test", payload(agent=a)) for n, a in AGENTS.items()}
    stranger = point(vec(1, 1), "lineage test", payload("mallory", agent=agent))
    await index.upsert([*points.values(), stranger])

    expected = {points[name].id for name in visible}
    for name, ids in (await all_channels(index, flt(agent=agent), "lineage")).items():
        assert ids == expected, name
    assert await index.count(Scope(USER, agent)) == len(expected)


async def test_empty_user_id_is_rejected(harness: Harness) -> None:
    with pytest.raises(ValueError):
        await harness.index.search_dense(axis(0), flt(""), 5)


# ---------------------------------------------------------------------- filters


@pytest.fixture
async def catalogue(harness: Harness) -> dict[str, VectorPoint]:
    """Points with varied payloads, all matching the same query."""
    bodies = {
        "work": payload(tags=("work", "urgent"), prefixes=("proj", "proj/x"), labels=("k=1",)),
        "home": payload(
            tags=("home",),
            prefixes=("home",),
            type_="preference",
            labels=("k=2",),
            timestamp="2023-05-08T13:56:00.000000+00:00",
        ),
        "both_labels": payload(tags=("misc",), layer="episodic", labels=("k=1", "env=prod")),
        "assistant": payload(tags=("work",), role="assistant", prefixes=("proj", "proj/y")),
        "archived": payload(tags=("work",), archived=True),
    }
    points = {name: point(vec(1, 1), "catalogue entry", body) for name, body in bodies.items()}
    await harness.index.upsert(list(points.values()))
    return points


FILTER_CASES: list[tuple[dict, set[str]]] = [
    ({}, {"work", "home", "both_labels", "assistant"}),
    ({"include_archived": True}, {"work", "home", "both_labels", "assistant", "archived"}),
    ({"tags_any": ["work", "home"]}, {"work", "home", "assistant"}),
    ({"tags_any": []}, {"work", "home", "both_labels", "assistant"}),
    ({"tag_prefixes_any": ["proj"]}, {"work", "assistant"}),
    ({"tag_prefixes_any": ["proj/y"]}, {"assistant"}),
    ({"types": ["preference"]}, {"home"}),
    ({"layers": ["episodic"]}, {"both_labels"}),
    ({"roles": ["assistant"]}, {"assistant"}),
    ({"label_pairs_all": ["k=1"]}, {"work", "both_labels"}),
    ({"label_pairs_all": ["k=1", "env=prod"]}, {"both_labels"}),
    ({"exclude_tags": ["urgent", "home"]}, {"both_labels", "assistant"}),
    (
        {"tags_any": ["work"], "include_archived": True, "exclude_tags": ["urgent"]},
        {"assistant", "archived"},
    ),
    ({"tags_all": ["work", "urgent"]}, {"work"}),
    ({"tag_prefixes_all": ["proj", "proj/y"]}, {"assistant"}),
    ({"exclude_tag_prefixes": ["proj"]}, {"home", "both_labels"}),
    ({"time_lte": "2024-01-01T00:00:00+00:00"}, {"home"}),
    ({"time_gte": "2024-01-01T00:00:00+00:00"}, {"work", "both_labels", "assistant"}),
    (
        {"time_gte": "2023-05-08T00:00:00+00:00", "time_lte": "2023-05-09T00:00:00+00:00"},
        {"home"},
    ),
]


@pytest.mark.parametrize(("kwargs", "expected"), FILTER_CASES)
async def test_payload_filters(
    harness: Harness, catalogue: dict[str, VectorPoint], kwargs: dict, expected: set[str]
) -> None:
    channels = await all_channels(harness.index, flt(**kwargs), "catalogue")
    for name, ids in channels.items():
        assert ids == {catalogue[n].id for n in expected}, name


async def test_ids_filter(harness: Harness, catalogue: dict[str, VectorPoint]) -> None:
    wanted = [catalogue["work"].id, catalogue["archived"].id, new_id()]
    channels = await all_channels(harness.index, flt(ids=wanted), "catalogue")
    for name, ids in channels.items():
        assert ids == {catalogue["work"].id}, name
    assert (await all_channels(harness.index, flt(ids=[]), "catalogue"))["hybrid"] == set()


# ---------------------------------------------------------------------- reopen


async def test_dimension_mismatch_on_reopen(harness: Harness) -> None:
    await harness.index.upsert([point(axis(0), "some text")])

    with pytest.raises(VectorDimensionMismatch) as err:
        await harness.reopen(DIM * 2)

    message = str(err.value)
    assert f"{DIM}-d" in message and str(DIM * 2) in message
    assert "POST /admin/reembed" in message and "delete" in message
    assert (err.value.stored, err.value.configured) == (DIM, DIM * 2)


async def test_data_survives_close_and_reopen(harness: Harness) -> None:
    p = point(axis(2), "persistent narwhal", payload(tags=("keep",)))
    await harness.index.upsert([p])
    await harness.index.set_payload(p.id, payload(tags=("kept",)))

    index = await harness.reopen(DIM)

    assert (await index.retrieve([p.id]))[p.id].payload["tags"] == ["kept"]
    assert [h.id for h in await index.search_dense(axis(2), flt(), 5)] == [p.id]
    assert [h.id for h in await index.search_sparse("narwhal", flt(), 5)] == [p.id]


async def test_embedding_model_is_recorded_and_survives_reopen(harness: Harness) -> None:
    assert await harness.index.embedding_model() is None

    await harness.index.set_embedding_model("model-a")
    await harness.index.set_embedding_model("model-b")
    index = await harness.reopen(DIM)

    assert await index.embedding_model() == "model-b"


async def test_drop_dense_keeps_payloads_and_keywords(harness: Harness) -> None:
    index = harness.index
    kept = point(axis(1), "an okapi grazing", payload(tags=("zoo",)))
    await index.upsert([kept, point(axis(2), "a quokka smiling")])

    await index.drop_dense()

    assert await index.search_dense(axis(1), flt(), 10) == []
    assert [h.id for h in await index.search_sparse("okapi", flt(), 10)] == [kept.id]
    record = (await index.retrieve([kept.id]))[kept.id]
    assert (record.has_dense, record.payload["tags"]) == (False, ["zoo"])
    await index.upsert([kept])  # re-embedded
    assert [h.id for h in await index.search_dense(axis(1), flt(), 10)][0] == kept.id


def stored_datatype(shard: Path) -> str | None:
    return json.loads((shard / "edge_config.json").read_text())["vectors"]["dense"].get("datatype")


async def test_edge_shard_made_with_float32_opens_and_turns_float16_on_a_model_change(
    tmp_path: Path,
) -> None:
    shard_dir = tmp_path / "old"
    dense = qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)  # before float16
    sparse = qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)
    old = qe.EdgeShard.create(str(shard_dir), qe.EdgeConfig({"dense": dense}, {"bm25": sparse}))
    old.close()
    index = EdgeVectorIndex(shard_dir, DIM)
    await index.open()
    try:
        kept = point(axis(3), "an old gecko")
        await index.upsert([kept])
        assert [h.id for h in await index.search_dense(axis(3), flt(), 5)] == [kept.id]

        await index.drop_dense()
        await index.upsert([kept])
    finally:
        await index.close()

    assert stored_datatype(shard_dir) == "float16"
    reopened = EdgeVectorIndex(shard_dir, DIM)
    await reopened.open()
    try:
        assert [h.id for h in await reopened.search_dense(axis(3), flt(), 5)] == [kept.id]
    finally:
        await reopened.close()


async def test_edge_shards_search_with_one_pool_thread_old_ones_too(tmp_path: Path) -> None:
    dense = qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)
    sparse = qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)
    old = qe.EdgeShard.create(
        str(tmp_path / "old"), qe.EdgeConfig({"dense": dense}, {"bm25": sparse})
    )
    old.close()  # made with the engine's default pool: four threads per core

    for shard_dir in (tmp_path / "old", tmp_path / "new"):
        index = EdgeVectorIndex(shard_dir, DIM)
        await index.open()
        await index.close()
        config = json.loads((shard_dir / "edge_config.json").read_text())
        assert config["max_search_threads"] == 1


async def test_edge_shard_left_without_its_dense_vector_by_a_crash_opens(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "half", DIM)
    await index.open()
    kept = point(axis(4), "a crashed capybara")
    await index.upsert([kept])
    await index._call(lambda s: s.update(qe.UpdateOperation.delete_vector_name("dense")))
    await index.close()  # as if killed between drop_dense's two steps

    reopened = EdgeVectorIndex(tmp_path / "half", DIM)
    await reopened.open()
    try:
        assert [h.id for h in await reopened.search_sparse("capybara", flt(), 5)] == [kept.id]
        await reopened.upsert([kept])
        assert [h.id for h in await reopened.search_dense(axis(4), flt(), 5)] == [kept.id]
    finally:
        await reopened.close()
    assert stored_datatype(tmp_path / "half") == "float16"


async def test_new_edge_shards_store_float16(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "new", DIM)
    await index.open()
    await index.close()

    assert stored_datatype(tmp_path / "new") == "float16"


async def test_edge_shard_has_a_single_owner(tmp_path: Path) -> None:
    first = EdgeVectorIndex(tmp_path / "shard", DIM)
    await first.open()
    try:
        with pytest.raises(VectorIndexError, match="already open"):
            await EdgeVectorIndex(tmp_path / "shard", DIM).open()
    finally:
        await first.close()


async def test_factory_picks_the_adapter(tmp_path: Path) -> None:
    edge = create_vector_index(url=None, path=tmp_path / "v", collection="m", dimension=DIM)
    remote = await open_vector_index(url=":memory:", path=tmp_path, collection="m", dimension=DIM)
    try:
        assert isinstance(edge, EdgeVectorIndex) and edge.kind == "edge"
        assert isinstance(edge, VectorIndex) and isinstance(remote, VectorIndex)
        assert isinstance(remote, RemoteVectorIndex) and remote.kind == "qdrant"
        assert await remote.health() is True
    finally:
        await remote.close()
    with pytest.raises(ValueError):
        create_vector_index(url="ftp://x", path=tmp_path, collection="m", dimension=DIM)
