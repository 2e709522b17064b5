"""Engram's settings: one typed object, read from the environment (and `.env`) once."""

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, IPvAnyNetwork, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MAX_SENTINELS = 16


class Settings(BaseSettings):
    """Every knob Engram reads. Unset store URLs mean the embedded default."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    host: str = Field("127.0.0.1", validation_alias="ENGRAM_HOST")
    port: int = Field(8001, validation_alias="ENGRAM_PORT")
    data_dir: Path = Field(Path("data"), validation_alias="ENGRAM_DATA_DIR")
    log_level: str = Field("info", validation_alias="ENGRAM_LOG_LEVEL")
    # A request body over this many bytes is a 413 before it is parsed. The default is above the
    # largest valid body: a batch of 500 memories at their field limits, with vectors.
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024, validation_alias="ENGRAM_MAX_BODY_BYTES")
    # json: one object a line (with the request id); text: plain lines for a terminal.
    log_format: Literal["json", "text"] = Field("json", validation_alias="ENGRAM_LOG_FORMAT")
    access_log: bool = Field(True, validation_alias="ENGRAM_ACCESS_LOG")
    # GET /metrics (Prometheus): aggregate figures only, no memory content, no user ids.
    metrics_enabled: bool = Field(True, validation_alias="ENGRAM_METRICS")

    # Auth. api_keys: JSON {"<key or sha256:hex>": "user_id" | {"user_id": .., "agent_prefix": ..}}
    api_keys: dict[str, str | dict[str, str]] = Field({}, validation_alias="ENGRAM_API_KEYS")
    admin_key: str | None = Field(None, validation_alias="ENGRAM_ADMIN_KEY")
    # The embedded default writes a random key for this user to data_dir/api_key on first run.
    default_user: str = Field("local", validation_alias="ENGRAM_DEFAULT_USER")
    generate_local_key: bool = Field(True, validation_alias="ENGRAM_GENERATE_LOCAL_KEY")
    # Keys made at runtime (POST /admin/keys, app/auth/runtime_keys.py): a revocation reaches
    # the other processes within keys_refresh_s; a key's cached answer is trusted keys_cache_s.
    keys_refresh_s: float = Field(2.0, gt=0, le=300, validation_alias="ENGRAM_KEYS_REFRESH_S")
    keys_cache_s: float = Field(60.0, gt=0, le=3600, validation_alias="ENGRAM_KEYS_CACHE_S")
    max_keys_per_user: int = Field(
        100, ge=1, le=10_000, validation_alias="ENGRAM_MAX_KEYS_PER_USER"
    )
    keys_last_used_s: float = Field(60.0, gt=0, validation_alias="ENGRAM_KEYS_LAST_USED_S")
    # AutoMem's `?api_key=` query parameter. Off: a key in a URL ends up in proxy and server logs
    # and in browser history (Engram's own request log prints the path only).
    allow_query_api_key: bool = Field(False, validation_alias="ENGRAM_ALLOW_QUERY_API_KEY")
    # Browser origins allowed to call the API (CORS): comma-separated or a JSON list; "*" = any;
    # empty = no CORS headers at all.
    cors_origins: Annotated[list[str], NoDecode] = Field([], validation_alias="ENGRAM_CORS_ORIGINS")
    # OAuth for /mcp (docs/mcp.md#oauth): the authorization servers' issuer URLs (comma-separated
    # or a JSON list; empty = none, no metadata), where their signing keys are, and how a token
    # names its user.
    mcp_oauth_authorization_servers: Annotated[list[str], NoDecode] = Field(
        [], validation_alias="MCP_OAUTH_AUTHORIZATION_SERVERS"
    )
    mcp_oauth_jwks_url: str | None = Field(None, validation_alias="MCP_OAUTH_JWKS_URL")
    mcp_oauth_resource: str | None = Field(None, validation_alias="MCP_OAUTH_RESOURCE")
    mcp_oauth_audience: str | None = Field(None, validation_alias="MCP_OAUTH_AUDIENCE")
    mcp_oauth_user_claim: str = Field("sub", min_length=1, validation_alias="MCP_OAUTH_USER_CLAIM")

    # FalkorDB: unset URL -> Engram starts redis-server + the FalkorDB module itself.
    falkordb_url: str | None = Field(None, validation_alias="FALKORDB_URL")
    # A process whose vector store is not the one the graph records refuses to start; this
    # makes its vector store the deployment's instead (after moving to a new Qdrant).
    adopt_vector_store: bool = Field(False, validation_alias="ENGRAM_ADOPT_VECTOR_STORE")
    worker_heartbeat_s: float = Field(5.0, gt=0, validation_alias="ENGRAM_WORKER_HEARTBEAT_S")
    falkordb_graph: str = Field("engram", validation_alias="FALKORDB_GRAPH")
    falkordb_port: int = Field(6380, validation_alias="FALKORDB_PORT")
    falkordb_module: Path | None = Field(None, validation_alias="FALKORDB_MODULE")
    falkordb_appendfsync: Literal["always", "everysec", "no"] = Field(
        "everysec", validation_alias="FALKORDB_APPENDFSYNC"
    )
    falkordb_pool_size: int = Field(16, validation_alias="FALKORDB_POOL_SIZE")
    falkordb_index_wait_s: float = Field(120.0, validation_alias="FALKORDB_INDEX_WAIT_S")
    # With FALKORDB_URL: how long start-up waits for the server to answer before refusing.
    falkordb_connect_wait_s: float = Field(30.0, ge=0, validation_alias="FALKORDB_CONNECT_WAIT_S")
    # High availability (docs/operations.md): "host:port,host:port" of Redis Sentinels watching a
    # FalkorDB primary and its replicas, instead of FALKORDB_URL; Engram asks them for the
    # primary and follows a failover by itself.
    falkordb_sentinels: Annotated[list[tuple[str, int]], NoDecode] = Field(
        [], validation_alias="FALKORDB_SENTINELS"
    )
    falkordb_sentinel_master: str = Field(
        "engram", min_length=1, max_length=200, validation_alias="FALKORDB_SENTINEL_MASTER"
    )
    falkordb_sentinel_password: str | None = Field(
        None, validation_alias="FALKORDB_SENTINEL_PASSWORD"
    )
    # After each graph write, WAIT until this many replicas have it (0: off); a write that does
    # not reach them within the timeout is answered 503 (it is kept on the primary).
    falkordb_wait_replicas: int = Field(0, ge=0, le=16, validation_alias="FALKORDB_WAIT_REPLICAS")
    falkordb_wait_timeout_ms: int = Field(
        1000, ge=1, le=60_000, validation_alias="FALKORDB_WAIT_TIMEOUT_MS"
    )

    # Qdrant: unset URL -> a Qdrant Edge shard under data_dir/qdrant; ":memory:" for tests.
    qdrant_url: str | None = Field(None, validation_alias="QDRANT_URL")
    qdrant_api_key: str | None = Field(None, validation_alias="QDRANT_API_KEY")
    qdrant_collection: str = Field("memories", validation_alias="QDRANT_COLLECTION")

    # Embeddings: local (default, offline), openai (any OpenAI-compatible API), hash (tests only).
    embedding_provider: Literal["local", "openai", "hash"] = Field(
        "local", validation_alias="EMBEDDING_PROVIDER"
    )
    embedding_model: str | None = Field(None, validation_alias="EMBEDDING_MODEL")
    embedding_base_url: str | None = Field(None, validation_alias="EMBEDDING_BASE_URL")
    embedding_api_key: str | None = Field(None, validation_alias="EMBEDDING_API_KEY")
    # The vector size for openai/hash; the local model is always 384.
    embedding_dimensions: int | None = Field(None, validation_alias="EMBEDDING_DIMENSIONS")
    embedding_send_dimensions: bool = Field(False, validation_alias="EMBEDDING_SEND_DIMENSIONS")
    embedding_batch_size: int = Field(32, ge=1, le=2048, validation_alias="EMBEDDING_BATCH_SIZE")
    embedding_timeout_s: float = Field(30.0, validation_alias="EMBEDDING_TIMEOUT_S")
    embedding_max_retries: int = Field(3, ge=0, validation_alias="EMBEDDING_MAX_RETRIES")
    embedding_threads: int = Field(2, ge=1, validation_alias="EMBEDDING_THREADS")
    # Embed "[8 May 2023] content" rather than the bare content (see storage/mirror.py).
    embedding_include_date: bool = Field(True, validation_alias="EMBEDDING_INCLUDE_DATE")

    # Durable jobs (in the FalkorDB server's Redis). workers: concurrent job slots per kind run
    # inside the API process; 0 = none (run `python -m app.worker` processes instead).
    workers: int = Field(2, ge=0, validation_alias="ENGRAM_WORKERS")
    jobs_namespace: str = Field("engram", validation_alias="JOBS_NAMESPACE")
    jobs_max_attempts: int = Field(5, ge=1, validation_alias="JOBS_MAX_ATTEMPTS")
    jobs_base_delay_s: float = Field(2.0, ge=0, validation_alias="JOBS_BASE_DELAY_S")
    jobs_max_delay_s: float = Field(300.0, ge=0, validation_alias="JOBS_MAX_DELAY_S")
    jobs_heartbeat_s: int = Field(10, ge=1, validation_alias="JOBS_HEARTBEAT_S")
    jobs_sweep_s: int = Field(10, ge=1, validation_alias="JOBS_SWEEP_S")
    backlog_scan: bool = Field(True, validation_alias="ENGRAM_BACKLOG_SCAN")
    sync_interval_s: float = Field(3600.0, ge=0, validation_alias="SYNC_INTERVAL_S")
    # How often memories left `pending` with no embed job queued get one (0: never), and how
    # old they must be (a write answered 503 after its graph write: app/wiring/schedule.py).
    embedding_sweep_interval_s: float = Field(
        30.0, ge=0, validation_alias="EMBEDDING_SWEEP_INTERVAL_S"
    )
    embedding_sweep_min_age_s: float = Field(
        30.0, ge=0, validation_alias="EMBEDDING_SWEEP_MIN_AGE_S"
    )
    # How often the graph's counts are compared with the vector index's (0: on /health only).
    drift_check_interval_s: float = Field(30.0, ge=0, validation_alias="DRIFT_CHECK_INTERVAL_S")
    # POST /admin/reembed answers AutoMem's 200 with the result when it waits for the job: when
    # asked (?wait=true), or when at most this many memories are to be re-embedded. It waits at
    # most REEMBED_WAIT_S; a job still running then is answered 202 and carries on.
    reembed_sync_max: int = Field(1000, ge=0, validation_alias="ENGRAM_REEMBED_SYNC_MAX")
    reembed_wait_s: float = Field(60.0, ge=0, validation_alias="ENGRAM_REEMBED_WAIT_S")

    # Webhooks (docs/api.md): targets per user (and for all users), the time one delivery may
    # take. Failed deliveries are retried by the job queue (JOBS_*), then dead-lettered.
    webhook_max_targets: int = Field(10, ge=0, le=100, validation_alias="WEBHOOK_MAX_TARGETS")
    webhook_timeout_s: float = Field(10.0, gt=0, le=60, validation_alias="WEBHOOK_TIMEOUT_S")
    # Targets must be public addresses (app/webhooks/addresses.py), unless allowed here: every
    # loopback, private and CGNAT address, and/or these networks (comma-separated or a JSON list).
    webhook_allow_private: bool = Field(False, validation_alias="WEBHOOK_ALLOW_PRIVATE")
    webhook_allowed_cidrs: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        [], max_length=100, validation_alias="WEBHOOK_ALLOWED_CIDRS"
    )

    # Recall scoring (see app/recall/rank.py); every weight shows up in score_components.
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

    # LLM (any OpenAI-compatible chat API). Unset base URL or model = no LLM: every path still
    # works, with rules instead (classification patterns, rule-based /remember extraction).
    llm_base_url: str | None = Field(None, validation_alias="LLM_BASE_URL")
    llm_model: str | None = Field(None, validation_alias="LLM_MODEL")
    llm_api_key: str | None = Field(None, validation_alias="LLM_API_KEY")
    llm_timeout_s: float = Field(30.0, gt=0, validation_alias="LLM_TIMEOUT_S")
    llm_max_retries: int = Field(3, ge=0, validation_alias="LLM_MAX_RETRIES")
    llm_calls_per_hour: int = Field(1000, ge=0, validation_alias="LLM_CALLS_PER_HOUR")
    llm_calls_per_job: int = Field(10, ge=1, validation_alias="LLM_CALLS_PER_JOB")
    enrichment_circuit_cooldown_s: float = Field(
        300.0, ge=0, validation_alias="ENRICHMENT_CIRCUIT_COOLDOWN_SECONDS"
    )

    # Enrichment (entities, summary, links); see app/enrichment/.
    enrichment_enabled: bool = Field(True, validation_alias="ENRICHMENT_ENABLED")
    enrichment_similarity_threshold: float = Field(
        0.8, ge=0, le=1, validation_alias="ENRICHMENT_SIMILARITY_THRESHOLD"
    )
    enrichment_similar_limit: int = Field(5, ge=0, validation_alias="ENRICHMENT_SIMILAR_LIMIT")

    # /remember (see app/remember/).
    remember_max_messages: int = Field(50, ge=1, validation_alias="REMEMBER_MAX_MESSAGES")
    remember_max_chars: int = Field(32000, ge=1, validation_alias="REMEMBER_MAX_CHARS")
    remember_rate_per_minute: int = Field(120, ge=1, validation_alias="REMEMBER_RATE_PER_MINUTE")
    # Erasures (`erase=true` on DELETE /memory/{id} and DELETE /me) per user and minute: each
    # rewrites the vector shard and the graph's append-only file, which hold every user's data.
    erase_rate_per_minute: int = Field(30, ge=1, validation_alias="ERASE_RATE_PER_MINUTE")
    # Transcript turns (every message /remember keeps verbatim) are deleted by the hourly
    # retention job this many days after they were said; 0 = kept for good (the default).
    transcript_retention_days: float = Field(0, ge=0, validation_alias="TRANSCRIPT_RETENTION_DAYS")
    # /recall/context for a session puts its last N messages first (0 = off).
    session_context_messages: int = Field(
        10, ge=0, le=200, validation_alias="SESSION_CONTEXT_MESSAGES"
    )
    remember_dedup_threshold: float = Field(
        0.92, ge=0, le=1, validation_alias="REMEMBER_DEDUP_THRESHOLD"
    )
    remember_contradiction_threshold: float = Field(
        0.7, ge=0, le=1, validation_alias="REMEMBER_CONTRADICTION_THRESHOLD"
    )
    session_idle_seconds: float = Field(1800.0, ge=0, validation_alias="SESSION_IDLE_SECONDS")
    raw_retention_days: float = Field(30.0, ge=0, validation_alias="RAW_RETENTION_DAYS")
    # A reflection (a profile of the user's current facts) every N user messages; 0 = off.
    reflection_every: int = Field(10, ge=0, validation_alias="REFLECTION_EVERY")

    # Lifecycle (see app/lifecycle/ and docs/lifecycle.md). Days; 0 = permanent.
    ttl_event_days: float = Field(90.0, ge=0, validation_alias="TTL_EVENT_DAYS")
    ttl_habit_days: float = Field(60.0, ge=0, validation_alias="TTL_HABIT_DAYS")
    ttl_context_days: float = Field(7.0, ge=0, validation_alias="TTL_CONTEXT_DAYS")
    # Relevance: per-type half-lives in days (JSON {"Event": 30, …}) override the defaults.
    relevance_half_lives: dict[str, float] = Field({}, validation_alias="RELEVANCE_HALF_LIVES")
    relevance_importance_floor: float = Field(
        0.15, ge=0, le=1, validation_alias="RELEVANCE_IMPORTANCE_FLOOR"
    )
    # Forgetting: below the archive threshold a memory is archived; below the delete threshold
    # (0 = never) it is deleted (a tombstone remains). Protected: pinned, `protected`, importance
    # at or above the protection threshold, touched within the grace period, protected types.
    forget_archive_threshold: float = Field(
        0.1, ge=0, le=1, validation_alias="FORGET_ARCHIVE_THRESHOLD"
    )
    forget_delete_threshold: float = Field(
        0.0, ge=0, le=1, validation_alias="FORGET_DELETE_THRESHOLD"
    )
    forget_protect_importance: float = Field(
        0.7, ge=0, le=1, validation_alias="FORGET_PROTECT_IMPORTANCE"
    )
    forget_grace_days: float = Field(30.0, ge=0, validation_alias="FORGET_GRACE_DAYS")
    forget_protected_types: list[str] = Field(
        ["Decision", "Insight"], validation_alias="FORGET_PROTECTED_TYPES"
    )
    # Schedules (seconds between runs; 0 = off). Runs are due at multiples of the interval.
    consolidation_decay_interval_s: int = Field(
        86_400, ge=0, validation_alias="CONSOLIDATION_DECAY_INTERVAL_SECONDS"
    )
    consolidation_forget_interval_s: int = Field(
        86_400, ge=0, validation_alias="CONSOLIDATION_FORGET_INTERVAL_SECONDS"
    )
    consolidation_cluster_interval_s: int = Field(
        604_800, ge=0, validation_alias="CONSOLIDATION_CLUSTER_INTERVAL_SECONDS"
    )
    consolidation_fsck_interval_s: int = Field(
        0, ge=0, validation_alias="CONSOLIDATION_FSCK_INTERVAL_SECONDS"
    )
    consolidation_tick_s: float = Field(60.0, gt=0, validation_alias="CONSOLIDATION_TICK_SECONDS")
    consolidation_history_limit: int = Field(
        20, ge=1, validation_alias="CONSOLIDATION_HISTORY_LIMIT"
    )
    cluster_similarity: float = Field(
        0.75, ge=0, le=1, validation_alias="CONSOLIDATION_CLUSTER_SIMILARITY_THRESHOLD"
    )
    cluster_min_size: int = Field(3, ge=2, validation_alias="CONSOLIDATION_MIN_CLUSTER_SIZE")
    cluster_window_days: float = Field(30.0, gt=0, validation_alias="CONSOLIDATION_CLUSTER_DAYS")
    fsck_max_memories: int = Field(5000, ge=1, validation_alias="FSCK_MAX_MEMORIES")
    fsck_max_llm_calls: int = Field(200, ge=0, validation_alias="FSCK_MAX_LLM_CALLS")

    # Artifacts (files attached to a memory, app/artifacts/service.py): the largest accepted, in
    # bytes (mnemory's MAX_ARTIFACT_SIZE); how long a signed download URL lives by default; the
    # key that signs those URLs (unset: a random key kept in data_dir/artifacts/.url-secret; set
    # it when several processes with different data directories serve one deployment).
    max_artifact_size: int = Field(
        10 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("MAX_ARTIFACT_SIZE", "ENGRAM_MAX_ARTIFACT_SIZE"),
    )
    artifact_url_ttl_s: int = Field(
        3600, ge=1, le=7 * 86_400, validation_alias="ENGRAM_ARTIFACT_URL_TTL_S"
    )
    artifact_url_secret: str | None = Field(None, validation_alias="ENGRAM_ARTIFACT_URL_SECRET")
    # An S3-compatible object store for artifacts (unset: the local filesystem). Credentials:
    # these, else boto3's own chain (AWS_ACCESS_KEY_ID…, ~/.aws, an instance role).
    artifact_s3_bucket: str | None = Field(None, validation_alias="ARTIFACT_S3_BUCKET")
    artifact_s3_prefix: str = Field(
        "",
        max_length=200,
        pattern=r"^$|^[A-Za-z0-9!_.*'()/-]*/$",
        validation_alias="ARTIFACT_S3_PREFIX",
    )
    artifact_s3_endpoint_url: str | None = Field(None, validation_alias="ARTIFACT_S3_ENDPOINT_URL")
    artifact_s3_region: str | None = Field(None, validation_alias="ARTIFACT_S3_REGION")
    artifact_s3_access_key_id: str | None = Field(
        None, validation_alias="ARTIFACT_S3_ACCESS_KEY_ID"
    )
    artifact_s3_secret_access_key: str | None = Field(
        None, validation_alias="ARTIFACT_S3_SECRET_ACCESS_KEY", repr=False
    )
    # Chunks one `include_artifacts` recall may embed for text artifacts that have no search
    # index yet (the upload's artifact_index job normally builds it first).
    artifact_search_embed_budget: int = Field(
        256, ge=0, le=100_000, validation_alias="ARTIFACT_SEARCH_EMBED_BUDGET"
    )

    @field_validator("admin_key")
    @classmethod
    def _admin_key_strong_enough(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 16:
            raise ValueError("ENGRAM_ADMIN_KEY must be at least 16 characters")
        return value

    @field_validator("cors_origins", "mcp_oauth_authorization_servers", mode="before")
    @classmethod
    def _origins_from_text(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [origin.strip() for origin in text.split(",") if origin.strip()]

    @field_validator("webhook_allowed_cidrs", mode="before")
    @classmethod
    def _cidrs_from_text(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [cidr.strip() for cidr in text.split(",") if cidr.strip()]

    @field_validator("falkordb_sentinels", mode="before")
    @classmethod
    def _sentinels_from_text(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return [_host_port(part) for part in value.split(",") if part.strip()]

    @model_validator(mode="after")
    def _one_way_to_falkordb(self) -> "Settings":
        if self.falkordb_sentinels and self.falkordb_url is not None:
            raise ValueError("set FALKORDB_URL or FALKORDB_SENTINELS, not both")
        if len(self.falkordb_sentinels) > MAX_SENTINELS:
            raise ValueError(f"FALKORDB_SENTINELS lists more than {MAX_SENTINELS} sentinels")
        if self.falkordb_wait_replicas and self.embedded_falkordb:
            raise ValueError(
                "FALKORDB_WAIT_REPLICAS needs replicas: set FALKORDB_SENTINELS (or FALKORDB_URL "
                "of a primary with replicas); the embedded server has none"
            )
        return self

    @model_validator(mode="after")
    def _oauth_keys_with_servers(self) -> "Settings":
        if not self.mcp_oauth_authorization_servers:
            return self
        if not self.mcp_oauth_jwks_url:
            raise ValueError(
                "MCP_OAUTH_AUTHORIZATION_SERVERS needs MCP_OAUTH_JWKS_URL: the URL of the "
                "authorization server's signing keys (its jwks_uri), to check its tokens with"
            )
        if not self.mcp_oauth_resource:
            raise ValueError(
                "MCP_OAUTH_AUTHORIZATION_SERVERS needs MCP_OAUTH_RESOURCE: the public URL of "
                "/mcp (e.g. https://memory.example.com/mcp), which tokens are issued for"
            )
        return self

    @property
    def embedded_falkordb(self) -> bool:
        return self.falkordb_url is None and not self.falkordb_sentinels

    @property
    def embedded_qdrant(self) -> bool:
        return self.qdrant_url is None


def _host_port(text: str) -> tuple[str, int]:
    """One sentinel's "host:port" (an IPv6 host in brackets: "[::1]:26379")."""
    host, sep, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"FALKORDB_SENTINELS: {text.strip()!r} is not host:port")
    return host, int(port)


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
