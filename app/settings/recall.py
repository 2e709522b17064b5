from typing import Literal

from pydantic import BaseModel, Field


class RecallSettings(BaseModel):
    """Recall

    Recall's scoring (app/recall/rank.py, [recall.md](recall.md)): these are the only place its
    defaults live, and every weight shows up in a result's `score_components`.
    """

    recall_relevance_floor: float = Field(
        0.25,
        ge=0,
        le=1,
        validation_alias="RECALL_RELEVANCE_FLOOR",
        description="drop memories with no keyword match below this dense similarity",
    )
    # The gate: no result at least this similar (nor sharing two terms) → nothing is relevant.
    recall_relevance_gate: float = Field(
        0.4,
        ge=0,
        le=1,
        validation_alias="RECALL_RELEVANCE_GATE",
        description=(
            "a query none of whose results is this similar (nor shares two terms, nor "
            'has other evidence) gets no results and `"relevant": false`; never below '
            "the floor"
        ),
    )
    recall_weight_dense: float = Field(
        1.0,
        ge=0,
        validation_alias="RECALL_WEIGHT_DENSE",
        description="fusion: the dense (vector) channel's weight",
    )
    recall_weight_prf: float = Field(
        0.0,
        ge=0,
        validation_alias="RECALL_WEIGHT_PRF",
        description=(
            "the feedback channel's bonus (0: off, the default since the two-genre "
            "ablation; 0.6 before; see "
            "[recall.md](recall.md#feedback-the-prf-channel))"
        ),
    )
    recall_weight_bm25: float = Field(
        2.0,
        ge=0,
        validation_alias="RECALL_WEIGHT_BM25",
        description="fusion: the keyword (BM25) channel's weight",
    )
    # The window channel: turns embedded with the two before them (app/recall/windows.py).
    recall_weight_window: float = Field(
        1.0,
        ge=0,
        validation_alias="RECALL_WEIGHT_WINDOW",
        description=(
            "the window channel's weight in the fusion (0: off; see "
            "[recall.md](recall.md#window-vectors-the-window-channel))"
        ),
    )
    # A neighbouring turn of one of the best RECALL_CONTEXT_SEEDS matches gets this share of
    # that match's fused score (the context lift).
    recall_weight_context: float = Field(
        0.5,
        ge=0,
        validation_alias="RECALL_WEIGHT_CONTEXT",
        description="the share of a match's score its neighbouring turns get",
    )
    recall_context_seeds: int = Field(
        10,
        ge=0,
        validation_alias="RECALL_CONTEXT_SEEDS",
        description="the best matches whose neighbouring turns get a share of their score",
    )
    # A memory that starts with a person the query names (a chat turn's speaker) / mentions one.
    recall_weight_name_lead: float = Field(
        0.4,
        validation_alias="RECALL_WEIGHT_NAME_LEAD",
        description="a memory led by a person the question names",
    )
    recall_weight_name_mention: float = Field(
        0.2,
        validation_alias="RECALL_WEIGHT_NAME_MENTION",
        description="a memory mentioning a person the question names",
    )
    # context_tags / context_types / language hints: added to the memories they match.
    recall_weight_context_priority: float = Field(
        0.1,
        validation_alias="RECALL_WEIGHT_CONTEXT_PRIORITY",
        description="`context_tags` / `context_types` / language hints",
    )
    # A memory that asks more than it tells loses this share of its score times the share of
    # its sentences that are questions.
    recall_weight_question: float = Field(
        0.5,
        ge=0,
        le=1,
        validation_alias="RECALL_WEIGHT_QUESTION",
        description=(
            "share of its score a memory loses when all its sentences are questions "
            "([recall.md](recall.md#memories-that-ask))"
        ),
    )
    # A conversation turn whose fact a newer one superseded ("I live in Prague" once "I moved to
    # Berlin" was said) loses this share of its score: the current fact answers first.
    recall_weight_outdated: float = Field(
        0.5,
        ge=0,
        le=1,
        validation_alias="RECALL_WEIGHT_OUTDATED",
        description=(
            "share taken from a conversation turn whose fact a newer one superseded, "
            "so the current fact answers first "
            "([recall.md](recall.md#whose-words-and-the-current-value-first))"
        ),
    )
    # A memory of the other role than the query asks for (a question about the user answered
    # by the assistant's restatement, or one about what the assistant said by a user turn)
    # loses this share of its score (app/recall/asking.py wanted_speaker).
    recall_weight_speaker: float = Field(
        0.3,
        ge=0,
        le=1,
        validation_alias="RECALL_WEIGHT_SPEAKER",
        description=(
            "share taken from a memory of the other role than the question asks for "
            "([recall.md](recall.md#whose-words-and-the-current-value-first))"
        ),
    )
    # A question that asks for the value as it is now ("currently", "so far", "still"): each
    # result gains up to this much by how late it was said among the query's results.
    recall_weight_latest: float = Field(
        0.6,
        ge=0,
        le=1,
        validation_alias="RECALL_WEIGHT_LATEST",
        description=(
            "a question asking for the value now: the latest of its results gains this much, "
            "the earliest nothing ([recall.md](recall.md#the-current-value-first))"
        ),
    )
    # auto_decompose: how much a sub-query's matches count against the query's own.
    recall_sub_query_share: float = Field(
        0.5,
        ge=0,
        le=1,
        validation_alias="RECALL_SUB_QUERY_SHARE",
        description="`auto_decompose`: how much a sub-query's matches count",
    )
    # Embed the query without the people it names (they are matched by keyword and name term).
    recall_dense_without_names: bool = Field(
        True,
        validation_alias="RECALL_DENSE_WITHOUT_NAMES",
        description="embed the question without the people it names",
    )
    # A question naming something no memory mentions ("Dr. Johnson" where only Dr. Smith was
    # ever named) gets nothing (app/recall/unsaid.py). Off: such a question is left to the gate
    # (for users who name things by aliases the memories do not use: "NYC" for "New York").
    recall_unsaid_names: bool = Field(
        True,
        validation_alias="RECALL_UNSAID_NAMES",
        description="a question that names something no memory mentions gets nothing",
    )
    # Small k: top ranks dominate. On LoCoMo, k=5 gave recall@10 0.67 where k=60 gave 0.59.
    recall_rrf_k: int = Field(
        5,
        ge=1,
        validation_alias="RECALL_RRF_K",
        description="fusion: reciprocal rank fusion's k (small: the top ranks dominate)",
    )
    recall_weight_importance: float = Field(
        0.1, validation_alias="RECALL_WEIGHT_IMPORTANCE", description="score adjustment: importance"
    )
    recall_weight_confidence: float = Field(
        0.05,
        validation_alias="RECALL_WEIGHT_CONFIDENCE",
        description="score adjustment: confidence",
    )
    # The lifecycle's relevance_score (app/lifecycle/relevance.py); unscored memories count 0.5.
    recall_weight_relevance: float = Field(
        0.05,
        validation_alias="RECALL_WEIGHT_RELEVANCE",
        description="the lifecycle's `relevance_score` (unscored memories count 0.5)",
    )
    recall_weight_recency: float = Field(
        0.1, validation_alias="RECALL_WEIGHT_RECENCY", description="score adjustment: recency"
    )
    recall_recency_half_life_days: float = Field(
        180.0,
        gt=0,
        validation_alias="RECALL_RECENCY_HALF_LIFE_DAYS",
        description="recency: its half-life in days",
    )
    recall_recency_curve: Literal["exp", "linear"] = Field(
        "exp", validation_alias="RECALL_RECENCY_CURVE", description="recency: `exp` or `linear`"
    )
    recall_raw_penalty: float = Field(
        0.05,
        validation_alias="RECALL_RAW_PENALTY",
        description="raw-layer memories rank lower by this",
    )
    recall_superseded_penalty: float = Field(
        0.15,
        validation_alias="RECALL_SUPERSEDED_PENALTY",
        description="superseded raw memories rank lower by this",
    )
    access_flush_interval_s: float = Field(
        2.0,
        gt=0,
        validation_alias="ACCESS_FLUSH_INTERVAL_S",
        description="how often recorded accesses are written",
    )
