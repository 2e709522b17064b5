"""OAuth protected-resource metadata (RFC 9728) for /mcp: which authorization server issues the
tokens /mcp takes, so an MCP host that adds servers only through OAuth can sign its user in.
Published only when the operator names a server (MCP_OAUTH_AUTHORIZATION_SERVERS); the tokens
themselves are checked where API keys are (app/auth/oauth.py)."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from app.config import Settings

WELL_KNOWN = "/.well-known/oauth-protected-resource"


@dataclass(frozen=True, slots=True)
class ProtectedResource:
    resource: str
    authorization_servers: list[str]

    @property
    def metadata_url(self) -> str:
        """Where RFC 9728 §3.1 puts the metadata: the well-known path before the resource's."""
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}{WELL_KNOWN}{parts.path.rstrip('/')}"

    @property
    def challenge(self) -> str:
        """A 401's WWW-Authenticate: where a client learns how to get a token."""
        return f'Bearer resource_metadata="{self.metadata_url}"'

    def document(self) -> dict[str, object]:
        return {
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
            "resource_name": "Engram",
        }


def protected_resource(settings: Settings) -> ProtectedResource | None:
    if not settings.mcp_oauth_authorization_servers or not settings.mcp_oauth_resource:
        return None
    return ProtectedResource(
        settings.mcp_oauth_resource, list(settings.mcp_oauth_authorization_servers)
    )


def mount_metadata(app: FastAPI, resource: ProtectedResource) -> None:
    """Serves the metadata at the RFC's path for the resource, and at the bare well-known path
    that clients which ignore the resource's path ask."""
    path = urlsplit(resource.resource).path.rstrip("/")

    async def metadata() -> JSONResponse:
        return JSONResponse(resource.document(), headers={"Cache-Control": "max-age=3600"})

    for served in dict.fromkeys((f"{WELL_KNOWN}{path}", WELL_KNOWN)):
        app.add_api_route(served, metadata, methods=["GET"], include_in_schema=False)
