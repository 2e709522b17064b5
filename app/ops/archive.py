"""The backup archive's format: a gzip tar holding `manifest.json` first, then its parts.

Parts are JSON Lines: `falkordb/nodes.jsonl` and `falkordb/relationships.jsonl` (the graph, see
app.storage.graph.snapshot), `falkordb/memory_digests.jsonl` (`{id, sha256}`: each memory's
properties, hashed canonically, for proving a restore) and, when vectors are included,
`qdrant/vectors.jsonl` (`{id, content_hash, dense}`: the dense vector as base64 float32
little-endian, and the content it was made from) and, when any memory has files attached,
`artifacts/files.jsonl` (`{user_id, memory_id, id, sha256, content_base64}`, one artifact a
line; a backup made before artifacts existed has no such part and restores as before). The
manifest names the format version, the
schema level (applied migrations), the embedding model and dimension, counts per kind, and each
part's sha256, size and record count.
"""

import base64
import hashlib
import json
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from app.errors import BadRequest

FORMAT = "engram-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
NODES = "falkordb/nodes.jsonl"
RELATIONSHIPS = "falkordb/relationships.jsonl"
DIGESTS = "falkordb/memory_digests.jsonl"
VECTORS = "qdrant/vectors.jsonl"
ARTIFACTS = "artifacts/files.jsonl"
GRAPH_PARTS = (NODES, RELATIONSHIPS, DIGESTS)
CHUNK = 1 << 20


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def memory_digest(properties: dict[str, Any]) -> str:
    """A memory's properties, hashed so that any changed, lost or added field shows."""
    return hashlib.sha256(canonical(properties)).hexdigest()


def encode_dense(vector: list[float]) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()


def decode_dense(text: str) -> list[float]:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(float).tolist()


@dataclass
class PartWriter:
    """One JSON Lines part being written, hashed as it goes."""

    path: Path
    handle: IO[bytes]
    records: int = 0
    digest: Any = field(default_factory=hashlib.sha256)

    @classmethod
    def open(cls, root: Path, name: str) -> "PartWriter":
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(path, path.open("wb"))

    def write(self, records: list[Any]) -> None:
        data = b"".join(canonical(r) + b"\n" for r in records)
        self.digest.update(data)
        self.handle.write(data)
        self.records += len(records)

    def close(self) -> dict[str, Any]:
        self.handle.close()
        return {
            "sha256": self.digest.hexdigest(),
            "bytes": self.path.stat().st_size,
            "records": self.records,
        }


def write_archive(root: Path, manifest: dict[str, Any], out: Path) -> None:
    """The tar.gz: the manifest first, then every part it names."""
    (root / MANIFEST).write_bytes(json.dumps(manifest, indent=2, sort_keys=True).encode())
    with tarfile.open(out, "w:gz", compresslevel=6) as tar:
        tar.add(root / MANIFEST, arcname=MANIFEST)
        for name in manifest["parts"]:
            tar.add(root / name, arcname=name)


def unpack_archive(archive: Path, into: Path) -> dict[str, Any]:
    """Extracts a backup (regular files named by the manifest only) and checks every part's
    sha256; returns the manifest. Anything else is a BadRequest naming the problem."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            manifest = _read_manifest(tar)
            for name in manifest["parts"]:
                _extract(tar, name, into)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BadRequest(f"Not a readable backup archive: {exc}") from exc
    for name, part in manifest["parts"].items():
        if _sha256(into / name) != part["sha256"]:
            raise BadRequest(f"Backup part {name} does not match its sha256 in the manifest")
    return manifest


def _read_manifest(tar: tarfile.TarFile) -> dict[str, Any]:
    try:
        member = tar.getmember(MANIFEST)
    except KeyError as exc:
        raise BadRequest("Not an Engram backup: manifest.json is missing") from exc
    handle = tar.extractfile(member)
    if handle is None or member.size > 10 * CHUNK:
        raise BadRequest("Not an Engram backup: manifest.json is not a small regular file")
    try:
        manifest = json.loads(handle.read())
    except ValueError as exc:
        raise BadRequest(f"The backup's manifest is not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BadRequest("Not an Engram backup: the manifest's format is not engram-backup")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BadRequest(
            f"Backup format version {manifest.get('format_version')} is not supported "
            f"(this server reads version {FORMAT_VERSION})"
        )
    parts = manifest.get("parts")
    if not isinstance(parts, dict) or not set(GRAPH_PARTS) <= set(parts):
        raise BadRequest("The backup's manifest does not list the graph's parts")
    if not set(parts) <= {*GRAPH_PARTS, VECTORS, ARTIFACTS}:
        raise BadRequest(f"The backup's manifest lists unknown parts: {sorted(parts)}")
    return manifest


def _extract(tar: tarfile.TarFile, name: str, into: Path) -> None:
    try:
        member = tar.getmember(name)
    except KeyError as exc:
        raise BadRequest(f"The backup lacks the part {name} that its manifest lists") from exc
    source = tar.extractfile(member) if member.isfile() else None
    if source is None:
        raise BadRequest(f"Backup part {name} is not a regular file")
    target = into / name
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        while block := source.read(CHUNK):
            handle.write(block)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def read_records(path: Path, batch: int = 1000) -> Iterator[list[dict[str, Any]]]:
    """A part's records, `batch` at a time."""
    records: list[dict[str, Any]] = []
    with path.open("rb") as handle:
        for line in handle:
            records.append(json.loads(line))
            if len(records) >= batch:
                yield records
                records = []
    if records:
        yield records
