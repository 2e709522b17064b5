"""Export and import as JSON Lines: one memory per line, with its revisions, links and entity
mentions; portable between deployments and versions.

An Engram line is `{"format": "engram-export", "version": 1, "memory": {...}, "revisions":
[...], "links": [{type, target, properties}], "entities": [{category, slug, name}]}`. An
AutoMem memory imports too: a line `{"format": "automem", "memory": <AutoMem's Memory node
properties>, "links": [...]}` (what `engram import` makes of AutoMem's backup files), or a
bare AutoMem memory object; its fields are mapped like a POST /memory from an AutoMem client.

A memory with files attached is followed by one line per artifact: `{"format": "engram-export",
"version": 1, "artifact": {memory_id, id, sha256, content_base64}}` (up to MAX_ARTIFACT_LINE
bytes; files older exports lack import as before). An imported memory keeps only the artifacts
whose line the file holds; each is checked against its sha256 before anything is written.

Import keeps ids, skips a memory whose id exists or whose owner already has the same content
(by content hash), checks every line before it writes any, and queues the imported memories
for embedding. Links are made once every memory of the file is in; a link whose other end is
missing (or belongs to another user) is counted as unresolved.
"""

import asyncio
import base64
import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.errors import BadRequest
from app.jobs.kinds import batches, enqueue_embedding
from app.memories.derive import content_hash
from app.memories.tasks import EmbedDeps
from app.models import JSON_PROPERTIES, Memory, Status, to_iso, utc_now
from app.ops.automem_format import canonical_uuid, from_automem
from app.storage.artifacts.files import ArtifactStore
from app.storage.graph import portable
from app.storage.graph.records import json_property_text, memory_to_properties
from app.storage.graph.store import GraphStore
from app.storage.mirror import vector_point

FORMAT = "engram-export"
VERSION = 1
AUTOMEM = "automem"
PAGE = 256
MAX_LINE = 4 << 20
# An artifact line holds its file in base64: room for a 48 MB file.
MAX_ARTIFACT_LINE = 64 << 20
ARTIFACT_LINE = json.dumps({"format": FORMAT, "version": VERSION, "artifact": None})
ARTIFACT_PREFIX = ARTIFACT_LINE.removesuffix("null}").encode()
SCALARS = (str, int, float, bool)


# --------------------------------------------------------------------------- export


async def export_lines(
    graph: GraphStore, user_id: str | None, files: ArtifactStore | None = None
) -> AsyncIterator[bytes]:
    """Every live memory (of one user, or all) as a JSON line, in id order, each page followed
    by the lines of its memories' artifacts (with `files`)."""
    after = ""
    while page := await graph.page_of_memories(after=after, limit=PAGE, user_id=user_id):
        ids = [m.id for m in page]
        revisions = await portable.revisions(graph, ids)
        links = await portable.links(graph, ids)
        entities = await portable.mentions(graph, ids)
        lines = [
            json.dumps(
                {
                    "format": FORMAT,
                    "version": VERSION,
                    "memory": m.model_dump(mode="json"),
                    "revisions": revisions.get(m.id, []),
                    "links": links.get(m.id, []),
                    "entities": entities.get(m.id, []),
                },
                ensure_ascii=False,
            )
            for m in page
        ]
        yield ("\n".join(lines) + "\n").encode()
        if files is not None:
            for memory in page:
                async for line in _artifact_lines(files, memory):
                    yield line
        after = page[-1].id


async def _artifact_lines(files: ArtifactStore, memory: Memory) -> AsyncIterator[bytes]:
    for meta in memory.artifacts:
        try:
            data = await asyncio.to_thread(files.read, memory.user_id, memory.id, meta.id)
        except FileNotFoundError:  # fsck reports it; the import drops what has no line
            continue
        artifact = {
            "memory_id": memory.id,
            "id": meta.id,
            "sha256": meta.sha256,
            "content_base64": base64.b64encode(data).decode(),
        }
        line = {"format": FORMAT, "version": VERSION, "artifact": artifact}
        yield (json.dumps(line) + "\n").encode()


# --------------------------------------------------------------------------- import


@dataclass
class ImportItem:
    memory: Memory
    revisions: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ImportReport:
    lines: int = 0
    imported: int = 0
    duplicate_ids: int = 0
    duplicate_content: int = 0
    revisions: int = 0
    links: int = 0
    unresolved_links: int = 0
    entity_mentions: int = 0
    queued_for_embedding: int = 0
    artifacts: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


Listed = tuple[str, set[str]]  # an imported memory's owner and artifact ids


def _listed(memory: Memory) -> Listed:
    return memory.user_id, {a.id for a in memory.artifacts}


@dataclass
class ArtifactLine:
    memory_id: str
    id: str
    data: bytes


def read_items(
    path: Path, user_id: str | None, actor: str, artifacts: set[tuple[str, str]] | None = None
) -> Iterator[list[ImportItem]]:
    """The file's memories, a page at a time; a bad line is a BadRequest naming it. The
    (memory id, artifact id) of each artifact line go to `artifacts`."""
    now = utc_now()
    items: list[ImportItem] = []
    for parsed in _lines(path, user_id, actor, now):
        if isinstance(parsed, ArtifactLine):
            if artifacts is not None:
                artifacts.add((parsed.memory_id, parsed.id))
            continue
        items.append(parsed)
        if len(items) >= PAGE:
            yield items
            items = []
    if items:
        yield items


def read_artifacts(path: Path) -> Iterator[ArtifactLine]:
    """The file's artifact lines (checked as read_items checks them)."""
    for parsed in _lines(path, "-", "-", utc_now()):
        if isinstance(parsed, ArtifactLine):
            yield parsed


def _lines(
    path: Path, user_id: str | None, actor: str, now: datetime
) -> Iterator["ImportItem | ArtifactLine"]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            limit = MAX_ARTIFACT_LINE if raw.startswith(ARTIFACT_PREFIX) else MAX_LINE
            if len(raw) > limit:
                raise BadRequest(f"Line {number}: longer than {limit} bytes")
            try:
                parsed = parse_line(raw, user_id, actor, now)
            except (ValueError, ValidationError, TypeError, KeyError, BadRequest) as exc:
                raise BadRequest(f"Line {number}: {_reason(exc)}") from exc
            yield parsed


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error.get("loc", ()))
        return f"{where}: {error.get('msg')}" if where else str(error.get("msg"))
    if isinstance(exc, BadRequest):
        return exc.message
    return str(exc) or type(exc).__name__


def parse_line(
    raw: bytes, user_id: str | None, actor: str, now: datetime
) -> ImportItem | ArtifactLine:
    try:
        record = json.loads(raw)
    except RecursionError:  # the parser's stack, not a rule of ours: no line needs such depth
        raise ValueError("its JSON is nested too deeply") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if record.get("format") == FORMAT:
        if record.get("version") != VERSION:
            raise ValueError(f"export version {record.get('version')} is not supported")
        if "artifact" in record:
            return _artifact(record["artifact"])
        return _engram_item(record, user_id)
    body = record["memory"] if record.get("format") == AUTOMEM else record
    if not isinstance(body, dict) or "content" not in body:
        raise ValueError("neither an Engram export line nor an AutoMem memory")
    if not user_id:
        raise ValueError("an AutoMem memory has no user: pass user_id")
    memory = from_automem(body, user_id, actor, now)
    return ImportItem(memory, links=_links(record.get("links", [])))


def _engram_item(record: dict[str, Any], user_id: str | None) -> ImportItem:
    data = dict(record["memory"])
    if user_id:
        data["user_id"] = user_id
    memory = Memory.model_validate(data)
    memory.id = canonical_uuid(memory.id)
    memory.content_hash = content_hash(memory.content)
    memory.embedding_status = Status.PENDING
    revisions = [_revision(memory, r) for r in record.get("revisions", [])]
    entities = [_entity(e) for e in record.get("entities", [])]
    return ImportItem(memory, revisions, _links(record.get("links", [])), entities)


def _artifact(line: dict[str, Any]) -> ArtifactLine:
    data = base64.b64decode(str(line["content_base64"]), validate=True)
    if hashlib.sha256(data).hexdigest() != line["sha256"]:
        raise ValueError(f"artifact {line['id']}: its content does not have its sha256")
    return ArtifactLine(
        canonical_uuid(str(line["memory_id"])), canonical_uuid(str(line["id"])), data
    )


def _entity(entity: dict[str, Any]) -> dict[str, Any]:
    aliases = entity.get("aliases")
    return {
        "category": str(entity["category"]),
        "slug": str(entity["slug"]),
        "name": str(entity["name"]),
        "aliases": [str(a) for a in aliases] if isinstance(aliases, list) else None,
        "created_at": _text(entity.get("created_at")),
        "last_referenced_at": _text(entity.get("last_referenced_at")),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _revision(memory: Memory, props: dict[str, Any]) -> dict[str, Any]:
    """A revision's properties, bound to its memory and owner, as graph values."""
    if not isinstance(props, dict):
        raise ValueError("a revision must be an object")
    row = {k: _revision_value(k, v) for k, v in props.items() if v is not None}
    version = int(row.get("version", 0))
    row.update(memory_id=memory.id, user_id=memory.user_id, id=f"{memory.id}:{version}")
    return row


def _revision_value(key: str, value: Any) -> Any:
    if key in JSON_PROPERTIES:  # never '' or another value its reads cannot parse
        return json_property_text(key, value)
    return _graph_value(value)


def _graph_value(value: Any) -> Any:
    if isinstance(value, SCALARS):
        return value
    if isinstance(value, list) and all(isinstance(v, SCALARS) for v in value):
        return value
    return json.dumps(value, separators=(",", ":"))


def _links(links: Any) -> list[dict[str, Any]]:
    if not isinstance(links, list):
        raise ValueError("links must be a list")
    found = []
    for link in links:
        kind = str(link["type"])
        if not kind.isidentifier():
            raise ValueError(f"link type {kind!r} is not a plain name")
        props = {
            k: _graph_value(v) for k, v in (link.get("properties") or {}).items() if v is not None
        }
        found.append(
            {"type": kind, "target": canonical_uuid(str(link["target"])), "properties": props}
        )
    return found


async def import_file(
    deps: EmbedDeps, path: Path, *, user_id: str | None, actor: str
) -> ImportReport:
    """Checks every line, then writes page by page; links last."""
    report = ImportReport()
    present: set[tuple[str, str]] = set()
    for page in read_items(path, user_id, actor, present):
        report.lines += len(page)
    pending_links: list[dict[str, Any]] = []
    seen_hashes: set[tuple[str, str]] = set()
    listed: dict[str, Listed] = {}
    for page in read_items(path, user_id, actor):
        for item in page:
            m = item.memory
            m.artifacts = [a for a in m.artifacts if (m.id, a.id) in present]
        fresh = await _fresh(deps.stores.graph, page, seen_hashes, report)
        if fresh:
            await _write(deps, fresh, actor, report)
            pending_links += [
                {**link, "src": item.memory.id} for item in fresh for link in item.links
            ]
            listed.update({i.memory.id: _listed(i.memory) for i in fresh if i.memory.artifacts})
    await _link(deps.stores.graph, pending_links, report)
    if listed and deps.stores.artifacts is not None:
        files = deps.stores.artifacts
        report.artifacts = await asyncio.to_thread(_write_artifacts, files, path, listed)
    return report


def _write_artifacts(files: ArtifactStore, path: Path, listed: dict[str, Listed]) -> int:
    """The files the imported memories list, one at a time (blocking: run it in a thread)."""
    written = 0
    for line in read_artifacts(path):
        owner, ids = listed.get(line.memory_id, ("", set()))
        if line.id in ids:
            files.write(owner, line.memory_id, line.id, [line.data], len(line.data))
            written += 1
    return written


async def _fresh(
    graph: GraphStore, page: list[ImportItem], seen: set[tuple[str, str]], report: ImportReport
) -> list[ImportItem]:
    existing = await graph.existing_ids([i.memory.id for i in page])
    rows = [
        {"id": i.memory.id, "user_id": i.memory.user_id, "hash": i.memory.content_hash}
        for i in page
    ]
    same = await portable.with_same_content(graph, rows)
    fresh: list[ImportItem] = []
    for item in page:
        key = (item.memory.user_id, item.memory.content_hash)
        if item.memory.id in existing or item.memory.id in {i.memory.id for i in fresh}:
            report.duplicate_ids += 1
        elif item.memory.id in same or key in seen:
            report.duplicate_content += 1
        else:
            seen.add(key)
            fresh.append(item)
    return fresh


async def _write(
    deps: EmbedDeps, items: list[ImportItem], actor: str, report: ImportReport
) -> None:
    graph, now = deps.stores.graph, to_iso(utc_now())
    await portable.create(
        graph, [memory_to_properties(i.memory) for i in items], actor=actor, now=now
    )
    revisions = [r for i in items for r in i.revisions]
    await portable.create_revisions(graph, revisions)
    mentions = [{**e, "id": i.memory.id} for i in items for e in i.entities]
    await portable.mention(graph, mentions, now=now)
    await deps.stores.vectors.upsert([vector_point(i.memory, None) for i in items])
    for owner in sorted({i.memory.user_id for i in items}):
        for chunk in batches([i.memory.id for i in items if i.memory.user_id == owner]):
            await enqueue_embedding(deps.jobs, owner, chunk)
    report.imported += len(items)
    report.revisions += len(revisions)
    report.entity_mentions += len(mentions)
    report.queued_for_embedding += len(items)


async def _link(graph: GraphStore, links: list[dict[str, Any]], report: ImportReport) -> None:
    by_type: dict[str, list[dict[str, Any]]] = {}
    for link in links:
        row = {"src": link["src"], "dst": link["target"], "properties": link["properties"]}
        by_type.setdefault(link["type"], []).append(row)
    for kind, rows in by_type.items():
        for start in range(0, len(rows), PAGE):
            made = await portable.link(graph, kind, rows[start : start + PAGE])
            report.links += made
            report.unresolved_links += len(rows[start : start + PAGE]) - made
