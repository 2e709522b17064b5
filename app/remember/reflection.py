"""Reflection: every REFLECTION_EVERY user messages, a short profile of the user's current facts.

A reflection is an Insight memory in the user's shared scope (`metadata.reflection = true`),
with `metadata.traits` ({attribute: [values]}, always read off the facts) and DERIVED_FROM edges
to the facts it read. Its content is the LLM's reflection when one is configured and answers,
otherwise (visibly: `llm_error`) the deterministic profile: "Marta: lives in Berlin; works as a
UX designer; partner is Tom; loves hiking." A new reflection supersedes the previous one
(t_invalid and INVALIDATED_BY: the history is kept).
"""

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from app.jobs.kinds import REFLECT
from app.llm import LLMUnavailable
from app.memories.build import build_memory
from app.memories.edits import mirror_update
from app.memories.fields import MAX_CONTENT_CHARS
from app.memories.schemas import MemoryCreate
from app.memories.service import store_memories
from app.models import Memory, MemoryType, to_iso, utc_now
from app.remember import attributes
from app.remember.facts import USER
from app.remember.pipeline import Conversation, RememberDeps
from app.remember.transcript import Kept
from app.scope import Scope
from app.storage.graph import reflections
from app.storage.graph import relations as edges

log = logging.getLogger(__name__)

ACTOR = "reflection"
UNNAMED = "User"
REFLECTION_SCHEMA = {
    "type": "object",
    "properties": {"reflection": {"type": "string"}},
    "required": ["reflection"],
    "additionalProperties": False,
}
REFLECTION_PROMPT = (
    "You write a short profile of a person from the facts known about them now, for an "
    "assistant's system prompt: two or three plain sentences, third person, using their name "
    "if known. Use only the facts given; never invent or guess."
)


@dataclass
class Reflected:
    method: str = "profile"
    reflection: str | None = None
    sources: int = 0
    superseded: str | None = None
    llm_error: str | None = None
    traits: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def new_user_messages(talk: Conversation, kept: Kept) -> int:
    """The user messages of the call that this job stored (repeats of stored ones count none)."""
    return len(
        {t.message_id for t in talk.turns if t.role == USER and t.message_id in kept.new_messages}
    )


async def count_and_schedule(
    deps: RememberDeps, talk: Conversation, kept: Kept, *, job: str, every: int
) -> str | None:
    """Counts the call's new user messages; queues a reflection when the user's count crosses a
    multiple of `every` (REFLECTION_EVERY; 0 = off). Returns the reflect job's id, if queued."""
    count = new_user_messages(talk, kept)
    if every <= 0 or count == 0:
        return None
    graph = deps.stores.graph
    before, after = await reflections.count_user_messages(graph, talk.user_id, count, job=job)
    if after // every == before // every:
        return None
    enqueued = await deps.jobs.enqueue(REFLECT, [talk.user_id, str(after // every)], {})
    return enqueued.job_id


async def reflect(deps: RememberDeps, user_id: str) -> Reflected:
    """Writes the user's reflection of their current facts; supersedes the previous one."""
    scope = Scope(user_id, None)
    facts = await reflections.current_facts(deps.stores.graph, scope)
    result = Reflected(sources=len(facts), traits=traits_of(facts))
    if not facts:
        return result
    content = profile_text(facts)
    if deps.llm is not None:
        try:
            content = await _llm_reflection(deps, facts)
            result.method = "llm"
        except LLMUnavailable as exc:  # the deterministic profile still reflects, visibly
            result.llm_error = str(exc)
    previous = await reflections.current_reflection(deps.stores.graph, scope)
    memory = _reflection_memory(scope, content, result.traits, facts)
    await store_memories(
        stores=deps.stores,
        scope=scope,
        actor=ACTOR,
        memories=[memory],
        vectors={memory.id: None},
        in_conversation=False,
    )
    await _link_sources(deps, scope, memory, facts)
    await reflections.set_current(deps.stores.graph, user_id, memory.id, to_iso(utc_now()))
    if previous is not None and await _supersede(deps, scope, previous, memory):
        result.superseded = previous.id
    result.reflection = memory.id
    return result


def traits_of(facts: list[Memory]) -> dict[str, list[str]]:
    """{attribute: [values]}: a single-valued attribute's value, a multi-valued one's items."""
    traits: dict[str, list[str]] = {}
    for fact in _in_profile_order(facts):
        attribute, value = _trait(fact)
        values = traits.setdefault(attribute, [])
        if value not in values:
            values.append(value)
    return traits


def profile_text(facts: list[Memory]) -> str:
    """ "Marta: lives in Berlin; works as a UX designer; loves hiking.": the facts' own words."""
    ordered = _in_profile_order(facts)
    names = [_value(f) for f in ordered if attributes.attribute_name(f.slot or "") == "name"]
    phrases = [_phrase(f) for f in ordered if attributes.attribute_name(f.slot or "") != "name"]
    heading = names[-1] if names else UNNAMED
    return f"{heading}: {'; '.join(dict.fromkeys(phrases))}." if phrases else f"{heading}."


def _in_profile_order(facts: list[Memory]) -> list[Memory]:
    """The taxonomy's order (name, age, … residence, employer, job…), then oldest first."""
    rank = {name: i for i, name in enumerate(attributes.ATTRIBUTES)}
    return sorted(
        facts,
        key=lambda f: (rank.get(attributes.attribute_name(f.slot or ""), len(rank)), f.timestamp),
    )


def _value(fact: Memory) -> str:
    return str((fact.metadata.get("remember") or {}).get("value") or "")


def _trait(fact: Memory) -> tuple[str, str]:
    slot = fact.slot or ""
    attribute, value = attributes.attribute_name(slot), _value(fact)
    if not attributes.is_multi_valued(slot):
        return attribute, value
    item = attributes.item_of(slot)
    return attribute, item if value in (attributes.ACTIVE, "likes", "") else f"{item} ({value})"


def _phrase(fact: Memory) -> str:
    """ "User lives in Berlin." → "lives in Berlin"; "User's partner is Tom." → "partner is Tom"."""
    text = fact.content.strip().rstrip(".")
    for prefix in ("User's ", "User "):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


async def _llm_reflection(deps: RememberDeps, facts: list[Memory]) -> str:
    llm = deps.llm
    if llm is None:
        raise LLMUnavailable("no LLM is configured")
    answer = await llm.chat_json(
        REFLECTION_PROMPT,
        "Facts:\n" + "\n".join(f"- {fact.content}" for fact in facts),
        schema=REFLECTION_SCHEMA,
        schema_name="reflection",
        max_tokens=400,
        temperature=0.2,
        budget=llm.new_budget(),
    )
    text = str(answer.get("reflection") or "").strip()
    if not text:
        raise LLMUnavailable("the LLM's reflection was empty")
    return text[:2000]


def within_limit(content: str) -> str:
    """The profile cut after its last whole item that fits the content limit (the traits keep
    every fact): a user with many facts must still get a reflection."""
    if len(content) <= MAX_CONTENT_CHARS:
        return content
    cut = content[: MAX_CONTENT_CHARS - 1].rsplit("; ", 1)[0]
    return f"{cut}…"


def _reflection_memory(
    scope: Scope, content: str, traits: dict[str, list[str]], facts: list[Memory]
) -> Memory:
    data = MemoryCreate(
        content=within_limit(content),
        type=MemoryType.INSIGHT,
        confidence=min(f.confidence for f in facts),
        importance=0.8,
        categories=["reflection"],
        metadata={"reflection": True, "traits": traits},
    )
    memory = build_memory(data, scope=scope, actor=ACTOR, now=utc_now())
    memory.derived_from = [f.id for f in facts]
    return memory


async def _link_sources(
    deps: RememberDeps, scope: Scope, memory: Memory, facts: list[Memory]
) -> None:
    rows = [
        {"i": i, "a": memory.id, "b": fact.id, "strength": 1.0, "props": {"transformation": ACTOR}}
        for i, fact in enumerate(facts)
    ]
    now = to_iso(utc_now())
    await edges.create_edges(deps.stores.graph, scope, "DERIVED_FROM", rows, actor=ACTOR, now=now)


async def _supersede(deps: RememberDeps, scope: Scope, old: Memory, new: Memory) -> bool:
    """Closes the old reflection's validity where the new one starts; keeps every version."""
    now = to_iso(utc_now())
    updated = await deps.stores.graph.update_memory(
        scope, old.id, version=old.version, changes={"t_invalid": now}, actor=ACTOR, now=now
    )
    if updated is None:
        return False  # changed meanwhile: it stays current until the next reflection
    await mirror_update(deps.stores, scope, updated, None, content_changed=False)
    reason = {"reason": "a newer reflection", "timestamp": new.timestamp}
    row = {"i": 0, "a": old.id, "b": new.id, "strength": 1.0, "props": reason}
    await edges.create_edges(
        deps.stores.graph, scope, "INVALIDATED_BY", [row], actor=ACTOR, now=now
    )
    return True
