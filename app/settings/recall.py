from typing import Literal

from pydantic import BaseModel, Field


class RecallSettings(BaseModel):
    """Recall

    Recall's scoring (app/recall/rank.py, [recall.md](recall.md)): these are the only place its
    defaults live, and every weight shows up in a result's `score_components`.
    """

    recall_relevance_floor: float = Field(
        0.25, ge=0, le=1, validation_alias="RECALL_RELEVANCE_FLOOR"
    )
    # The gate: no result at least this similar (nor sharing two terms) → nothing is relevant.
    recall_relevance_gate: float = Field(0.4, ge=0, le=1, validation_alias="RECALL_RELEVANCE_GATE")
    recall_weight_dense: float = Field(1.0, ge=0, validation_alias="RECALL_WEIGHT_DENSE")
    recall_weight_prf: float = Field(0.0, ge=0, validation_alias="RECALL_WEIGHT_PRF")
    recall_weight_bm25: float = Field(2.0, ge=0, validation_alias="RECALL_WEIGHT_BM25")
    # The window channel: turns embedded with the two before them (app/recall/windows.py).
    recall_weight_window: float = Field(1.0, ge=0, validation_alias="RECALL_WEIGHT_WINDOW")
    # A neighbouring turn of one of the best RECALL_CONTEXT_SEEDS matches gets this share of
    # that match's fused score (the context lift).
    recall_weight_context: float = Field(0.5, ge=0, validation_alias="RECALL_WEIGHT_CONTEXT")
    recall_context_seeds: int = Field(10, ge=0, validation_alias="RECALL_CONTEXT_SEEDS")
    # A memory that starts with a person the query names (a chat turn's speaker) / mentions one.
    recall_weight_name_lead: float = Field(0.4, validation_alias="RECALL_WEIGHT_NAME_LEAD")
    recall_weight_name_mention: float = Field(0.2, validation_alias="RECALL_WEIGHT_NAME_MENTION")
    # context_tags / context_types / language hints: added to the memories they match.
    recall_weight_context_priority: float = Field(
        0.1, validation_alias="RECALL_WEIGHT_CONTEXT_PRIORITY"
    )
    # A memory that asks more than it tells loses this share of its score times the share of
    # its sentences that are questions.
    recall_weight_question: float = Field(
        0.5, ge=0, le=1, validation_alias="RECALL_WEIGHT_QUESTION"
    )
    # A conversation turn whose fact a newer one superseded ("I live in Prague" once "I moved to
    # Berlin" was said) loses this share of its score: the current fact answers first.
    recall_weight_outdated: float = Field(
        0.5, ge=0, le=1, validation_alias="RECALL_WEIGHT_OUTDATED"
    )
    # A memory of the other role than the query asks for (a question about the user answered
    # by the assistant's restatement, or one about what the assistant said by a user turn)
    # loses this share of its score (app/recall/asking.py wanted_speaker).
    recall_weight_speaker: float = Field(0.3, ge=0, le=1, validation_alias="RECALL_WEIGHT_SPEAKER")
    # auto_decompose: how much a sub-query's matches count against the query's own.
    recall_sub_query_share: float = Field(
        0.5, ge=0, le=1, validation_alias="RECALL_SUB_QUERY_SHARE"
    )
    # Embed the query without the people it names (they are matched by keyword and name term).
    recall_dense_without_names: bool = Field(True, validation_alias="RECALL_DENSE_WITHOUT_NAMES")
    # Small k: top ranks dominate. On LoCoMo, k=5 gave recall@10 0.67 where k=60 gave 0.59.
    recall_rrf_k: int = Field(5, ge=1, validation_alias="RECALL_RRF_K")
    recall_weight_importance: float = Field(0.1, validation_alias="RECALL_WEIGHT_IMPORTANCE")
    recall_weight_confidence: float = Field(0.05, validation_alias="RECALL_WEIGHT_CONFIDENCE")
    # The lifecycle's relevance_score (app/lifecycle/relevance.py); unscored memories count 0.5.
    recall_weight_relevance: float = Field(0.05, validation_alias="RECALL_WEIGHT_RELEVANCE")
    recall_weight_recency: float = Field(0.1, validation_alias="RECALL_WEIGHT_RECENCY")
    recall_recency_half_life_days: float = Field(
        180.0, gt=0, validation_alias="RECALL_RECENCY_HALF_LIFE_DAYS"
    )
    recall_recency_curve: Literal["exp", "linear"] = Field(
        "exp", validation_alias="RECALL_RECENCY_CURVE"
    )
    recall_raw_penalty: float = Field(0.05, validation_alias="RECALL_RAW_PENALTY")
    recall_superseded_penalty: float = Field(0.15, validation_alias="RECALL_SUPERSEDED_PENALTY")
    access_flush_interval_s: float = Field(2.0, gt=0, validation_alias="ACCESS_FLUSH_INTERVAL_S")
