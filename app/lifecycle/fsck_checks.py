"""fsck's checks of the stored memories themselves: duplicates, contradictions, broken validity,
records the model refuses, JSON properties that do not parse, and text that addresses a model
(pure: memories in, findings out)."""

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from app.models import Memory, to_iso
from app.storage.graph.records import properties_to_dict, unreadable_properties

# Text that addresses a model rather than recording a memory.
INJECTION_PATTERNS = [
    re.compile(p, re.IGNORECASE | re.MULTILINE)
    for p in (
        r"\b(ignore|forget|disregard)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?"
        r"(previous|prior|above|earlier|preceding)\s+(instructions|prompts?|messages|rules)",
        r"\b(reveal|print|show|repeat|output)\s+(me\s+)?(your|the)\s+"
        r"(system\s+prompt|hidden\s+instructions|instructions\s+above)",
        r"\byou\s+are\s+now\s+(in\s+)?(developer|dan|jailbreak|god|unrestricted)\s*mode",
        r"<\|im_(start|end)\|>|\[/?INST\]|<</?SYS>>",
        r"\bnew\s+(system\s+)?instructions\s*:",
        r"^\s*system\s*:\s*you\s+(must|will|are|should)\b",
    )
]


@dataclass
class Finding:
    type: str
    ids: list[str]
    detail: str
    fix: str
    safe: bool
    applied: bool = False
    llm_verdict: str | None = None  # confirmed | rejected, when the LLM pass looked at it
    llm_reason: str | None = None


@dataclass
class Stored:
    """One memory as read for checking."""

    props: dict[str, Any]  # JSON fields parsed (read as empty where they do not parse)
    replaced: bool
    invalid: str | None = None
    unreadable: dict[str, Any] = field(default_factory=dict)  # JSON property -> stored value


def stored_from(props: dict[str, Any], replaced: bool) -> Stored:
    unreadable = {key: props[key] for key in unreadable_properties(props)}
    parsed = properties_to_dict(props)
    try:
        # The model itself, not the reads' leniency (a missing timestamp is a finding here).
        Memory.model_validate(parsed)
    except ValidationError as exc:
        problem = str(exc).splitlines()[0:3]
        return Stored(parsed, replaced, "; ".join(problem), unreadable)
    return Stored(parsed, replaced, unreadable=unreadable)


def normalised(content: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", content.lower()).split())


def duplicates(memories: Iterable[Stored]) -> list[Finding]:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for m in memories:
        p = m.props
        if not p.get("archived") and isinstance(p.get("content"), str) and m.invalid is None:
            groups[(p["user_id"], p.get("agent_id"), normalised(p["content"]))].append(p)
    findings = []
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda p: (-float(p.get("importance", 0)), p["created_at"], p["id"]))
        findings.append(
            Finding(
                "duplicate",
                [p["id"] for p in group],
                f"{len(group)} memories with the same content in one scope",
                f"keep {group[0]['id']} (most important, then oldest); archive the others",
                True,
            )
        )
    return findings


def _current(m: Stored, stamp: str) -> bool:
    p = m.props
    return not (
        p.get("archived")
        or m.replaced
        or p.get("superseded_by")
        or (p.get("t_invalid") and p["t_invalid"] <= stamp)
    )


def contradictions(memories: Iterable[Stored], now: datetime) -> list[Finding]:
    stamp = to_iso(now)
    slots: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for m in memories:
        if m.props.get("slot") and _current(m, stamp):
            slots[(m.props["user_id"], m.props.get("agent_id"), m.props["slot"])].append(m.props)
    findings = []
    for (_, _, slot), group in slots.items():
        if len({p.get("content_hash") for p in group}) < 2:
            continue
        group.sort(key=lambda p: (p.get("t_valid") or p["created_at"], p["id"]))
        findings.append(
            Finding(
                "contradiction",
                [p["id"] for p in group],
                f"{len(group)} current memories give different values for '{slot}'",
                f"invalidate the older ones (t_invalid = the t_valid of {group[-1]['id']})",
                False,
            )
        )
    return findings


def broken_validity(memories: Iterable[Stored]) -> list[Finding]:
    return [
        Finding(
            "broken_validity",
            [m.props["id"]],
            f"t_invalid {m.props['t_invalid']} is not after t_valid {m.props['t_valid']}",
            "correct t_valid, or clear t_invalid",
            False,
        )
        for m in memories
        if m.props.get("t_invalid")
        and m.props.get("t_valid")
        and str(m.props["t_invalid"]) <= str(m.props["t_valid"])
    ]


def invalid(memories: Iterable[Stored]) -> list[Finding]:
    return [
        Finding(
            "invalid",
            [m.props.get("id", "?")],
            f"fails the memory model: {m.invalid}",
            "edit the memory (PATCH) or delete it",
            False,
        )
        for m in memories
        if m.invalid is not None
    ]


def unreadable(memories: Iterable[Stored]) -> list[Finding]:
    """JSON properties whose stored value does not parse (reads take them as empty)."""
    return [
        Finding(
            "unreadable_property",
            [m.props.get("id", "?")],
            f"not valid JSON, read as empty: {', '.join(sorted(m.unreadable))}",
            "set each to its empty value ({} or no artifacts)",
            True,
        )
        for m in memories
        if m.unreadable
    ]


def injections(memories: Iterable[Stored]) -> list[Finding]:
    findings = []
    for m in memories:
        content = m.props.get("content")
        if m.props.get("archived") or not isinstance(content, str):
            continue
        hit = next((p.search(content) for p in INJECTION_PATTERNS if p.search(content)), None)
        if hit:
            findings.append(
                Finding(
                    "prompt_injection",
                    [m.props["id"]],
                    f"reads as instructions: {hit.group(0)!r}",
                    "archive it (quarantine); restore by PATCH if it is legitimate",
                    True,
                )
            )
    return findings
