"""AutoMem's backup files read as import lines: its GET /backup archive (tar.gz holding
`falkordb/falkordb_<ts>.json.gz`) or that graph dump alone (`.json` or `.json.gz`), whose
`nodes` ({id, labels, properties}) and `relationships` ({source_id, type, target_id,
properties}) become one `{"format": "automem", "memory", "links"}` line per Memory node."""

import gzip
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GZIP_MAGIC = b"\x1f\x8b"


def graph_dump(path: Path) -> dict[str, Any] | None:
    """AutoMem's graph dump from the file, or None if the file is not one (e.g. JSON Lines)."""
    if tarfile.is_tarfile(path):
        with tarfile.open(path, "r:*") as tar:
            for member in tar.getmembers():
                name = member.name.rsplit("/", 1)[-1]
                if member.isfile() and name.startswith("falkordb_") and ".json" in name:
                    handle = tar.extractfile(member)
                    data = handle.read() if handle else b""
                    return _dump(gzip.decompress(data) if data[:2] == GZIP_MAGIC else data)
        return None
    with path.open("rb") as handle:
        head = handle.read(2)
    if head == GZIP_MAGIC:
        with gzip.open(path, "rb") as unzipped:
            return _dump(unzipped.read())
    with path.open("rb") as handle:
        first = handle.readline()
    try:
        value = json.loads(first)
    except ValueError:  # a JSON document over several lines
        return _dump(path.read_bytes())
    if isinstance(value, dict) and isinstance(value.get("nodes"), list):
        return value  # a dump on one line
    return None  # JSON Lines


def _dump(data: bytes) -> dict[str, Any] | None:
    try:
        document = json.loads(data)
    except ValueError:
        return None
    if isinstance(document, dict) and isinstance(document.get("nodes"), list):
        return document
    return None


def import_lines(dump: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One line per Memory node, with its links to other memories."""
    memories = {
        node["id"]: node.get("properties") or {}
        for node in dump["nodes"]
        if "Memory" in (node.get("labels") or [])
    }
    links: dict[Any, list[dict[str, Any]]] = {}
    for rel in dump.get("relationships", []):
        source, target = rel.get("source_id"), rel.get("target_id")
        if source in memories and target in memories and memories[target].get("id"):
            links.setdefault(source, []).append(
                {
                    "type": rel["type"],
                    "target": memories[target]["id"],
                    "properties": rel.get("properties") or {},
                }
            )
    for node_id, props in memories.items():
        yield {"format": "automem", "memory": props, "links": links.get(node_id, [])}
