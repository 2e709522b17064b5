"""What runs on the Edge shard's thread: writes, index upkeep and batch queries, and the
translation of Engram's points and filters into qdrant-edge's types."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy
import qdrant_edge as qe

from app.storage.vectors.base import (
    DENSE,
    PAYLOAD_INDEXES,
    SHARED_LIVE,
    SPARSE,
    WINDOW,
    Clause,
    Condition,
    FieldAny,
    FieldEmpty,
    FieldEquals,
    FieldTimeRange,
    IdIn,
    PayloadIndexSpec,
    VectorDimensionMismatch,
    VectorHit,
    VectorPoint,
    VectorPointNotFound,
)
from app.storage.vectors.bm25 import SparseTerms, document_terms

# Dense vectors are stored as float16: the exact search reads half the memory, faster, and
# returns the same top results; scores move in the third decimal.
DENSE_DATATYPE = qe.VectorStorageDatatype.Float16
UPSERT_CHUNK = 512
log = logging.getLogger(__name__)


def create_dense(dimension: int, name: str = DENSE) -> qe.UpdateOperation:
    """The operation that adds an empty dense vector (`name`: DENSE or WINDOW) of today's
    storage type."""
    return qe.UpdateOperation.create_dense_vector(
        name, dimension, qe.Distance.Cosine, datatype=DENSE_DATATYPE
    )


def edge_config(
    dimension: int,
    datatype: qe.VectorStorageDatatype,
    window_datatype: qe.VectorStorageDatatype | None,
    search_threads: int,
) -> qe.EdgeConfig:
    """Shard layout: named cosine dense and window vectors plus BM25 sparse vector with IDF.
    `window_datatype` None: a shard made before the window vector existed, as stored."""
    vectors = {
        DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine, datatype=datatype)
    }
    if window_datatype is not None:
        vectors[WINDOW] = qe.EdgeVectorParams(
            size=dimension, distance=qe.Distance.Cosine, datatype=window_datatype
        )
    return qe.EdgeConfig(
        vectors=vectors,
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        max_search_threads=search_threads,
    )


def recreate_dense_sync(dimension: int, shard: qe.EdgeShard) -> None:
    """Recreates the dense and window vectors empty (a change of model: both are stale)."""
    for name in (DENSE, WINDOW):
        shard.update(qe.UpdateOperation.delete_vector_name(name))
        shard.update(create_dense(dimension, name))


def stored_vector(config_file: Path, name: str) -> dict[str, Any]:
    """A named dense vector's parameters as the shard's config file records them ({} if none)."""
    config = json.loads(config_file.read_text())
    return dict(config.get("vectors", {}).get(name, {}))


def stored_dense(config_file: Path, dimension: int) -> dict[str, Any]:
    """The dense vector's parameters as the shard on disk records them; raises
    VectorDimensionMismatch if they have another size."""
    dense = stored_vector(config_file, DENSE)
    stored = dense.get("size")
    if stored is not None and int(stored) != dimension:
        raise VectorDimensionMismatch(
            f"the Edge shard directory {config_file.parent}", int(stored), dimension
        )
    return dense


def clear_windows_sync(ids: list[Any], shard: qe.EdgeShard) -> None:
    """Removes the window vector of the points that exist (an unknown id would fail it)."""
    present = [r.id for r in shard.retrieve(ids, False, False)]
    if present:
        shard.update(qe.UpdateOperation.delete_vectors(present, [WINDOW]))


def set_windows_sync(vectors: dict[str, list[float]], shard: qe.EdgeShard) -> None:
    """Sets the window vector of the points that exist (runs on the shard thread)."""
    ids: list[Any] = list(vectors)
    present = {str(r.id) for r in shard.retrieve(ids, False, False)}
    update = [qe.PointVectors(id=i, vector={WINDOW: v}) for i, v in vectors.items() if i in present]
    for start in range(0, len(update), UPSERT_CHUNK):
        shard.update(qe.UpdateOperation.update_vectors(update[start : start + UPSERT_CHUNK]))


def set_fields_sync(ids: list[str], fields: dict[str, Any], shard: qe.EdgeShard) -> None:
    """Sets `fields` in the payloads of the points of `ids` that exist, keeping their other
    fields (runs on the shard thread)."""
    wanted: list[Any] = list(ids)
    present: list[Any] = [str(r.id) for r in shard.retrieve(wanted, False, False)]
    if present:
        shard.update(qe.UpdateOperation.set_payload(present, fields))


def flush_then_record(path: Path, text: str, shard: qe.EdgeShard) -> None:
    """Flushes the shard, then writes `text` to `path` atomically."""
    shard.flush()
    write_atomically(path, text)


def write_atomically(path: Path, text: str) -> None:
    """Replaces `path` with `text` so that a crash leaves the old file or the new, never half."""
    partial_file = path.with_name(path.name + ".tmp")
    with partial_file.open("w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial_file, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a power loss
    finally:
        os.close(directory)


def flush_and_close(shard: qe.EdgeShard) -> None:
    """Persist everything and release the WAL lock."""
    try:
        shard.flush()
    finally:
        shard.close()


def upsert_sync(points: list[VectorPoint], shard: qe.EdgeShard) -> None:
    """Embed texts and upsert in chunks (runs on the shard thread)."""
    for start in range(0, len(points), UPSERT_CHUNK):
        chunk = [edge_point(p) for p in points[start : start + UPSERT_CHUNK]]
        shard.update(qe.UpdateOperation.upsert_points(chunk))


def insert_missing_sync(points: list[VectorPoint], shard: qe.EdgeShard) -> list[str]:
    """upsert_sync of the points whose id is absent: one call on the shard thread, which runs
    every write, so no write lands between the check and the insert."""
    wanted: list[Any] = [p.id for p in points]
    present = {str(r.id) for r in shard.retrieve(wanted, False, False)}
    absent = [p for p in points if p.id not in present]
    upsert_sync(absent, shard)
    return [p.id for p in absent]


def overwrite_payload_sync(point_id: str, payload: dict[str, Any], shard: qe.EdgeShard) -> None:
    """Overwrite a payload, raising VectorPointNotFound for an unknown id."""
    if not shard.retrieve([point_id], False, False):
        raise VectorPointNotFound(f"no vector point {point_id}")
    shard.update(qe.UpdateOperation.overwrite_payload([point_id], payload))


def ensure_payload_indexes(shard: qe.EdgeShard) -> None:
    """Create the payload indexes the shard does not have yet."""
    existing = shard.info().payload_schema
    for spec in PAYLOAD_INDEXES:
        if spec.field not in existing:
            shard.update(qe.UpdateOperation.create_field_index(spec.field, index_schema(spec)))


# Points an agent-less caller may see (no agent lineage, not archived) without SHARED_LIVE.
LACKING_SHARED_LIVE = Clause(
    must=(FieldEmpty(SHARED_LIVE), FieldEmpty("agent_lineage")),
    must_not=(FieldEquals("archived", True),),
)


def fill_shared_live(shard: qe.EdgeShard, missing: int) -> None:
    """Writes SHARED_LIVE as vector_payload would on the `missing` points that lack it: per
    user, the user's id. Idempotent, so a crash halfway only means doing it again at the next
    open."""
    lacking = edge_filter(LACKING_SHARED_LIVE)
    users = shard.facet(qe.FacetRequest("user_id", limit=missing, exact=True, filter=lacking))
    for hit in users.hits:
        user = str(hit.value)
        owned = Clause(
            must=(FieldEquals("user_id", user), *LACKING_SHARED_LIVE.must),
            must_not=LACKING_SHARED_LIVE.must_not,
        )
        shard.update(
            qe.UpdateOperation.set_payload_by_filter(edge_filter(owned), {SHARED_LIVE: user})
        )


def complete_shared_live(shard: qe.EdgeShard, path: Path) -> None:
    """Fills SHARED_LIVE in where it is missing: on a shard from an earlier release, or one
    an earlier release wrote to since. Checked at every open (one indexed count), before the
    shard is handed out, so every search (all filter by SHARED_LIVE) finds it complete."""
    missing = shard.count(qe.CountRequest(exact=True, filter=edge_filter(LACKING_SHARED_LIVE)))
    if not missing:
        return
    log.warning(
        "Edge shard %s: filling in %s on %d points written by an earlier release",
        path,
        SHARED_LIVE,
        missing,
    )
    fill_shared_live(shard, missing)
    shard.flush()


def index_schema(spec: PayloadIndexSpec) -> qe.PayloadSchemaType | qe.KeywordIndexParams:
    """Engine schema for one payload index."""
    if spec.is_tenant:
        return qe.KeywordIndexParams(is_tenant=True)
    return {
        "keyword": qe.PayloadSchemaType.Keyword,
        "bool": qe.PayloadSchemaType.Bool,
        "float": qe.PayloadSchemaType.Float,
        "datetime": qe.PayloadSchemaType.Datetime,
    }[spec.kind]


def edge_point(point: VectorPoint) -> qe.Point:
    """Engine point: dense (if any) plus BM25 of the text (if it has tokens)."""
    vectors: dict[str, Any] = {}
    if point.dense is not None:
        vectors[DENSE] = point.dense
    terms = document_terms(point.text)
    if terms is not None:
        vectors[SPARSE] = edge_sparse(terms)
    return qe.Point(id=point.id, vector=vectors, payload=point.payload)


def query_batch_sync(requests: list[qe.QueryRequest], shard: qe.EdgeShard) -> list[list[VectorHit]]:
    """Runs off the event loop; the hits are mapped there too (their ids are UUID objects)."""
    found = shard.query_batch(qe.QueryBatchRequest(requests))
    return [[VectorHit(str(p.id), float(p.score), {}) for p in points] for points in found]


def edge_sparse(terms: SparseTerms) -> qe.SparseVector:
    """Engine sparse vector."""
    return qe.SparseVector(indices=terms.indices, values=terms.values)


def edge_filter(clause: Clause) -> qe.Filter:
    """Translate the shared clause into an Edge Filter."""
    return qe.Filter(
        must=[edge_condition(c) for c in clause.must] or None,
        should=[edge_condition(c) for c in clause.should] or None,
        must_not=[edge_condition(c) for c in clause.must_not] or None,
    )


def edge_match_value(value: str | bool) -> Any:
    """Value for ``MatchValue``, keeping booleans boolean."""
    if isinstance(value, bool):
        # qdrant_edge 0.9 extracts str | int | bool in that order, so a Python bool becomes the
        # integer 1/0 and never matches a boolean payload; numpy.bool_ is not an int.
        return numpy.bool_(value)
    return value


def edge_condition(cond: Condition) -> Any:
    """Translate one shared condition."""
    match cond:
        case FieldEquals(key, value):
            return qe.FieldCondition(key=key, match=qe.MatchValue(edge_match_value(value)))
        case FieldAny(key, values):
            return qe.FieldCondition(key=key, match=qe.MatchAny(list(values)))
        case FieldEmpty(key):
            return qe.IsEmptyCondition(key)
        case FieldTimeRange(key, gte, lte):
            return qe.FieldCondition(key=key, range=qe.RangeDateTime(gte=gte, lte=lte))
        case IdIn(ids):
            return qe.HasIdCondition(set(ids))
        case Clause():
            return edge_filter(cond)
    raise TypeError(f"unknown filter condition {cond!r}")


def dense_of(vectors: Any) -> list[float] | None:
    dense = vectors.get(DENSE) if isinstance(vectors, dict) else None
    if dense is None:
        return None
    # Edge hands over a fresh list of Python floats: taken as it is (a copy item by item cost
    # a sizeable share of recall's evidence step).
    return dense if type(dense) is list else [float(x) for x in dense]


def scroll_page(request: qe.ScrollRequest) -> Callable[[qe.EdgeShard], Any]:
    """The shard call of one scroll page."""
    return lambda shard: shard.scroll(request)
