"""Listing the caller's memories (GET /memory): filtered, in a chosen order, a page at a time.

The cursor is opaque to clients: base64url of JSON `[sort, order, value, id]`, the position of
the page's last memory. The next page starts strictly after it, so writes in between neither
repeat nor skip a memory that was already there.

Labels are stored as one JSON string per memory, so the graph can only narrow the read to
memories having the label keys; the values are compared here, reading on past memories that
fail until the page is full or READ_BUDGET rows were read. A page can then hold fewer memories
than asked for (even none) while `next_cursor` still says where to go on.
"""

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass

from app.errors import BadRequest
from app.models import Memory
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import listing
from app.storage.graph.listing import ListQuery, Position, position_of
from app.storage.mirror import label_pairs

LABELLED_READ = 250  # rows a read takes when labels are compared after it
READ_BUDGET = 1000  # rows one request reads at most when labels are compared after the read


@dataclass(frozen=True)
class Page:
    memories: list[Memory]
    next_cursor: str | None


def encode_cursor(query: ListQuery, position: Position) -> str:
    raw = json.dumps([query.sort, query.order, position.value, position.memory_id])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(query: ListQuery, cursor: str) -> Position:
    """The position a cursor holds; BadRequest if it is not one, or was made for another order."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        sort, order, value, memory_id = json.loads(raw)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError):
        raise BadRequest("Invalid 'cursor': pass the next_cursor of an earlier page") from None
    if not (isinstance(value, str) and isinstance(memory_id, str)):
        raise BadRequest("Invalid 'cursor': pass the next_cursor of an earlier page")
    if (sort, order) != (query.sort, query.order):
        raise BadRequest(
            f"This cursor belongs to sort={sort} order={order}; keep those, or start without it"
        )
    return Position(value, memory_id)


def has_labels(memory: Memory, pairs: Sequence[str]) -> bool:
    """Whether the memory has every `key=value` pair (a list label matches any of its items)."""
    return set(pairs) <= set(label_pairs(memory.labels))


async def list_memories(
    *,
    stores: Stores,
    scope: Scope,
    query: ListQuery,
    labels: Sequence[str],
    after: Position | None,
    limit: int,
    whole_user: bool = False,
) -> Page:
    """One page of the scope's memories that `query` and `labels` let through, after `after`
    (`whole_user`: every agent's memories of the scope's user, for the operator's look)."""
    read = LABELLED_READ if labels else limit + 1
    kept: list[Memory] = []
    position = after
    for _ in range(max(1, READ_BUDGET // read)):
        batch = await listing.page(
            stores.graph, scope, query, after=position, limit=read, whole_user=whole_user
        )
        for memory in batch:
            position = position_of(memory, query.sort)
            if has_labels(memory, labels):
                kept.append(memory)
            if len(kept) > limit:  # one more than the page: another page follows
                last = position_of(kept[limit - 1], query.sort)
                return Page(kept[:limit], encode_cursor(query, last))
        if len(batch) < read:
            return Page(kept, None)
    return Page(kept, encode_cursor(query, position) if position else None)


async def count_memories(
    *, stores: Stores, scope: Scope, query: ListQuery, whole_user: bool = False
) -> int:
    """How many memories of the scope `query` lets through (labels: by key only)."""
    return await listing.count(stores.graph, scope, query, whole_user=whole_user)
