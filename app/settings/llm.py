from pydantic import BaseModel, Field


class LLMSettings(BaseModel):
    """LLM (optional)

    Any OpenAI-compatible chat API. Unset base URL or model = no LLM: every path still works,
    with rules instead (classification patterns, rule-based `/remember` extraction).
    """

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
