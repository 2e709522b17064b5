from typing import Annotated, Any, Self

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import NoDecode

from app.settings.text import listed


class McpOAuthSettings(BaseModel):
    """OAuth for /mcp

    The authorization servers whose access tokens `/mcp` takes besides API keys, where their
    signing keys are, and how a token names its user ([mcp](mcp.md#oauth)).
    """

    # The authorization servers' issuer URLs (comma-separated or a JSON list; empty = none, no
    # metadata).
    mcp_oauth_authorization_servers: Annotated[list[str], NoDecode] = Field(
        [],
        validation_alias="MCP_OAUTH_AUTHORIZATION_SERVERS",
        description=(
            "OAuth authorization servers (issuer URLs, comma-separated or a JSON "
            "list) whose access tokens `/mcp` takes; publishes "
            "`/.well-known/oauth-protected-resource` ([mcp](mcp.md#oauth)); unset: "
            "off"
        ),
    )
    mcp_oauth_jwks_url: str | None = Field(
        None,
        validation_alias="MCP_OAUTH_JWKS_URL",
        description="required with the servers: their signing keys' URL (`jwks_uri`)",
    )
    mcp_oauth_resource: str | None = Field(
        None,
        validation_alias="MCP_OAUTH_RESOURCE",
        description="required with the servers: the public URL of `/mcp`",
    )
    mcp_oauth_audience: str | None = Field(
        None,
        validation_alias="MCP_OAUTH_AUDIENCE",
        description="the `aud` tokens must carry; unset: the resource",
    )
    mcp_oauth_user_claim: str = Field(
        "sub",
        min_length=1,
        validation_alias="MCP_OAUTH_USER_CLAIM",
        description="the claim that names the Engram user",
    )

    @field_validator("mcp_oauth_authorization_servers", mode="before")
    @classmethod
    def _servers_from_text(cls, value: Any) -> Any:
        return listed(value)

    @model_validator(mode="after")
    def _oauth_keys_with_servers(self) -> Self:
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
