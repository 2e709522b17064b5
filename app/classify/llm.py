"""Classification by an LLM, for content no pattern matches; never fails, falls back to Context."""

import math
from typing import Any

from app.classify.patterns import classify_by_patterns
from app.classify.result import Classification, ClassificationStats
from app.llm import CallBudget, LLMClient, LLMUnavailable
from app.models import TYPE_ALIASES, MemoryType

SYSTEM_PROMPT = """You are a memory classification system. Classify each memory into exactly ONE of these types:
- Decision: Choices made, selected options, what was decided
- Pattern: Recurring behaviors, typical approaches, consistent tendencies
- Preference: Likes/dislikes, favorites, personal tastes
- Style: Communication approach, formatting, tone used
- Habit: Regular routines, repeated actions, schedules
- Insight: Discoveries, learnings, realizations, key findings
- Context: Situational background, what was happening, circumstances
- Fact: Lasting facts about people, places or things (names, relationships, where someone lives or works)
- Event: Something that happened, or is planned, at a particular time

Return JSON with: {"type": "<type>", "confidence": <0.0-1.0>}"""  # noqa: E501

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": [t.value for t in MemoryType]},
        "confidence": {"type": "number"},
    },
    "required": ["type", "confidence"],
    "additionalProperties": False,
}
SCHEMA_NAME = "memory_classification"
MAX_CONTENT_CHARS = 1000
MAX_TOKENS = 50
TEMPERATURE = 0.3

DEFAULT_LLM_CONFIDENCE = 0.7
UNMAPPABLE_CONFIDENCE = 0.5
FALLBACK = Classification(MemoryType.CONTEXT, 0.3, "fallback", needs_reclassification=True)

# Words LLMs answer with that app.models.TYPE_ALIASES does not know; keys lowercase.
EXTRA_ALIASES: dict[str, MemoryType] = {
    "analysis": MemoryType.INSIGHT,
    "finding": MemoryType.INSIGHT,
    "discovery": MemoryType.INSIGHT,
    "realization": MemoryType.INSIGHT,
    "realisation": MemoryType.INSIGHT,
    "decisions": MemoryType.DECISION,
    "patterns": MemoryType.PATTERN,
    "behavior": MemoryType.PATTERN,
    "behaviour": MemoryType.PATTERN,
    "like": MemoryType.PREFERENCE,
    "taste": MemoryType.PREFERENCE,
    "tone": MemoryType.STYLE,
    "formatting": MemoryType.STYLE,
    "habits": MemoryType.HABIT,
    "schedule": MemoryType.HABIT,
    "insights": MemoryType.INSIGHT,
    "background": MemoryType.CONTEXT,
    "situation": MemoryType.CONTEXT,
    "semantic": MemoryType.FACT,
    "knowledge": MemoryType.FACT,
    "events": MemoryType.EVENT,
    "meeting": MemoryType.EVENT,
    "appointment": MemoryType.EVENT,
}


def normalize_type(raw: Any) -> MemoryType | None:
    """The MemoryType an LLM's answer names, through the aliases; None if it names none."""
    if not isinstance(raw, str):
        return None
    key = raw.strip().strip("*.`'\"").strip().lower()
    return TYPE_ALIASES.get(key) or EXTRA_ALIASES.get(key)


def confidence_of(raw: Any) -> float:
    """The answer's confidence clamped to [0, 1]; 0.7 when it is missing or not a number."""
    if isinstance(raw, bool):
        return DEFAULT_LLM_CONFIDENCE
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return DEFAULT_LLM_CONFIDENCE
    return min(1.0, max(0.0, value)) if math.isfinite(value) else DEFAULT_LLM_CONFIDENCE


def from_answer(answer: dict[str, Any]) -> Classification:
    """The classification an LLM answer stands for; unmappable types become Context 0.5."""
    memory_type = normalize_type(answer.get("type"))
    if memory_type is None:
        return Classification(MemoryType.CONTEXT, UNMAPPABLE_CONFIDENCE, "llm_unmappable")
    return Classification(memory_type, confidence_of(answer.get("confidence")), "llm")


async def classify_with_llm(
    client: LLMClient | None,
    content: str,
    budget: CallBudget | None = None,
    *,
    stats: ClassificationStats | None = None,
) -> Classification:
    """The LLM's type for `content`; Context 0.3 (to reclassify later) if no LLM answers."""
    if client is None:
        if stats is not None:
            stats.record_fallback()
        return FALLBACK
    if stats is not None:
        stats.llm_attempts += 1
    try:
        answer = await client.chat_json(
            SYSTEM_PROMPT,
            content[:MAX_CONTENT_CHARS],
            schema=SCHEMA,
            schema_name=SCHEMA_NAME,
            max_tokens=MAX_TOKENS,
            temperature=TEMPERATURE,
            budget=budget,
        )
    except LLMUnavailable as exc:
        if stats is not None:
            stats.record_fallback(exc)
        return FALLBACK
    result = from_answer(answer)
    if stats is not None:
        stats.llm_successes += 1
        if result.method == "llm_unmappable":
            stats.llm_unmappable += 1
    return result


async def classify(
    content: str,
    client: LLMClient | None = None,
    budget: CallBudget | None = None,
    *,
    stats: ClassificationStats | None = None,
) -> Classification:
    """Patterns first, then the LLM, then the fallback: a memory without an explicit type."""
    by_pattern = classify_by_patterns(content, stats=stats)
    if by_pattern is not None:
        return by_pattern
    return await classify_with_llm(client, content, budget, stats=stats)
