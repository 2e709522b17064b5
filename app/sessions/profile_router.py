"""GET /profile: what is known about the caller now, in one call (for a system prompt).

The current facts /remember extracted, grouped by attribute, each with where it was said, and
the newest reflection. The caller's scope decides what is read (X-Agent-Id as for other reads).
"""

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.deps import ScopeDep, StoresDep
from app.memories.schemas import MemoryOut, public
from app.models import Memory
from app.remember import attributes
from app.storage.graph import reflections

router = APIRouter(tags=["remember"])


class ProfileFact(BaseModel):
    id: str = Field(description="The fact's memory id.")
    content: str = Field(description="The fact in words: “User lives in Berlin.”")
    slot: str = Field(description="`attribute` or `attribute:item`.")
    value: str | None = Field(description="The value; for a multi-valued attribute, its state.")
    timestamp: str = Field(description="When it was said (or happened).")
    layer: str = Field(description="raw or consolidated.")
    source: dict[str, Any] = Field(description="message_ids, turn_ids and session_id.")


class ProfileResponse(BaseModel):
    status: Literal["success"] = "success"
    reflection: MemoryOut | None = Field(description="The newest current reflection, if any.")
    attributes: dict[str, list[ProfileFact]] = Field(
        description="Current facts by attribute (name, residence, job_title, likes…)."
    )
    count: int = Field(description="Current facts in all attributes.")


@router.get("/profile", response_model=ProfileResponse)
async def profile(stores: StoresDep, scope: ScopeDep) -> ProfileResponse:
    """The caller's current facts grouped by attribute, and their newest reflection."""
    facts = await reflections.current_facts(stores.graph, scope)
    reflection = await reflections.current_reflection(stores.graph, scope)
    return ProfileResponse(
        reflection=MemoryOut(**public(reflection)) if reflection is not None else None,
        attributes=grouped(facts),
        count=len(facts),
    )


def grouped(facts: list[Memory]) -> dict[str, list[ProfileFact]]:
    by_attribute: dict[str, list[ProfileFact]] = {}
    for fact in facts:
        attribute = attributes.attribute_name(fact.slot or "")
        by_attribute.setdefault(attribute, []).append(_profile_fact(fact))
    return by_attribute


def _profile_fact(fact: Memory) -> ProfileFact:
    keys = ("message_ids", "turn_ids", "session_id")
    return ProfileFact(
        id=fact.id,
        content=fact.content,
        slot=fact.slot or "",
        value=(fact.metadata.get("remember") or {}).get("value"),
        timestamp=fact.timestamp,
        layer=fact.layer.value,
        source={key: fact.source.get(key) for key in keys},
    )
