"""Recall's weights, floor and channel settings, built from Settings in one place: the RECALL_*
settings hold the only defaults (the fixed numbers of the mechanisms are in constants.py)."""

from app.config import Settings
from app.recall.outcome import RecallConfig
from app.recall.rank import Weights


def default_recall_config() -> RecallConfig:
    """Recall's configuration with every setting at its default (the environment unread)."""
    return recall_config(Settings.model_construct())


def recall_config(settings: Settings) -> RecallConfig:
    """Recall's weights and floor, from settings."""
    weights = Weights(
        importance=settings.recall_weight_importance,
        confidence=settings.recall_weight_confidence,
        relevance=settings.recall_weight_relevance,
        recency=settings.recall_weight_recency,
        recency_half_life_days=settings.recall_recency_half_life_days,
        recency_curve=settings.recall_recency_curve,
        raw_penalty=settings.recall_raw_penalty,
        superseded_penalty=settings.recall_superseded_penalty,
        channel_weights={
            "dense": settings.recall_weight_dense,
            "bm25": settings.recall_weight_bm25,
            "prf": settings.recall_weight_prf,
            "window": settings.recall_weight_window,
        },
        rrf_k=settings.recall_rrf_k,
        context=settings.recall_weight_context,
        name_lead=settings.recall_weight_name_lead,
        name_mention=settings.recall_weight_name_mention,
        context_priority=settings.recall_weight_context_priority,
        question=settings.recall_weight_question,
        outdated=settings.recall_weight_outdated,
        speaker=settings.recall_weight_speaker,
        latest=settings.recall_weight_latest,
        sub_query_share=settings.recall_sub_query_share,
    )
    return RecallConfig(
        weights=weights,
        relevance_floor=settings.recall_relevance_floor,
        relevance_gate=settings.recall_relevance_gate,
        context_seeds=settings.recall_context_seeds,
        dense_without_names=settings.recall_dense_without_names,
        unsaid_names=settings.recall_unsaid_names,
    )
