"""Artifact bytes on the local filesystem, and what every artifact backend shares: the
`ArtifactStore` protocol, the results of a write and a sweep, the layout. The files are the ones
attached to memories, kept beside the graph (which holds their metadata, see
app/storage/graph/artifact_records.py).

Two backends fill `ArtifactStore`: the local filesystem (`FileArtifacts`, the embedded default)
and any S3-compatible object store (`S3Artifacts`, s3.py beside this module, when
ARTIFACT_S3_BUCKET is set), with the same layout under a key prefix. Layout:
ENGRAM_DATA_DIR/artifacts/<owner>/<memory id>/<artifact id>, where <owner> is the first 32 hex
digits of sha256(user_id): a user id may hold any character, its hash is always a safe directory
name, and the tree does not show who owns what. One directory per memory lets a deleted or erased
memory's files go in one step.

A file is written once and never changed: to a temporary name in its directory, flushed and
fsynced, then renamed into place, and the directories are fsynced; so a file either exists whole
or not at all, and its metadata is written to the graph only after it does.
"""

import hashlib
import os
import secrets
import shutil
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

PARTIAL = ".partial-"
SECRET_FILE = ".url-secret"
# A text artifact's search index (its chunks' vectors, app/artifacts/search.py) sits
# beside it as `<artifact id>.chunks`: derived data, rebuilt when missing, gone with its file.
INDEX_SUFFIX = ".chunks"
CHUNK = 1 << 20


class TooLarge(Exception):
    """The bytes ran over the limit they were written with."""


@dataclass(frozen=True)
class Written:
    size: int
    sha256: str


@dataclass(frozen=True)
class StoredFile:
    """One file on disk, as a sweep finds it."""

    owner: str  # the directory name: hashed user id
    memory_id: str
    name: str  # the artifact id, or a PARTIAL name
    modified: float  # Unix seconds

    @property
    def partial(self) -> bool:
        return self.name.startswith(PARTIAL)

    def age_s(self) -> float:
        return time.time() - self.modified


class ArtifactStore(Protocol):
    """Where artifact bytes live. Every method blocks: call them in a thread."""

    def write(
        self, user_id: str, memory_id: str, artifact_id: str, blocks: Iterable[bytes], limit: int
    ) -> Written: ...

    def local_path(self, user_id: str, memory_id: str, artifact_id: str) -> Path | None:
        """The file on this machine's disk (None where the bytes live elsewhere)."""
        ...

    def exists(self, user_id: str, memory_id: str, artifact_id: str) -> bool: ...

    def read(self, user_id: str, memory_id: str, artifact_id: str) -> bytes: ...

    def digest(self, user_id: str, memory_id: str, artifact_id: str) -> str | None: ...

    def remove(self, user_id: str, memory_id: str, artifact_id: str) -> None: ...

    def read_index(self, user_id: str, memory_id: str, artifact_id: str) -> bytes | None: ...

    def write_index(self, user_id: str, memory_id: str, artifact_id: str, data: bytes) -> None: ...

    def remove_memories(self, user_id: str, memory_ids: Iterable[str]) -> int: ...

    def remove_user(self, user_id: str) -> None: ...

    def remove_everything(self) -> None: ...

    def files(self) -> Iterator[StoredFile]: ...

    def discard(self, owner: str, memory_id: str, name: str, *, memory_gone: bool) -> None: ...

    def url_secret(self) -> bytes: ...


def owner_dir(user_id: str) -> str:
    return hashlib.sha256(user_id.encode()).hexdigest()[:32]


class FileArtifacts:
    """Artifacts on the local filesystem, under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _memory_dir(self, user_id: str, memory_id: str) -> Path:
        return self.root / owner_dir(user_id) / str(uuid.UUID(memory_id))

    def path(self, user_id: str, memory_id: str, artifact_id: str) -> Path:
        return self._memory_dir(user_id, memory_id) / str(uuid.UUID(artifact_id))

    def local_path(self, user_id: str, memory_id: str, artifact_id: str) -> Path | None:
        return self.path(user_id, memory_id, artifact_id)

    def exists(self, user_id: str, memory_id: str, artifact_id: str) -> bool:
        return self.path(user_id, memory_id, artifact_id).is_file()

    def write(
        self, user_id: str, memory_id: str, artifact_id: str, blocks: Iterable[bytes], limit: int
    ) -> Written:
        """Writes the bytes whole or not at all; TooLarge (nothing kept) past `limit`. Any error
        the blocks raise (a failed content check) also leaves nothing behind."""
        target = self.path(user_id, memory_id, artifact_id)
        made = _make_dirs(target.parent)
        temporary = target.parent / f"{PARTIAL}{uuid.uuid4().hex}"
        digest, size = hashlib.sha256(), 0
        try:
            with temporary.open("xb") as handle:
                for block in blocks:
                    size += len(block)
                    if size > limit:
                        raise TooLarge(f"more than {limit} bytes")
                    digest.update(block)
                    handle.write(block)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        for directory in (target.parent, *made):
            _fsync_dir(directory)
        return Written(size, digest.hexdigest())

    def read(self, user_id: str, memory_id: str, artifact_id: str) -> bytes:
        return self.path(user_id, memory_id, artifact_id).read_bytes()

    def digest(self, user_id: str, memory_id: str, artifact_id: str) -> str | None:
        """The file's sha256, or None if it is missing."""
        try:
            with self.path(user_id, memory_id, artifact_id).open("rb") as handle:
                digest = hashlib.sha256()
                while block := handle.read(CHUNK):
                    digest.update(block)
        except FileNotFoundError:
            return None
        return digest.hexdigest()

    def remove(self, user_id: str, memory_id: str, artifact_id: str) -> None:
        # The memory's directory stays (an upload may be writing into it); it goes with the memory.
        path = self.path(user_id, memory_id, artifact_id)
        path.unlink(missing_ok=True)
        _index_of(path).unlink(missing_ok=True)

    def read_index(self, user_id: str, memory_id: str, artifact_id: str) -> bytes | None:
        """The artifact's search index as written, or None if it has none."""
        try:
            return _index_of(self.path(user_id, memory_id, artifact_id)).read_bytes()
        except FileNotFoundError:
            return None

    def write_index(self, user_id: str, memory_id: str, artifact_id: str, data: bytes) -> None:
        """Writes the search index of an artifact whose file exists (none for a deleted one)."""
        path = self.path(user_id, memory_id, artifact_id)
        temporary = path.parent / f"{PARTIAL}{uuid.uuid4().hex}"
        try:
            temporary.write_bytes(data)
            if not path.is_file():  # deleted meanwhile: no index of it stays behind
                raise FileNotFoundError(path)
            os.replace(temporary, _index_of(path))
        finally:
            temporary.unlink(missing_ok=True)
        if not path.is_file():  # deleted between the check and the rename
            _index_of(path).unlink(missing_ok=True)

    def remove_memories(self, user_id: str, memory_ids: Iterable[str]) -> int:
        """Removes every file of these memories; returns how many memories had any."""
        removed = 0
        for memory_id in memory_ids:
            directory = self._memory_dir(user_id, memory_id)
            if directory.exists():
                shutil.rmtree(directory, ignore_errors=True)
                removed += 1
        return removed

    def remove_user(self, user_id: str) -> None:
        shutil.rmtree(self.root / owner_dir(user_id), ignore_errors=True)

    def remove_everything(self) -> None:
        """Every artifact (a forced restore replaces the store); the URL key stays."""
        if self.root.exists():
            for child in self.root.iterdir():
                if child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)

    def files(self) -> Iterator[StoredFile]:
        """Every file under the root, partial ones included (for sweeps and fsck); a search
        index only when its artifact's file is gone (then it is an orphan)."""
        if not self.root.exists():
            return
        for owner in sorted(p for p in self.root.iterdir() if p.is_dir()):
            for memory in sorted(p for p in owner.iterdir() if p.is_dir()):
                for path in sorted(memory.iterdir()):
                    if _is_live_index(path):
                        continue
                    try:
                        modified = path.stat().st_mtime
                    except FileNotFoundError:  # removed while listed
                        continue
                    yield StoredFile(owner.name, memory.name, path.name, modified)

    def discard(self, owner: str, memory_id: str, name: str, *, memory_gone: bool) -> None:
        """Removes one file a sweep found (by its names as listed); with `memory_gone`, its
        directories too once empty (a live memory's stays: an upload may be writing into it)."""
        directory = self.root / owner / memory_id
        if directory.parent.parent != self.root or "/" in name or name in ("", ".", ".."):
            raise ValueError(f"not a file of this store: {owner}/{memory_id}/{name}")
        (directory / name).unlink(missing_ok=True)
        if memory_gone:
            for empty in (directory, directory.parent):
                try:
                    empty.rmdir()
                except OSError:  # not empty: other files or memories remain
                    break

    def url_secret(self) -> bytes:
        """The key that signs download URLs: made at random on first use, kept in the root."""
        path = self.root / SECRET_FILE
        if not path.exists():
            _make_dirs(self.root)
            temporary = self.root / f"{SECRET_FILE}.{uuid.uuid4().hex}"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(temporary, path)  # the first process to get here sets the key
            except FileExistsError:
                pass
            finally:
                temporary.unlink()
            _fsync_dir(self.root)
        return bytes.fromhex(path.read_text().strip())


def _index_of(path: Path) -> Path:
    return path.with_name(path.name + INDEX_SUFFIX)


def _is_live_index(path: Path) -> bool:
    if not path.name.endswith(INDEX_SUFFIX):
        return False
    return path.with_name(path.name.removesuffix(INDEX_SUFFIX)).is_file()


def _make_dirs(directory: Path) -> list[Path]:
    """Creates the directory and its missing parents; returns the parents whose entries changed
    (to fsync, so the new directories survive a crash)."""
    missing = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    directory.mkdir(parents=True, exist_ok=True)
    return [m.parent for m in missing]


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
