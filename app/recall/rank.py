"""Fusion and scoring, pure: ids and channel scores in, ordered scored candidates out.

final = w_match·match + w_importance·importance + w_confidence·confidence + w_recency·recency
        + w_relevance·relevance + name − layer penalty (raw −0.05, raw-and-superseded −0.15,
        as in mnemory) − question − outdated − speaker

`question` takes a share of the rest away from a memory that asks more than it tells: the share
of its sentences that are questions times `question` (0.5). A chat turn that asks "Who's your
favourite player?" shares the words of a question about that player but rarely holds the answer,
which the next turn gives (and the context lift reaches). A turn that also states something
("I just adopted a cat. Any name ideas?") is not penalised: it is evidence of what it states.

`speaker` takes a share away from a memory of the other role than the query asks for: a
question about the user ("what is my dog's name?") is answered by what the user said, not by the
assistant's restatement ("Congratulations on your new puppy, Max!"), and a question about what
the assistant said ("what did you recommend?") by the assistant's turns (asking.py).

`relevance` is the lifecycle's stored relevance_score (app/lifecycle/relevance.py: age by type,
use, links, importance); a memory not yet scored counts as UNSCORED_RELEVANCE, so ranking is
unchanged until the first decay pass. Its weight is small (at most 0.05 by default): it
reorders near-ties in favour of memories still in use, not a clearly better match.

`match` is weighted reciprocal-rank fusion of the ranked channels (dense, bm25), normalised to
[0, 1] by the best possible fused score, so it does not depend on how many channels ran; plus the
weighted reciprocal rank in the feedback channel (prf, feedback.py), outside the normaliser; plus
`context`, the lift a conversation turn gets from a neighbouring turn that matched (a share of
that turn's fused match). `name` rewards a memory that starts with, or else mentions, a person
the query names. Every term is returned in `components`, so a client can see why a memory
ranked where it did.
"""

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from app.models import MemoryProps, spoken_text
from app.recall.constants import ADAPTIVE_GAP, STATEMENT_WORDS, UNSCORED_RELEVANCE

CONTEXT = "context"  # not a ranked channel: its candidates carry a lift, not a rank
PRF = "prf"  # pseudo-relevance feedback (feedback.py): a bonus, left out of the normaliser


@dataclass(frozen=True, kw_only=True)
class Weights:
    """The scoring's weights. No defaults here: they are the RECALL_* settings' (app/config.py),
    built into Weights by app/recall/tuning.py; `default_recall_config()` there gives them."""

    importance: float
    confidence: float
    recency: float
    relevance: float
    recency_half_life_days: float
    recency_curve: str  # exp: 0.5^(age/half_life); linear: 1 - age/(2·half_life)
    raw_penalty: float
    superseded_penalty: float
    channel_weights: dict[str, float]  # dense, bm25, prf, window
    rrf_k: int
    context: float  # a neighbouring turn's lift: this share of the matching turn's match
    name_lead: float  # the memory starts with a person the query names (its speaker)
    name_mention: float  # … or mentions one elsewhere
    context_priority: float  # the memory has one of context_tags (prefix) / context_types
    question: float  # share of the score taken from a memory that is all questions
    outdated: float  # share taken from a turn whose fact a newer one superseded
    speaker: float  # share taken from a memory of the other role than the query asks for
    latest: float  # a question about the value now: the latest of its results gains this much
    # auto_decompose: a sub-query's best match is rank 0 however loosely it matches ("Alice" finds
    # every note about Alice), so its matches count for this share of the query's own.
    sub_query_share: float
    match: float = 1.0  # the unit the others are measured in, not a knob


@dataclass(frozen=True)
class ContextPriority:
    """A soft boost (AutoMem's context_tags / context_types, and its language hints)."""

    tags: tuple[str, ...] = ()  # lower-cased; matched against the memory's tag prefixes
    types: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tags or self.types)

    def matches(self, memory: MemoryProps) -> float:
        """1.0 if the memory has one of the tags (as a prefix) or types, else 0.0."""
        prefixes = set(memory.get("tag_prefixes") or ())
        hit = bool(prefixes.intersection(self.tags)) or memory.get("type") in self.types
        return 1.0 if hit else 0.0


@dataclass
class Candidate:
    id: str
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> 0-based rank
    scores: dict[str, float] = field(default_factory=dict)  # channel -> raw channel score
    context: float = 0.0  # lift from a neighbouring turn that matched (context_lift)
    share: float = 1.0  # how much its query's match counts (a sub-query's: sub_query_share)


@dataclass
class Scored:
    id: str
    score: float
    match: float
    components: dict[str, float]


def fuse(channels: dict[str, list[tuple[str, float]]], share: float = 1.0) -> dict[str, Candidate]:
    """Merges ranked channel hits [(id, score), …] into candidates keyed by id."""
    merged: dict[str, Candidate] = {}
    for channel, hits in channels.items():
        for rank, (memory_id, score) in enumerate(hits):
            candidate = merged.get(memory_id)
            if candidate is None:  # not setdefault: it would build a Candidate for every hit
                candidate = merged[memory_id] = Candidate(memory_id, share=share)
            candidate.ranks[channel] = rank
            candidate.scores[channel] = score
    return merged


def match_score(candidate: Candidate, weights: Weights, channels: list[str]) -> float:
    """Weighted RRF over the ranked channels that ran, normalised so rank 0 everywhere gives 1,
    plus the candidate's context lift."""
    return fused_score(candidate, weights, channels) + candidate.context


def fused_score(candidate: Candidate, weights: Weights, channels: list[str]) -> float:
    """Weighted RRF over the ranked channels that ran, normalised so rank 0 everywhere gives 1,
    times the candidate's share."""
    return _normalised_rrf(candidate, weights, _best_rrf(weights, channels))


def fused_scores(
    candidates: Iterable[Candidate], weights: Weights, channels: list[str]
) -> dict[str, float]:
    """fused_score of each candidate, by id (the normaliser computed once)."""
    best = _best_rrf(weights, channels)
    return {c.id: _normalised_rrf(c, weights, best) for c in candidates}


def _best_rrf(weights: Weights, channels: list[str]) -> float:
    """The weighted RRF of rank 0 in every ranked channel that ran."""
    ranked = (c for c in channels if c not in (CONTEXT, PRF))
    return sum(weights.channel_weights.get(c, 1.0) / weights.rrf_k for c in ranked)


def _normalised_rrf(candidate: Candidate, weights: Weights, best: float) -> float:
    if not best:
        return 0.0
    fused = sum(
        weights.channel_weights.get(c, 1.0) / (weights.rrf_k + rank)
        for c, rank in candidate.ranks.items()
        if c != CONTEXT
    )
    return candidate.share * fused / best


def context_lift(seed_match: float, weights: Weights) -> float:
    """What a turn gets from a neighbouring turn (just before or after it) that matched.

    An answer often sits next to the turn that shares the question's words ("What inspired
    you?" — "Nature, mostly"); it gets a share of that turn's fused match.
    """
    return weights.context * seed_match


def name_term(content: str, names: Sequence[str], weights: Weights) -> float:
    """name_lead if the memory starts with a person the query names (a chat turn's speaker,
    "Caroline: …", or a note's subject, "Caroline's …"), name_mention if it names one
    elsewhere, else 0. Whole words; case-insensitive, so "CAROLINE:" counts too.

    String search, not a regular expression: every query names other people, and compiling
    a pattern for each query costs more than the search."""
    if not names or not content:
        return 0.0
    text = content.lower()
    first_letter = next((i for i, char in enumerate(text) if char.isalpha()), len(text))
    wanted = [name.lower() for name in names]
    if any(_whole_word_at(text, first_letter, name) for name in wanted):
        return weights.name_lead
    return weights.name_mention if any(_has_word(text, name) for name in wanted) else 0.0


def _whole_word_at(text: str, start: int, word: str) -> bool:
    end = start + len(word)
    return (
        text.startswith(word, start)
        and (start == 0 or not text[start - 1].isalpha())
        and (end == len(text) or not text[end].isalpha())
    )


def _has_word(text: str, word: str) -> bool:
    start = text.find(word)
    while start >= 0:
        if _whole_word_at(text, start, word):
            return True
        start = text.find(word, start + 1)
    return False


def recency(timestamp: str | None, now: datetime, weights: Weights) -> float:
    """1 for now, decaying with age (days) by the configured curve."""
    if not timestamp:
        return 0.0
    age_days = max(0.0, (now - datetime.fromisoformat(timestamp)).total_seconds() / 86_400)
    if weights.recency_curve == "linear":
        return max(0.0, 1 - age_days / (2 * weights.recency_half_life_days))
    return math.pow(0.5, age_days / weights.recency_half_life_days)


def _relevance(stored: float | None) -> float:
    return UNSCORED_RELEVANCE if stored is None else float(stored)


def layer_penalty(layer: str, superseded: bool, weights: Weights) -> float:
    if layer != "raw":
        return 0.0
    return weights.superseded_penalty if superseded else weights.raw_penalty


def score(
    candidate: Candidate,
    memory: MemoryProps,
    *,
    now: datetime,
    weights: Weights,
    channels: list[str],
    adjust: bool = True,
    names: Sequence[str] = (),
    priority: "ContextPriority | None" = None,
    fused: float | None = None,
    speaker: str | None = None,
) -> Scored:
    """The final score of one candidate and its components; `adjust=False` keeps pure match.

    `memory` holds the ranking facts (importance, confidence, timestamp, layer, superseded, and
    content for the name term); `names` are the people the query names (names.query_names);
    `fused` is the candidate's fused_score, if the caller has it already; `speaker` the role
    whose words the query asks for (asking.wanted_speaker), if any.
    """
    if fused is None:
        fused = fused_score(candidate, weights, channels)
    match = fused + candidate.context
    scores = candidate.scores
    # Unrounded: the response rounds the components of the results it shows (a recall scores
    # several times more candidates than it shows, and round() is costly here).
    components = {
        "match": match,
        "vector": scores.get("dense", 0.0),
        "keyword": scores.get("bm25", scores.get("fulltext", 0.0)),
    }
    if candidate.context:
        components["context"] = candidate.context
    if not adjust:
        return Scored(candidate.id, match, match, components)
    terms = {
        "importance": weights.importance * float(memory.get("importance", 0.5)),
        "confidence": weights.confidence * float(memory.get("confidence", 0.5)),
        "recency": weights.recency * recency(memory.get("timestamp"), now, weights),
        "relevance": weights.relevance * _relevance(memory.get("relevance_score")),
        "layer_penalty": -layer_penalty(
            memory.get("layer", ""), bool(memory.get("superseded_by")), weights
        ),
    }
    if names:
        terms["name"] = name_term(text_of(memory), names, weights)
    if priority:
        terms["context_priority"] = weights.context_priority * priority.matches(memory)
    total = weights.match * match + sum(terms.values())
    asks = question_share(text_of(memory)) if weights.question else 0.0
    if asks:
        terms["question"] = -weights.question * asks * max(total, 0.0)
        total += terms["question"]
    if memory.get("outdated_by") and weights.outdated:
        terms["outdated"] = -weights.outdated * max(total, 0.0)
        total += terms["outdated"]
    if speaker and weights.speaker and memory.get("role", speaker) != speaker:
        terms["speaker"] = -weights.speaker * max(total, 0.0)
        total += terms["speaker"]
    components.update(terms)
    return Scored(candidate.id, total, match, components)


def text_of(memory: MemoryProps) -> str:
    """A memory's text as it is searched (a transcript turn's with its speaker in front)."""
    content = memory.get("content") or ""
    return spoken_text(content, memory.get("speaker"), memory.get("layer"), memory.get("role"))


_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def question_share(content: str) -> float:
    """The share of the content's sentences that end with a question mark (0 for none), and 0
    for a memory that also states something: a sentence of STATEMENT_WORDS words or more that
    is not a question ("I just switched to a Ford F-150 model. Any tips on decals?" is evidence
    of what it states; "That's great! What inspired you?" asks).

    Linear in the content: one pass over it."""
    if "?" not in content:
        return 0.0
    sentences = asked = start = 0
    for end in _SENTENCE_END.finditer(content):
        sentence = content[start : end.start()]
        if sentence.strip():
            sentences += 1
            if "?" in end.group():
                asked += 1
            elif len(sentence.split()) >= STATEMENT_WORDS:
                return 0.0
        start = end.end()
    rest = content[start:]
    if rest.strip():
        sentences += 1
        if len(rest.split()) >= STATEMENT_WORDS:
            return 0.0
    return asked / sentences if sentences else 0.0


def adaptive_cut(scores: Sequence[float]) -> int:
    """AutoMem's adaptive floor: how many of `scores` (best first) to keep.

    With more than 3 scores, the largest drop after one of the first max(3, n // 2) is found; if
    it exceeds 25% of the top score, everything below it goes, provided ceil(n / 2) remain.
    """
    n = len(scores)
    if n <= 3 or scores[0] <= 0:
        return n
    window = min(max(3, n // 2), n - 1)
    gap, position = max((scores[i] - scores[i + 1], -i) for i in range(window))
    keep = 1 - position
    return keep if gap > ADAPTIVE_GAP * scores[0] and keep >= math.ceil(n / 2) else n


def rank(scored: list[Scored]) -> list[Scored]:
    """Best first; ties broken by match, then id, so the order is stable."""
    return sorted(scored, key=lambda s: (-s.score, -s.match, s.id))
