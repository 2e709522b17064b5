"""GET /memory: the caller's memories, filtered and sorted, with cursor paging."""

from fastapi import APIRouter

from app.deps import ScopeDep, StoresDep
from app.memories.listing_page import ListFiltersDep, ListResponse, list_page

router = APIRouter(tags=["memories"])


@router.get("/memory", response_model=ListResponse)
async def list_memories(
    stores: StoresDep, scope: ScopeDep, filters: ListFiltersDep
) -> ListResponse:
    """Your memories (in your scope), newest first by default, a page at a time.

    Follow `next_cursor` until it is null. With a `labels` filter a page may hold fewer than
    `limit` memories while `next_cursor` is still set: keep following it. `include_total=true`
    adds `total`, the memories the filters let through in all (a `labels` filter counts by its
    keys only)."""
    return await list_page(stores, scope, filters)
