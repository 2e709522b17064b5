"""SHARED_LIVE: the one-field rule for an agent-less caller's current memories on Edge, and its
filling-in on a shard written before it existed."""

from pathlib import Path

import pytest

from app.memories.mirror import vector_payload
from app.models import Memory
from app.storage.vectors import EdgeVectorIndex, VectorPoint
from app.storage.vectors.base import SHARED_LIVE
from app.storage.vectors.edge import SHARED_LIVE_FILE
from tests.storage.test_vectors_contract import DIM, axis, flt, payload, point

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")


def as_before_the_field(p: VectorPoint) -> VectorPoint:
    """The point as an earlier release wrote it."""
    body = {key: value for key, value in p.payload.items() if key != SHARED_LIVE}
    return VectorPoint(p.id, p.dense, p.text, body)


def memory(**fields: object) -> Memory:
    stamp = "2026-12-01T10:00:00+00:00"
    return Memory.model_validate(
        {"id": "m1", "user_id": "alice", "content": "x", "content_hash": "h", "timestamp": stamp,
         "created_at": stamp, "updated_at": stamp, **fields}
    )  # fmt: skip


def test_the_mirror_names_the_user_only_on_shared_current_memories():
    assert vector_payload(memory())[SHARED_LIVE] == "alice"
    assert vector_payload(memory(agent_id="bot", agent_lineage=["bot"]))[SHARED_LIVE] is None
    assert vector_payload(memory(archived=True))[SHARED_LIVE] is None


async def test_a_shard_from_before_the_field_gets_it_at_open_and_searches_the_same(
    tmp_path: Path,
):
    path = tmp_path / "shard"
    index = EdgeVectorIndex(path, DIM)
    await index.open()
    assert (path / SHARED_LIVE_FILE).exists()  # a new shard has it from the start
    shared = point(axis(0), "shared note")
    archived = point(axis(0), "archived note", payload(archived=True))
    by_agent = point(axis(0), "agent note", payload(agent="bot"))
    of_bob = point(axis(0), "bob note", payload("bob"))
    old = [as_before_the_field(p) for p in (shared, archived, by_agent, of_bob)]
    await index.upsert(old)
    await index.close()
    (path / SHARED_LIVE_FILE).unlink()  # as a shard of an earlier release

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

    assert (path / SHARED_LIVE_FILE).exists()
    assert stored[shared.id].payload[SHARED_LIVE] == "alice"
    assert stored[of_bob.id].payload[SHARED_LIVE] == "bob"
    assert SHARED_LIVE not in stored[archived.id].payload
    assert SHARED_LIVE not in stored[by_agent.id].payload
    assert dense == {
        "alice": {shared.id},
        "alice/bot": {shared.id, by_agent.id},
        "alice, archived too": {shared.id, archived.id},
        "bob": {of_bob.id},
    }
    assert keywords == {shared.id}


async def test_without_the_record_a_shard_is_filled_in_again(tmp_path: Path):
    """A crash after filling in, before the record was written: the next open does it again."""
    path = tmp_path / "shard"
    index = EdgeVectorIndex(path, DIM)
    await index.open()
    note = point(axis(1), "a note")
    await index.upsert([as_before_the_field(note)])
    await index.close()
    (path / SHARED_LIVE_FILE).unlink()

    for _ in range(2):
        again = EdgeVectorIndex(path, DIM)
        await again.open()
        found = [h.id for h in await again.search_dense(axis(1), flt(), 10)]
        await again.close()
        assert found == [note.id]
        (path / SHARED_LIVE_FILE).unlink()
