from typing import Annotated, Any

from pydantic import BaseModel, Field, IPvAnyNetwork, field_validator
from pydantic_settings import NoDecode

from app.settings.text import listed


class WebhookSettings(BaseModel):
    """Webhooks

    Targets per user (and for all users), the time one delivery may take, and which addresses
    a target may have ([api](api.md#webhooks)). Failed deliveries are retried by the job queue
    (`JOBS_*`), then dead-lettered.
    """

    webhook_max_targets: int = Field(10, ge=0, le=100, validation_alias="WEBHOOK_MAX_TARGETS")
    webhook_timeout_s: float = Field(10.0, gt=0, le=60, validation_alias="WEBHOOK_TIMEOUT_S")
    # Targets must be public addresses (app/webhooks/addresses.py), unless allowed here: every
    # loopback, private and CGNAT address, and/or these networks (comma-separated or a JSON list).
    webhook_allow_private: bool = Field(False, validation_alias="WEBHOOK_ALLOW_PRIVATE")
    webhook_allowed_cidrs: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        [], max_length=100, validation_alias="WEBHOOK_ALLOWED_CIDRS"
    )

    @field_validator("webhook_allowed_cidrs", mode="before")
    @classmethod
    def _cidrs_from_text(cls, value: Any) -> Any:
        return listed(value)
