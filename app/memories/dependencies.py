"""Query parameters and Runtime parts of the memory routes, validated with clear messages (the
memory id in a path is app.deps.MemoryIdDep, shared with other domains' routes)."""

from typing import Annotated, Protocol

from fastapi import Depends, Query, Request

from app.deps import runtime_dependency
from app.errors import BadRequest
from app.memories.fields import MAX_TAG_CHARS, MAX_TAGS
from app.memories.ttl import TtlTable


async def tag_list(
    tags: Annotated[
        list[str] | None,
        Query(
            description=f"Tags to match (any; exact, case-insensitive); repeat or comma-separate; "
            f"at most {MAX_TAGS}, each at most {MAX_TAG_CHARS} characters."
        ),
    ] = None,
) -> list[str]:
    values = [t.strip() for item in tags or [] for t in item.split(",") if t.strip()]
    if not values:
        raise BadRequest("'tags' query parameter is required")
    # A memory's own bounds: more or longer tags than one can hold are never needed to find it.
    if len(values) > MAX_TAGS:
        raise BadRequest(f"Too many 'tags': {len(values)}; the limit is {MAX_TAGS}")
    if any(len(t) > MAX_TAG_CHARS for t in values):
        raise BadRequest(f"A tag of 'tags' is too long; the limit is {MAX_TAG_CHARS} characters")
    return values


TagsDep = Annotated[list[str], Depends(tag_list)]


class MemoriesServed(Protocol):
    """The parts of the Runtime the memory routes read."""

    @property
    def ttl_defaults(self) -> TtlTable: ...


def _served(request: Request) -> MemoriesServed:
    served: MemoriesServed = request.app.state.runtime  # app.main checks that the Runtime is one
    return served


@runtime_dependency
async def get_ttl_defaults(request: Request) -> TtlTable:
    """Default time-to-live per memory type, from settings (app/memories/ttl.py)."""
    return _served(request).ttl_defaults


TtlDefaultsDep = Annotated[TtlTable, Depends(get_ttl_defaults)]
