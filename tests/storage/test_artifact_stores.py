"""The artifact stores' contract, on both backends (the filesystem and an S3-compatible server):
bytes whole or not at all, the size limit, the search index beside a file (written only for a
file that exists, removed with it, invisible to sweeps while its file lives, an orphan after),
removal by memory and by user, and the URL key made once."""

import uuid
from collections.abc import Iterator

import pytest

from app.storage.artifacts.files import INDEX_SUFFIX, ArtifactStore, FileArtifacts, TooLarge
from app.storage.artifacts.s3 import S3Artifacts
from tests.s3_server import REGION, S3Server, s3_server

USER = "alice"


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture(params=["filesystem", "s3"])
def files(request, tmp_path) -> ArtifactStore:
    if request.param == "filesystem":
        return FileArtifacts(tmp_path)
    server: S3Server = request.getfixturevalue("s3")
    settings = server.settings(server.new_bucket())
    return S3Artifacts(
        str(settings["artifact_s3_bucket"]),
        "engram/",
        endpoint_url=server.endpoint,
        region_name=REGION,
        aws_access_key_id=settings["artifact_s3_access_key_id"],
        aws_secret_access_key=settings["artifact_s3_secret_access_key"],
    )


def new_ids() -> tuple[str, str]:
    return str(uuid.uuid4()), str(uuid.uuid4())


def test_bytes_are_kept_whole_and_the_limit_holds(files: ArtifactStore):
    memory_id, artifact_id = new_ids()
    written = files.write(USER, memory_id, artifact_id, [b"some ", b"text"], 100)
    assert written.size == 9 and files.read(USER, memory_id, artifact_id) == b"some text"
    assert files.exists(USER, memory_id, artifact_id)
    assert files.digest(USER, memory_id, artifact_id) == written.sha256

    other = str(uuid.uuid4())
    with pytest.raises(TooLarge):
        files.write(USER, memory_id, other, [b"x" * 60, b"y" * 60], 100)
    assert not files.exists(USER, memory_id, other)
    with pytest.raises(FileNotFoundError):
        files.read(USER, memory_id, other)
    assert files.digest(USER, memory_id, other) is None


def test_an_index_lives_and_goes_with_its_file(files: ArtifactStore):
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"some text"], 100)
    files.write_index(USER, memory_id, artifact_id, b"index bytes")
    assert files.read_index(USER, memory_id, artifact_id) == b"index bytes"
    assert [f.name for f in files.files()] == [artifact_id]  # the sweep sees the file alone

    files.remove(USER, memory_id, artifact_id)
    assert files.read_index(USER, memory_id, artifact_id) is None
    assert list(files.files()) == []


def test_no_index_is_written_for_a_missing_file(files: ArtifactStore):
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, str(uuid.uuid4()), [b"another file"], 100)
    with pytest.raises(FileNotFoundError):
        files.write_index(USER, memory_id, artifact_id, b"index bytes")
    assert files.read_index(USER, memory_id, artifact_id) is None
    assert not [f for f in files.files() if f.partial]


def test_an_index_whose_file_is_gone_is_an_orphan_for_the_sweep(files: ArtifactStore, tmp_path):
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"some text"], 100)
    files.write_index(USER, memory_id, artifact_id, b"index bytes")
    _lose_the_file(files, memory_id, artifact_id)
    assert [f.name for f in files.files()] == [artifact_id + INDEX_SUFFIX]


def _lose_the_file(files: ArtifactStore, memory_id: str, artifact_id: str) -> None:
    """The bytes vanish outside Engram (a disk error, someone's rm), the index stays."""
    if isinstance(files, FileArtifacts):
        files.path(USER, memory_id, artifact_id).unlink()
    else:
        assert isinstance(files, S3Artifacts)
        key = files.key(USER, memory_id, artifact_id)
        files._s3.delete_object(Bucket=files.bucket, Key=key)  # noqa: SLF001


def test_removing_memories_and_users_takes_their_files_and_indexes(files: ArtifactStore):
    kept_memory, kept = new_ids()
    memory_id, artifact_id = new_ids()
    for mem, aid in ((kept_memory, kept), (memory_id, artifact_id)):
        files.write(USER, mem, aid, [b"text"], 100)
        files.write_index(USER, mem, aid, b"index")
    files.write("bob", memory_id, artifact_id, [b"bob's"], 100)

    assert files.remove_memories(USER, [memory_id]) == 1
    assert not files.exists(USER, memory_id, artifact_id)
    assert files.read_index(USER, memory_id, artifact_id) is None
    assert files.exists(USER, kept_memory, kept) and files.exists("bob", memory_id, artifact_id)

    files.remove_user(USER)
    assert not files.exists(USER, kept_memory, kept)
    assert [f.memory_id for f in files.files()] == [memory_id]  # bob's alone

    secret = files.url_secret()
    files.remove_everything()
    assert list(files.files()) == [] and files.url_secret() == secret


def test_discard_removes_one_listed_file(files: ArtifactStore):
    memory_id, artifact_id = new_ids()
    files.write(USER, memory_id, artifact_id, [b"text"], 100)
    (found,) = files.files()
    assert found.age_s() < 600
    files.discard(found.owner, found.memory_id, found.name, memory_gone=True)
    assert list(files.files()) == []
    with pytest.raises(ValueError):
        files.discard(found.owner, found.memory_id, "../x", memory_gone=True)
