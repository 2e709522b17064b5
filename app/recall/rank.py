"""Fusion and scoring, pure: ids and channel scores in, ordered scored candidates out.

final = w_match·match + w_importance·importance + w_confidence·confidence + w_recency·recency
        − layer penalty (raw −0.05, raw-and-superseded −0.15, as in mnemory)

`match` is weighted reciprocal-rank fusion of the channels, normalised to [0, 1] by the best
possible fused score, so it does not depend on how many channels ran. Every term is returned in
`components`, so a client can see why a memory ranked where it did.
"""

import math
from dataclasses import dataclass, field
from datetime import datetime

# Small k: top ranks dominate. On LoCoMo, k=5 gave recall@10 0.67 where k=60 gave 0.59.
RRF_K = 5


@dataclass(frozen=True)
class Weights:
    match: float = 1.0
    importance: float = 0.1
    confidence: float = 0.05
    recency: float = 0.1
    recency_half_life_days: float = 180.0
    recency_curve: str = "exp"  # exp: 0.5^(age/half_life); linear: 1 - age/(2·half_life)
    raw_penalty: float = 0.05
    superseded_penalty: float = 0.15
    channel_weights: dict[str, float] = field(
        default_factory=lambda: {"dense": 1.0, "bm25": 1.5, "context": 0.5}
    )
    rrf_k: int = RRF_K


@dataclass
class Candidate:
    id: str
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> 0-based rank
    scores: dict[str, float] = field(default_factory=dict)  # channel -> raw channel score


@dataclass
class Scored:
    id: str
    score: float
    match: float
    components: dict[str, float]


def fuse(channels: dict[str, list[tuple[str, float]]]) -> dict[str, Candidate]:
    """Merges ranked channel hits [(id, score), …] into candidates keyed by id."""
    merged: dict[str, Candidate] = {}
    for channel, hits in channels.items():
        for rank, (memory_id, score) in enumerate(hits):
            candidate = merged.setdefault(memory_id, Candidate(memory_id))
            candidate.ranks[channel] = rank
            candidate.scores[channel] = score
    return merged


def match_score(candidate: Candidate, weights: Weights, channels: list[str]) -> float:
    """Weighted RRF over the channels that ran, normalised so rank 0 everywhere gives 1."""
    best = sum(weights.channel_weights.get(c, 1.0) / weights.rrf_k for c in channels)
    if not best:
        return 0.0
    fused = sum(
        weights.channel_weights.get(c, 1.0) / (weights.rrf_k + rank)
        for c, rank in candidate.ranks.items()
    )
    return fused / best


def recency(timestamp: str | None, now: datetime, weights: Weights) -> float:
    """1 for now, decaying with age (days) by the configured curve."""
    if not timestamp:
        return 0.0
    age_days = max(0.0, (now - datetime.fromisoformat(timestamp)).total_seconds() / 86_400)
    if weights.recency_curve == "linear":
        return max(0.0, 1 - age_days / (2 * weights.recency_half_life_days))
    return math.pow(0.5, age_days / weights.recency_half_life_days)


def layer_penalty(layer: str, superseded: bool, weights: Weights) -> float:
    if layer != "raw":
        return 0.0
    return weights.superseded_penalty if superseded else weights.raw_penalty


def score(
    candidate: Candidate,
    memory: dict,
    *,
    now: datetime,
    weights: Weights,
    channels: list[str],
    adjust: bool = True,
) -> Scored:
    """The final score of one candidate and its components; `adjust=False` keeps pure match."""
    match = match_score(candidate, weights, channels)
    components = {
        "match": round(match, 6),
        "vector": round(candidate.scores.get("dense", 0.0), 6),
        "keyword": round(candidate.scores.get("bm25", candidate.scores.get("fulltext", 0.0)), 6),
    }
    if not adjust:
        return Scored(candidate.id, match, match, components)
    terms = {
        "importance": weights.importance * float(memory.get("importance", 0.5)),
        "confidence": weights.confidence * float(memory.get("confidence", 0.5)),
        "recency": weights.recency * recency(memory.get("timestamp"), now, weights),
        "layer_penalty": -layer_penalty(
            memory.get("layer", ""), bool(memory.get("superseded")), weights
        ),
    }
    total = weights.match * match + sum(terms.values())
    components.update({key: round(value, 6) for key, value in terms.items()})
    return Scored(candidate.id, total, match, components)


def rank(scored: list[Scored]) -> list[Scored]:
    """Best first; ties broken by match, then id, so the order is stable."""
    return sorted(scored, key=lambda s: (-s.score, -s.match, s.id))
