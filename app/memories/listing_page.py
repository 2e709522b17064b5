"""A page of the memory listing as a route answers it: the filters read from the query string
(ListFiltersDep), the page itself (list_page) and its body (ListResponse). GET /memory
(listing_router.py) answers with it for the caller's scope, and the operator's view of one
user's memories (app/ops/overview_router.py) for that whole user."""

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Depends, Query
from pydantic import BaseModel, Field

from app.errors import BadRequest
from app.memories import listing
from app.memories.fields import parse_time
from app.memories.schemas import MemoryOut, out
from app.models import TYPE_ALIASES, Layer, to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.graph.listing import ListQuery, Order, SortKey, State

MAX_LIMIT = 200
MAX_VALUES = 50  # per list filter (type, layer, tags, labels)

Values = list[str] | None


class ListResponse(BaseModel):
    status: Literal["success"] = "success"
    count: int = Field(description="Memories in this page.")
    limit: int = Field(description="Page size asked for.")
    total: int | None = Field(
        None, description="With include_total=true: every memory the filters let through."
    )
    memories: list[MemoryOut] = Field(description="This page, in the order asked for.")
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null once there is none."
    )


def _words(name: str, values: Values) -> list[str]:
    """Repeated or comma-separated values as one list."""
    words = [part.strip() for item in values or [] for part in item.split(",") if part.strip()]
    if len(words) > MAX_VALUES:
        raise BadRequest(f"Too many '{name}' values: at most {MAX_VALUES}")
    return words


def _types(values: Values) -> list[str]:
    names = _words("type", values)
    unknown = [n for n in names if n.lower() not in TYPE_ALIASES]
    if unknown:
        raise BadRequest(f"Unknown type {unknown[0]!r}; use one of: {', '.join(_type_names())}")
    return sorted({TYPE_ALIASES[n.lower()].value for n in names})


def _type_names() -> list[str]:
    return sorted({t.value for t in TYPE_ALIASES.values()})


def _layers(values: Values) -> list[str]:
    names = [n.lower() for n in _words("layer", values)]
    known = [layer.value for layer in Layer]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BadRequest(f"Unknown layer {unknown[0]!r}; use one of: {', '.join(known)}")
    return names


def _labels(values: Values) -> list[str]:
    pairs = _words("labels", values)
    bad = [p for p in pairs if "=" not in p or not p.split("=", 1)[0].strip()]
    if bad:
        raise BadRequest(f"Invalid 'labels': use key=value pairs (got {bad[0]!r})")
    return pairs


def _time(name: str, value: str | None) -> str | None:
    if not value:
        return None
    try:
        return to_iso(parse_time(value))
    except (ValueError, OverflowError):  # e.g. year 1 with a positive offset
        raise BadRequest(f"Invalid '{name}': {value!r} is not an ISO-8601 timestamp") from None


@dataclass(frozen=True)
class ListFilters:
    """A listing's filters and order, read from the query string (GET /memory and the
    operator's look at one user's memories)."""

    query: ListQuery
    labels: list[str]
    cursor: str | None
    limit: int
    include_total: bool


def list_filters(
    cursor: Annotated[
        str | None, Query(max_length=2000, description="`next_cursor` of the previous page.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Page size, 1–200.")] = 50,
    sort: Annotated[SortKey, Query(description="The time to order by.")] = "created_at",
    order: Annotated[Order, Query(description="asc: oldest first; desc: newest first.")] = "desc",
    state: Annotated[
        State,
        Query(
            description="current: what recall shows now (not archived, valid now, not "
            "expired); archived: archived only; all: every memory that is not deleted."
        ),
    ] = "current",
    type: Annotated[Values, Query(description="Types (any); repeat or comma-separate.")] = None,
    layer: Annotated[Values, Query(description="Layers (any): raw, consolidated…")] = None,
    tags: Annotated[Values, Query(description="Tags (any; exact, case-insensitive).")] = None,
    labels: Annotated[Values, Query(description="key=value pairs; every one must match.")] = None,
    since: Annotated[str | None, Query(description="`timestamp` at or after (ISO-8601).")] = None,
    until: Annotated[str | None, Query(description="`timestamp` at or before (ISO-8601).")] = None,
    text: Annotated[
        str | None, Query(max_length=200, description="Content containing this (any case).")
    ] = None,
    agent: Annotated[
        str | None,
        Query(max_length=600, description="Written by this agent (exactly), within your scope."),
    ] = None,
    session: Annotated[
        str | None, Query(max_length=200, description="From this conversation (session id).")
    ] = None,
    include_total: Annotated[
        bool, Query(description="Also count every memory the filters let through (`total`).")
    ] = False,
) -> ListFilters:
    wanted = _labels(labels)
    query = ListQuery(
        now=to_iso(utc_now()),
        sort=sort,
        order=order,
        state=state,
        types=_types(type),
        layers=_layers(layer),
        tags=_words("tags", tags),
        label_keys=sorted({pair.split("=", 1)[0] for pair in wanted}),
        since=_time("since", since),
        until=_time("until", until),
        text=(text.strip() or None) if text else None,
        agent=agent or None,
        session=session or None,
    )
    return ListFilters(query, wanted, cursor, limit, include_total)


ListFiltersDep = Annotated[ListFilters, Depends(list_filters)]


async def list_page(
    stores: Stores, scope: Scope, filters: ListFilters, *, whole_user: bool = False
) -> ListResponse:
    """One page of the listing, with its total when asked for."""
    query = filters.query
    after = listing.decode_cursor(query, filters.cursor) if filters.cursor else None
    page = await listing.list_memories(
        stores=stores,
        scope=scope,
        query=query,
        labels=filters.labels,
        after=after,
        limit=filters.limit,
        whole_user=whole_user,
    )
    total = None
    if filters.include_total:
        total = await listing.count_memories(
            stores=stores, scope=scope, query=query, whole_user=whole_user
        )
    return ListResponse(
        count=len(page.memories),
        limit=filters.limit,
        total=total,
        memories=[out(m) for m in page.memories],
        next_cursor=page.next_cursor,
    )
