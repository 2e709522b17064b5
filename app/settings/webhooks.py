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

    webhook_max_targets: int = Field(
        10,
        ge=0,
        le=100,
        validation_alias="WEBHOOK_MAX_TARGETS",
        description="webhook targets per user, and for all users ([api](api.md#webhooks))",
    )
    webhook_timeout_s: float = Field(
        10.0,
        gt=0,
        le=60,
        validation_alias="WEBHOOK_TIMEOUT_S",
        description=(
            "one delivery's time limit (connect, send, answer); a failed delivery is "
            "retried like any job (`JOBS_*`), then dead-lettered"
        ),
    )
    # Targets must be public addresses (app/webhooks/addresses.py), unless allowed here: every
    # loopback, private and CGNAT address, and/or these networks (comma-separated or a JSON list).
    webhook_allow_private: bool = Field(
        False,
        validation_alias="WEBHOOK_ALLOW_PRIVATE",
        description=(
            "admit webhook targets on loopback, private (10/8, 172.16/12, 192.168/16, "
            "fc00::/7) and shared (100.64/10) addresses, for receivers inside your "
            "network; link-local (the cloud metadata service), multicast, unspecified "
            "and reserved addresses stay refused ([api](api.md#webhooks))"
        ),
    )
    webhook_allowed_cidrs: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        [],
        max_length=100,
        validation_alias="WEBHOOK_ALLOWED_CIDRS",
        description=(
            "networks whose addresses webhook targets may use whatever their class, "
            "comma-separated or a JSON list (`10.20.0.0/16,fd12::/64`; a network with "
            "host bits set is refused at start-up); checked at registration and at "
            "every delivery"
        ),
    )

    @field_validator("webhook_allowed_cidrs", mode="before")
    @classmethod
    def _cidrs_from_text(cls, value: Any) -> Any:
        return listed(value)
