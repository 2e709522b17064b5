"""engram_client.Engram against a real Engram: every endpoint it covers, typed answers, and
the error envelope as exceptions."""

import uuid
from pathlib import Path

import pytest
from engram_client import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    Engram,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
)
from engram_client.models import ArtifactFile, ArtifactText

from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY


@pytest.fixture
def alice(engram_url: str):
    with Engram(engram_url, api_key=ALICE_KEY) as client:
        yield client


def test_store_get_update_delete(alice: Engram):
    stored = alice.store("Alice keeps her bike in the shed", tags=["home"], importance="high")
    assert stored.version == 1
    memory = alice.get(stored.memory_id)
    assert (memory.content, memory.tags) == ("Alice keeps her bike in the shed", ["home"])
    assert memory.importance > 0.5  # "high"
    changed = alice.update(stored.memory_id, tags=["home", "bike"], expected_version=1)
    assert (changed.version, changed.memory.tags) == (2, ["home", "bike"])
    with pytest.raises(ConflictError) as stale:
        alice.update(stored.memory_id, content="Alice sold her bike", expected_version=1)
    assert (stale.value.code, stale.value.error) == (409, "conflict")
    assert alice.delete(stored.memory_id).memory_id == stored.memory_id
    with pytest.raises(NotFoundError) as gone:
        alice.get(stored.memory_id)
    assert (gone.value.code, gone.value.error) == (404, "not_found")
    assert stored.memory_id in gone.value.message


def test_errors_carry_the_envelope(engram_url: str, alice: Engram):
    with pytest.raises(BadRequestError) as bad:
        alice.store("x" * 2001)
    assert bad.value.code == 400 and "content" in bad.value.message.lower()
    assert bad.value.request_id
    with pytest.raises(AuthenticationError), Engram(engram_url, api_key="wrong-key") as nobody:
        nobody.profile()
    stored = alice.store("Only Alice may read this")
    with Engram(engram_url, api_key=BOB_KEY) as bob, pytest.raises(NotFoundError):
        bob.get(stored.memory_id)
    with Engram(engram_url, api_key=AGENT_KEY) as agent_key, pytest.raises(PermissionDeniedError):
        list(agent_key.export())


def test_erasing_over_the_rate_is_a_rate_limit_error(engram_url: str):
    """One erasure a minute (the fixture's setting): of three in a row, two share a window
    even if one crosses a minute's boundary, so one is refused."""
    with Engram(engram_url, api_key=ALICE_KEY, max_retries=0) as alice:
        ids = [alice.store(f"to erase {n}").memory_id for n in range(3)]
        with pytest.raises(RateLimitError) as limited:
            for memory_id in ids:
                alice.delete(memory_id, erase=True)
    assert (limited.value.code, limited.value.error) == (429, "rate_limited")
    assert limited.value.retry_after and limited.value.retry_after > 0


def test_batch_and_listing_with_the_cursor(alice: Engram):
    tag = f"batch-{uuid.uuid4().hex[:8]}"
    batch = alice.store_batch([{"content": f"Batch fact {i}", "tags": [tag]} for i in range(5)])
    assert batch.stored == 5
    first = alice.list_memories(limit=2, tags=[tag], order="asc")
    assert [m.content for m in first.memories] == ["Batch fact 0", "Batch fact 1"]
    assert first.next_cursor is not None
    second = alice.list_memories(cursor=first.next_cursor, limit=2, tags=[tag], order="asc")
    assert [m.content for m in second.memories] == ["Batch fact 2", "Batch fact 3"]
    every = [m.id for m in alice.iter_memories(page_size=2, tags=[tag], order="asc")]
    assert every == batch.memory_ids


def test_recall_with_filters(alice: Engram):
    garage = alice.store(
        "The garage door code is 7781", tags=["house"], labels={"room": "garage"}, type="Fact"
    )
    alice.store("The office door code is 4410", tags=["office"])
    found = alice.recall("garage door code", tags=["house"], limit=3, expand_relations=False)
    assert found.results[0].id == garage.memory_id
    assert found.results[0].memory.content == "The garage door code is 7781"
    assert found.results[0].score_components
    by_label = alice.recall("door code", labels={"room": "garage"}, type=["Fact"])
    assert [hit.id for hit in by_label.results] == [garage.memory_id]
    elsewhere = alice.recall("door code", tags=["office"], exclude_tags=["house"])
    assert garage.memory_id not in [hit.id for hit in elsewhere.results]
    timed = alice.recall(sort="time_desc", limit=1, channels=["bm25"], state_mode="current")
    assert timed.sort == "time_desc"


def test_a_long_result_gives_the_passage_that_matched(alice: Engram):
    chatter = "We went over shelf brackets, wall plugs and which drill bit suits brick. " * 12
    fact = "The spare key to the allotment shed hangs behind the water butt."
    stored = alice.store(chatter + "\n\n" + fact)
    found = alice.recall("allotment shed spare key", channels=["bm25"], limit=1)
    (hit,) = found.results
    assert hit.id == stored.memory_id and hit.state == "current"
    assert hit.passage is not None and hit.excerpt == fact


def test_context_startup_and_profile(alice: Engram):
    alice.store("Alice's favourite colour is teal", pinned=True)
    block = alice.context("favourite colour", max_tokens=500)
    assert "<memories>" in block.context and "teal" in block.context
    assert block.memory_ids
    assert alice.startup_recall().summary is not None
    assert alice.startup_recall(memoryless=True).memoryless is True
    assert alice.profile().count >= 0


def test_remember_waits_for_its_job(alice: Engram):
    accepted = alice.remember(
        [{"role": "user", "content": "I moved to Lisbon last month."}],
        session_id=f"s-{uuid.uuid4().hex[:8]}",
        wait=True,
        timeout_s=60,
    )
    assert accepted.job is not None and accepted.job.state == "done"
    assert accepted.job.result is not None
    assert alice.remember_job(accepted.job_id or "").state == "done"
    nothing = alice.remember(
        [{"role": "user", "content": "Forget this"}], session_id="s-quiet", memoryless=True
    )
    assert (nothing.status, nothing.job_id) == ("memoryless", None)


def test_artifacts(alice: Engram, tmp_path: Path):
    memory = alice.store("Meeting notes of the 3rd are attached")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\nWe chose Lisbon for the offsite.")
    text = alice.upload_artifact(memory.memory_id, notes)
    assert text.artifact.filename == "notes.md"
    image = alice.upload_artifact(
        memory.memory_id, b"\x89PNG\r\n\x1a\nrest", filename="dot.png", content_type="image/png"
    )
    listed = alice.list_artifacts(memory.memory_id)
    assert [a.id for a in listed.artifacts] == [text.artifact.id, image.artifact.id]
    page = alice.get_artifact(memory.memory_id, text.artifact.id, offset=2, limit=5)
    assert isinstance(page, ArtifactText) and page.content == "Notes"
    assert page.next_offset == 7
    raw = alice.get_artifact(memory.memory_id, image.artifact.id)
    assert isinstance(raw, ArtifactFile) and raw.content == b"\x89PNG\r\n\x1a\nrest"
    assert alice.artifact_url(memory.memory_id, image.artifact.id, expires_in=60).url
    alice.delete_artifact(memory.memory_id, image.artifact.id)
    assert alice.list_artifacts(memory.memory_id).count == 1


def test_export_streams_every_memory_of_the_user(engram_url: str, alice: Engram):
    mine = alice.store("Exported fact about the sea")
    with Engram(engram_url, api_key=ALICE_KEY, agent_id="exporter") as agent:
        theirs = agent.store("An agent's own fact")
    lines = list(alice.export())
    ids = {line["memory"]["id"] for line in lines if "memory" in line}
    assert {mine.memory_id, theirs.memory_id} <= ids


def test_agent_scope(engram_url: str, alice: Engram):
    planner = alice.for_agent("planner")
    own = planner.store("The planner's scratch note")
    assert planner.agent_id == "planner" and alice.agent_id is None
    assert planner.get(own.memory_id).agent_id == "planner"
    with pytest.raises(NotFoundError):
        alice.get(own.memory_id)  # an agent's memory is not shared
