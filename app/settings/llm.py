from pydantic import BaseModel, Field


class LLMSettings(BaseModel):
    """LLM (optional)

    Any OpenAI-compatible chat API. Unset base URL or model = no LLM: every path still works,
    with rules instead (classification patterns, rule-based `/remember` extraction).
    """

    llm_base_url: str | None = Field(
        None,
        validation_alias="LLM_BASE_URL",
        description="an OpenAI-compatible chat API; unset: no LLM, rules classify and extract",
    )
    llm_model: str | None = Field(
        None, validation_alias="LLM_MODEL", description="the chat model; unset: no LLM"
    )
    llm_api_key: str | None = Field(
        None, validation_alias="LLM_API_KEY", description="the chat API's key"
    )
    llm_timeout_s: float = Field(
        30.0, gt=0, validation_alias="LLM_TIMEOUT_S", description="per call: its time limit"
    )
    llm_max_retries: int = Field(
        3, ge=0, validation_alias="LLM_MAX_RETRIES", description="per call: retries"
    )
    llm_calls_per_hour: int = Field(
        1000, ge=0, validation_alias="LLM_CALLS_PER_HOUR", description="budget: calls per hour"
    )
    llm_calls_per_job: int = Field(
        10, ge=1, validation_alias="LLM_CALLS_PER_JOB", description="budget: calls per job"
    )
    enrichment_circuit_cooldown_s: float = Field(
        300.0,
        ge=0,
        validation_alias="ENRICHMENT_CIRCUIT_COOLDOWN_SECONDS",
        description="how long the circuit stays open after a quota error",
    )
