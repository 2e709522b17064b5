"""The search index beside an artifact's file (app/storage/artifacts.py): written only for a
file that exists, removed with it, invisible to sweeps while its file lives, an orphan after."""

import uuid

from app.storage.artifacts import INDEX_SUFFIX, FileArtifacts

USER = "alice"


def new_ids() -> tuple[str, str]:
    return str(uuid.uuid4()), str(uuid.uuid4())


def test_an_index_lives_and_goes_with_its_file(tmp_path):
    files = FileArtifacts(tmp_path)
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"some text"], 100)
    files.write_index(USER, memory_id, artifact_id, b"index bytes")
    assert files.read_index(USER, memory_id, artifact_id) == b"index bytes"
    assert [f.name for f in files.files()] == [artifact_id]  # the sweep sees the file alone

    files.remove(USER, memory_id, artifact_id)
    assert files.read_index(USER, memory_id, artifact_id) is None
    assert list(files.files()) == []


def test_no_index_is_written_for_a_missing_file(tmp_path):
    files = FileArtifacts(tmp_path)
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, str(uuid.uuid4()), [b"another file"], 100)
    try:
        files.write_index(USER, memory_id, artifact_id, b"index bytes")
    except FileNotFoundError:
        pass
    else:
        raise AssertionError("an index was written for a file that does not exist")
    assert files.read_index(USER, memory_id, artifact_id) is None
    assert not [f for f in files.files() if f.partial]


def test_an_index_whose_file_is_gone_is_an_orphan_for_the_sweep(tmp_path):
    files = FileArtifacts(tmp_path)
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"some text"], 100)
    files.write_index(USER, memory_id, artifact_id, b"index bytes")
    files.path(USER, memory_id, artifact_id).unlink()  # lost outside Engram
    assert [f.name for f in files.files()] == [artifact_id + INDEX_SUFFIX]


def test_erasing_the_memory_removes_its_indexes(tmp_path):
    files = FileArtifacts(tmp_path)
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"some text"], 100)
    files.write_index(USER, memory_id, artifact_id, b"index bytes")
    files.remove_memories(USER, [memory_id])
    assert not any(tmp_path.rglob("*" + INDEX_SUFFIX))
