"""Erasure for operators (admin key): a whole user, or any one memory."""

from typing import Annotated, Any

from fastapi import APIRouter, Path

from app.deps import AdminDep, MemoryIdDep, StoresDep
from app.memories.erase import erase_memory, erase_user
from app.validation import MAX_USER_ID_CHARS, USER_ID_PATTERN

router = APIRouter(tags=["operations"])

UserId = Annotated[str, Path(min_length=1, max_length=MAX_USER_ID_CHARS, pattern=USER_ID_PATTERN)]


@router.delete("/admin/users/{user_id}")
async def erase_user_data(user_id: UserId, stores: StoresDep, admin: AdminDep) -> dict[str, Any]:
    """Erases everything of a user: every memory (live or deleted) with all revisions, its
    vectors, the user's entities, patterns and sessions. Tombstones (ids, times, actor, content
    hash) and audit events stay. Idempotent: an interrupted erasure finishes when repeated."""
    report = await erase_user(stores, user_id, actor=admin.actor)
    return {"status": "success", "user_id": user_id, **report.as_dict()}


@router.delete("/admin/memories/{memory_id}")
async def erase_any_memory(
    memory_id: MemoryIdDep, stores: StoresDep, admin: AdminDep
) -> dict[str, Any]:
    """Erases one memory of any user, and the summaries consolidated from it."""
    report = await erase_memory(stores, memory_id, actor=admin.actor)
    return {"status": "success", "memory_id": memory_id, **report.as_dict()}
