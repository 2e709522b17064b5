"""The /remember extraction pipeline: turns → facts → raw memories, deduplicated, superseding.

Exact duplicates (of a raw fact of the same owner and agent, or of another fact of the call) are
skipped before anything is embedded. Then, for each fact, one at a time (so facts of one call
deduplicate against each other):
1. exact duplicate of a raw fact of the same owner and agent (stored meanwhile) → skipped;
2. semantic duplicate (cosine ≥ REMEMBER_DEDUP_THRESHOLD) of a raw fact in the same scope →
   skipped. Consolidated memories are never touched by this step (seed 000);
3. stored as a raw memory with its vector (no second embedding), enrichment queued;
4. memories of the same owner with cosine ≥ REMEMBER_CONTRADICTION_THRESHOLD are checked for
   contradiction (the LLM when configured, else rules); a contradicted one gets `t_invalid` (a
   new version: its history is kept) and an INVALIDATED_BY edge to the new fact.

A re-run after a crash repeats nothing: the facts already stored are exact duplicates now, and
memories already invalidated are no longer current.
"""

import logging
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from app.embeddings import Embedder
from app.embeddings.passages import embed_whole
from app.jobs.queue import JobQueue
from app.llm import CallBudget, LLMClient, LLMUnavailable
from app.memories.build import build_memory
from app.memories.edits import mirror_update
from app.memories.schemas import MemoryCreate, SourceIn
from app.memories.service import store_memories
from app.models import Layer, Memory, to_iso, utc_now
from app.nlp import run_nlp
from app.remember import attributes, provenance
from app.remember.contradiction import contradicts_by_llm, contradicts_by_rules
from app.remember.facts import ASSISTANT, ExtractedFact, Turn, filter_by_attribution
from app.remember.llm_extract import InvalidAnswer, extract_facts_with_llm
from app.remember.provenance import named
from app.remember.rules import extract_facts_by_rules
from app.remember.stats import ExtractionStats
from app.remember.transcript import Kept
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import relations as edges
from app.storage.graph import sessions, transcripts
from app.storage.mirror import embedding_text
from app.storage.vectors import VectorFilter

log = logging.getLogger(__name__)

ACTOR = "remember"
CONTRADICTION_CANDIDATES = 5
REINFORCEMENT = 0.05  # confidence a repeat adds


@dataclass
class RememberConfig:
    dedup_threshold: float = 0.92
    contradiction_threshold: float = 0.7


@dataclass
class RememberDeps:
    """What the pipeline needs; the worker's dependency object provides these attributes."""

    stores: Stores
    embedder: Embedder
    jobs: JobQueue
    remember: RememberConfig = field(default_factory=RememberConfig)
    llm: LLMClient | None = None
    remember_stats: ExtractionStats = field(default_factory=ExtractionStats)
    embed_with_date: bool = True


@dataclass
class Conversation:
    """One /remember call, as its job carries it."""

    user_id: str
    scope_agent: str | None
    agent_id: str | None
    role: str | None
    session_id: str
    turns: list[Turn]
    labels: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.scope_agent)


@dataclass
class Outcome:
    turns_stored: int = 0  # transcript turns new to the session
    extractor: str = "rules"
    extracted: int = 0
    stored: list[str] = field(default_factory=list)
    duplicates: int = 0
    superseded: list[dict[str, str]] = field(default_factory=list)
    reinforced: int = 0
    dropped_by_attribution: int = 0
    llm_error: str | None = None
    elapsed_ms: float = 0.0  # the whole job, turns kept and facts stored

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def remember(deps: RememberDeps, talk: Conversation, turns: Kept | None = None) -> Outcome:
    """Extracts the facts of one call and stores what is new; returns what happened.

    `turns`: the call's transcript turns as kept (transcript.keep_turns); facts are read only
    from the messages new to the session, and each names the turns it came from."""
    outcome = Outcome()
    turns = turns or Kept()
    budget = deps.llm.new_budget() if deps.llm is not None else None  # one budget per call
    facts = await _extract(deps, _new_turns(talk, turns), outcome, budget)
    kept = filter_by_attribution(facts, talk.role, talk.agent_id)
    outcome.extracted, outcome.dropped_by_attribution = len(facts), len(facts) - len(kept)
    if not kept:
        return outcome
    built = [_fact_memory(talk, named(f, talk.turns), turns) for f in kept]
    memories = await _not_stored_yet(deps, talk, built, outcome)
    if not memories:
        return outcome
    texts = [embedding_text(m, with_date=deps.embed_with_date) for m in memories]
    vectors = await embed_whole(deps.embedder, texts)
    for memory, vector in zip(memories, vectors, strict=True):
        await _remember_one(deps, talk, memory, vector, outcome, budget)
    return outcome


async def _not_stored_yet(
    deps: RememberDeps, talk: Conversation, memories: list[Memory], outcome: Outcome
) -> list[Memory]:
    """The facts that are not exact duplicates — of a raw fact already stored, or of another fact
    of this call — so that only they are embedded (a re-run job embeds nothing it stored)."""
    keys = [(memory.agent_id, memory.content_hash) for memory in memories]
    seen: dict[tuple[str | None, str], Memory | None]
    seen = dict(await sessions.raw_by_hashes(deps.stores.graph, talk.user_id, keys))
    fresh = []
    for memory, key in zip(memories, keys, strict=True):
        if key in seen:
            outcome.duplicates += 1
            stored = seen[key]
            if stored is not None and provenance.says_more(stored, memory):
                await _reinforce(deps, Scope(talk.user_id, memory.agent_id), [stored], memory)
                outcome.reinforced += 1
            continue
        seen[key] = None
        fresh.append(memory)
    return fresh


def _new_turns(talk: Conversation, kept: Kept) -> Conversation:
    """The call with only the turns new to its session (all of them if none were kept)."""
    if not kept.turn_ids:
        return talk
    return replace(talk, turns=[t for t in talk.turns if t.message_id in kept.new_messages])


async def _extract(
    deps: RememberDeps, talk: Conversation, outcome: Outcome, budget: CallBudget | None
) -> list[ExtractedFact]:
    """The LLM's facts when one is configured and answers with valid facts; the rules'
    otherwise (visibly: the job's result and the counters of /enrichment/status)."""
    stats = deps.remember_stats
    if deps.llm is not None and talk.turns:
        stats.llm_attempts += 1
        try:
            facts = await extract_facts_with_llm(
                deps.llm, talk.turns, role=talk.role, agent_id=talk.agent_id, budget=budget
            )
            stats.llm_successes += 1
            outcome.extractor = "llm"
            return facts
        except (LLMUnavailable, InvalidAnswer) as exc:
            stats.llm_invalid_answers += isinstance(exc, InvalidAnswer)
            stats.record_fallback(exc)
            outcome.llm_error = str(exc)
    stats.rule_extractions += 1
    return await run_nlp(extract_facts_by_rules, talk.turns) if talk.turns else []


def _fact_memory(talk: Conversation, fact: ExtractedFact, turns: Kept) -> Memory:
    """A raw memory for one fact, with its provenance; past events are dated when they happened."""
    said_at = _said_at(talk, fact)
    when = fact.event_time if fact.event_time and fact.event_time <= said_at else said_at
    # Facts about the assistant survive filter_by_attribution only when the turn names an agent.
    agent = talk.agent_id if fact.subject == ASSISTANT else None
    data = MemoryCreate(
        content=fact.content,
        type=fact.type,
        confidence=fact.confidence,
        importance=fact.importance,
        categories=fact.categories,
        labels=talk.labels,
        role=fact.subject,
        ttl_days=fact.ttl_days,
        agent_id=agent,
        timestamp=when,
        metadata=_provenance(fact, said_at),
        source=SourceIn(
            session_id=talk.session_id,
            chat_id=talk.source.get("chat_id"),
            message_id=fact.message_id,
            model=talk.source.get("model"),
        ),
    )
    memory = build_memory(data, scope=talk.scope, actor=ACTOR, now=utc_now())
    memory.layer, memory.slot = Layer.RAW, fact.slot
    messages = [m for m in dict.fromkeys([fact.message_id, *fact.also_from]) if m]
    memory.source = provenance.with_turns(memory.source, messages, turns.turns_of(messages))
    return memory


def _said_at(talk: Conversation, fact: ExtractedFact) -> datetime:
    for turn in talk.turns:
        if fact.message_id and turn.message_id == fact.message_id:
            return turn.timestamp
    return talk.turns[-1].timestamp


def _said_at_of(memory: Memory) -> str:
    """When the fact was said (a past event's memory is dated when it happened)."""
    return (memory.metadata.get("remember") or {}).get("said_at") or memory.timestamp


def _provenance(fact: ExtractedFact, said_at: datetime) -> dict[str, Any]:
    found = {
        "said_at": to_iso(said_at),
        "event_time": to_iso(fact.event_time) if fact.event_time else None,
    }
    if fact.slot:
        attribute = attributes.attribute_name(fact.slot)
        found.update(
            slot=fact.slot,
            value=fact.value,
            attribute=attribute,
            cardinality=attributes.cardinality(fact.slot),
        )
    return {"remember": {k: v for k, v in found.items() if v is not None}}


async def _remember_one(
    deps: RememberDeps,
    talk: Conversation,
    memory: Memory,
    vector: list[float],
    outcome: Outcome,
    budget: CallBudget | None,
) -> None:
    scope = Scope(talk.user_id, memory.agent_id)
    graph = deps.stores.graph
    if await sessions.raw_with_hash(graph, talk.user_id, memory.agent_id, memory.content_hash):
        outcome.duplicates += 1
        return
    value, related = _value_of(memory), await _slot_related(deps, scope, memory)
    same = [m for m in related if attributes.same_fact(memory.slot, value, m.slot, _value_of(m))]
    replaced = [
        m
        for m in related
        if m not in same
        and memory.slot
        and attributes.supersedes(memory.slot, value, m.slot, _value_of(m))
    ]
    near = [] if (same or replaced) else await _near_raw_duplicate(deps, scope, vector)
    if same or near:
        await _reinforce(deps, scope, same or near, memory)
        outcome.duplicates += 1
        outcome.reinforced += len(same or near)
        return
    candidates = await _contradiction_candidates(deps, scope, vector) if deps.llm else []
    await store_memories(
        stores=deps.stores,
        scope=scope,
        actor=ACTOR,
        memories=[memory],
        vectors={memory.id: vector},
        in_conversation=False,
    )
    outcome.stored.append(memory.id)
    for old in replaced:
        if await _supersede(deps, scope, old, memory):
            outcome.superseded.append({"old": old.id, "new": memory.id})
    for old in candidates:
        if old.id in {m.id for m in replaced}:
            continue
        contradicted = await _contradicts(deps, old.content, memory.content, budget)
        if contradicted and await _supersede(deps, scope, old, memory):
            outcome.superseded.append({"old": old.id, "new": memory.id})


def _value_of(memory: Memory) -> str | None:
    return (memory.metadata.get("remember") or {}).get("value")


async def _slot_related(deps: RememberDeps, scope: Scope, memory: Memory) -> list[Memory]:
    """Current memories the new fact may repeat or end: those filling its slot; for an ending,
    every slotted memory of the scope (its item may sit in any multi-valued attribute)."""
    if not memory.slot:
        return []
    if _value_of(memory) == attributes.ENDED:
        return await sessions.slotted(deps.stores.graph, scope)
    return await sessions.same_slot(deps.stores.graph, scope, memory.slot)


async def _near_raw_duplicate(
    deps: RememberDeps, scope: Scope, vector: list[float]
) -> list[Memory]:
    """The raw fact of the scope that says the same in other words (cosine over the threshold)."""
    raw_only = VectorFilter(scope=scope, layers=[Layer.RAW.value])
    hits = await deps.stores.vectors.search_dense(vector, raw_only, 1, with_payload=False)
    if not hits or hits[0].score < deps.remember.dedup_threshold:
        return []
    found = await deps.stores.graph.get_memories(scope, [hits[0].id])
    return [m for m in found.values() if m.t_invalid is None]


async def _reinforce(deps: RememberDeps, scope: Scope, olds: list[Memory], new: Memory) -> None:
    """A repeat makes the memory it repeats surer: confidence up, one more mention recorded."""
    said_at = _said_at_of(new)
    for old in olds:
        found = dict(old.metadata.get("remember") or {})
        found.update(mentions=int(found.get("mentions") or 1) + 1, last_said_at=said_at)
        changes = {
            "confidence": round(min(1.0, max(old.confidence, new.confidence) + REINFORCEMENT), 3),
            "metadata": {**old.metadata, "remember": found},
            "source": provenance.merged(old.source, new.source),
        }
        updated = await deps.stores.graph.update_memory(
            scope,
            old.id,
            version=old.version,
            changes=changes,
            actor=ACTOR,
            now=to_iso(utc_now()),
        )
        if updated is not None:
            await mirror_update(deps.stores, scope, updated, None, content_changed=False)


async def _contradiction_candidates(
    deps: RememberDeps, scope: Scope, vector: list[float]
) -> list[Memory]:
    """Current memories of the scope close enough as vectors to be about the same thing (the
    LLM judges them; the rules judge by slot)."""
    hits = await deps.stores.vectors.search_dense(
        vector, VectorFilter(scope=scope), CONTRADICTION_CANDIDATES, with_payload=False
    )
    close = [h.id for h in hits if h.score >= deps.remember.contradiction_threshold]
    found = await deps.stores.graph.get_memories(scope, close)
    return [found[i] for i in close if i in found and found[i].t_invalid is None]


async def _contradicts(deps: RememberDeps, old: str, new: str, budget: CallBudget | None) -> bool:
    if deps.llm is not None:
        try:
            return await contradicts_by_llm(deps.llm, old, new, budget=budget)
        except LLMUnavailable:
            log.warning("contradiction check by rules: the LLM is unavailable")
    return await run_nlp(contradicts_by_rules, old, new)


async def _supersede(deps: RememberDeps, scope: Scope, old: Memory, new: Memory) -> bool:
    """Closes the old memory's validity where the new one starts; keeps every version."""
    if _said_at_of(old) > _said_at_of(new):
        return False  # the "new" fact is older news: it does not replace what was said later
    start = datetime.fromisoformat(old.t_valid or old.timestamp)
    end = max(datetime.fromisoformat(new.timestamp), start + timedelta(microseconds=1))
    now = to_iso(utc_now())
    updated = await deps.stores.graph.update_memory(
        scope,
        old.id,
        version=old.version,
        changes={"t_invalid": to_iso(end)},
        actor=ACTOR,
        now=now,
    )
    if updated is None:
        return False  # changed meanwhile; the next mention will be checked again
    await mirror_update(deps.stores, scope, updated, None, content_changed=False)
    outdated = provenance.outdated_turns(old.source, new.source)
    await transcripts.mark_outdated(deps.stores.graph, scope.user_id, outdated, new.id)
    reason = {"reason": "contradicted by a newer fact", "timestamp": new.timestamp}
    row = {"i": 0, "a": old.id, "b": new.id, "strength": 1.0, "props": reason}
    await edges.create_edges(
        deps.stores.graph, scope, "INVALIDATED_BY", [row], actor=ACTOR, now=now
    )
    return True
