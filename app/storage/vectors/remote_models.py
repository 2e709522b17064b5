"""Translation of Engram's filters, payload indexes and vectors into qdrant-client's models."""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from app.storage.vectors.base import (
    DENSE,
    Clause,
    Condition,
    FieldAny,
    FieldEmpty,
    FieldEquals,
    FieldTimeRange,
    IdIn,
    PayloadIndexSpec,
)
from app.storage.vectors.bm25 import SparseTerms


def index_schema(spec: PayloadIndexSpec) -> models.PayloadSchemaType | models.KeywordIndexParams:
    """Engine schema for one payload index."""
    if spec.is_tenant:
        return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    return {
        "keyword": models.PayloadSchemaType.KEYWORD,
        "bool": models.PayloadSchemaType.BOOL,
        "float": models.PayloadSchemaType.FLOAT,
        "datetime": models.PayloadSchemaType.DATETIME,
    }[spec.kind]


def has_dense(vector: Any) -> bool:
    """Whether a retrieved record carries the dense vector."""
    return isinstance(vector, dict) and vector.get(DENSE) is not None


def dense_of(vector: Any) -> list[float] | None:
    """The retrieved dense vector, if the record carries one."""
    dense = vector.get(DENSE) if isinstance(vector, dict) else None
    return [float(x) for x in dense] if dense is not None else None


def sparse_vector(terms: SparseTerms) -> models.SparseVector:
    """Engine sparse vector."""
    return models.SparseVector(indices=terms.indices, values=terms.values)


def prefetch_stage(
    query: Any, using: str, limit: int, engine_filter: models.Filter
) -> models.Prefetch:
    """One hybrid channel."""
    return models.Prefetch(query=query, using=using, limit=limit, filter=engine_filter)


def engine_filter_of(clause: Clause) -> models.Filter:
    """Translate the shared clause into a qdrant-client Filter."""
    return models.Filter(
        must=[engine_condition(c) for c in clause.must] or None,
        should=[engine_condition(c) for c in clause.should] or None,
        must_not=[engine_condition(c) for c in clause.must_not] or None,
    )


def engine_condition(cond: Condition) -> Any:
    """Translate one shared condition."""
    match cond:
        case FieldEquals(key, value):
            return models.FieldCondition(key=key, match=models.MatchValue(value=value))
        case FieldAny(key, values):
            return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))
        case FieldEmpty(key):
            return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))
        case FieldTimeRange(key, gte, lte):
            return models.FieldCondition(key=key, range=models.DatetimeRange(gte=gte, lte=lte))
        case IdIn(ids):
            return models.HasIdCondition(has_id=list(ids))
        case Clause():
            return engine_filter_of(cond)
    raise TypeError(f"unknown filter condition {cond!r}")
