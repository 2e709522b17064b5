"""SHARED_LIVE: the one-field rule for an agent-less caller's current memories on Edge, and its
filling-in on a shard written before it existed."""

from pathlib import Path

import pytest

from app.models import Memory
from app.storage.mirror import vector_payload
from app.storage.vectors import EdgeVectorIndex, VectorPoint
from app.storage.vectors.base import SHARED_LIVE
from tests.storage.test_vectors_contract import DIM, axis, flt, payload, point

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")


def as_before_the_field(p: VectorPoint) -> VectorPoint:
    """The point as an earlier release wrote it."""
    body = {key: value for key, value in p.payload.items() if key != SHARED_LIVE}
    return VectorPoint(p.id, p.dense, p.text, body)


def memory(**fields: object) -> Memory:
    stamp = "2026-12-01T10:00:00+00:00"
    return Memory.model_validate(
        {
            "id": "m1",
            "user_id": "alice",
            "content": "x",
            "content_hash": "h",
            "timestamp": stamp,
            "created_at": stamp,
            "updated_at": stamp,
            **fields,
        }
    )


def test_the_mirror_names_the_user_only_on_shared_current_memories():
    assert vector_payload(memory())[SHARED_LIVE] == "alice"
    assert SHARED_LIVE not in vector_payload(memory(agent_id="bot", agent_lineage=["bot"]))
    assert SHARED_LIVE not in vector_payload(memory(archived=True))


async def test_a_shard_from_before_the_field_gets_it_at_open_and_searches_the_same(
    tmp_path: Path,
):
    path = tmp_path / "shard"
    index = EdgeVectorIndex(path, DIM)
    await index.open()
    shared = point(axis(0), "shared note")
    archived = point(axis(0), "archived note", payload(archived=True))
    by_agent = point(axis(0), "agent note", payload(agent="bot"))
    of_bob = point(axis(0), "bob note", payload("bob"))
    old = [as_before_the_field(p) for p in (shared, archived, by_agent, of_bob)]
    await index.upsert(old)  # as an earlier release wrote them
    await index.close()

    reopened = EdgeVectorIndex(path, DIM)
    await reopened.open()
    try:
        stored = await reopened.retrieve([p.id for p in old])
        dense = {
            name: {h.id for h in await reopened.search_dense(axis(0), f, 10)}
            for name, f in {
                "alice": flt(),
                "alice/bot": flt(agent="bot"),
                "alice, archived too": flt(include_archived=True),
                "bob": flt("bob"),
            }.items()
        }
        keywords = {h.id for h in await reopened.search_sparse("note", flt(), 10)}
    finally:
        await reopened.close()

    # As vector_payload writes them, so the sync job finds no stale payload.
    assert stored[shared.id].payload == shared.payload
    assert stored[of_bob.id].payload == of_bob.payload
    assert stored[archived.id].payload == archived.payload
    assert stored[by_agent.id].payload == by_agent.payload
    assert dense == {
        "alice": {shared.id},
        "alice/bot": {shared.id, by_agent.id},
        "alice, archived too": {shared.id, archived.id},
        "bob": {of_bob.id},
    }
    assert keywords == {shared.id}


async def test_points_an_earlier_release_wrote_later_are_filled_in_at_the_next_open(
    tmp_path: Path,
):
    """Every open checks: a shard this release filled in, then written to by an earlier one
    (a downgrade and back), does not hide the earlier release's points."""
    path = tmp_path / "shard"
    first = EdgeVectorIndex(path, DIM)
    await first.open()
    current = point(axis(1), "a note")
    await first.upsert([current])
    await first.close()
    earlier = EdgeVectorIndex(path, DIM)
    await earlier.open()
    written_by_earlier = point(axis(1), "another note")
    await earlier.upsert([as_before_the_field(written_by_earlier)])
    await earlier.close()

    again = EdgeVectorIndex(path, DIM)
    await again.open()
    try:
        found = {h.id for h in await again.search_dense(axis(1), flt(), 10)}
    finally:
        await again.close()

    assert found == {current.id, written_by_earlier.id}
