"""The key ring a serving process authenticates with: configured keys and runtime keys."""

import asyncio
import logging

from app.auth import KeyRing, build_keyring, load_or_create_local_key
from app.auth.oauth import OAuthTokens
from app.auth.runtime_keys import Authenticator, KeyPolicy, RuntimeKeys
from app.config import Settings
from app.refusals import no_api_keys
from app.storage.graph.store import GraphStore
from app.wiring.schedule import run_every

log = logging.getLogger(__name__)


async def start_authenticator(
    settings: Settings, graph: GraphStore
) -> tuple[Authenticator, list[asyncio.Task]]:
    """The authenticator and its background tasks: the revocation poll, the last-used writes."""
    policy = KeyPolicy(
        refresh_s=settings.keys_refresh_s,
        cache_s=settings.keys_cache_s,
        max_per_user=settings.max_keys_per_user,
    )
    runtime_keys = RuntimeKeys(graph, policy)
    await runtime_keys.start()
    tasks = [
        asyncio.create_task(run_every(policy.refresh_s, runtime_keys.refresh), name="key-refresh"),
        asyncio.create_task(
            run_every(settings.keys_last_used_s, runtime_keys.flush_last_used),
            name="key-last-used",
        ),
    ]
    return Authenticator(configured_keyring(settings), runtime_keys, oauth_tokens(settings)), tasks


def oauth_tokens(settings: Settings) -> OAuthTokens | None:
    """The authorization server's tokens, when one is configured (MCP_OAUTH_*)."""
    if not settings.mcp_oauth_authorization_servers or not settings.mcp_oauth_jwks_url:
        return None
    return OAuthTokens(
        issuers=settings.mcp_oauth_authorization_servers,
        jwks_url=settings.mcp_oauth_jwks_url,
        audience=settings.mcp_oauth_audience or settings.mcp_oauth_resource or "",
        user_claim=settings.mcp_oauth_user_claim,
    )


def configured_keyring(settings: Settings) -> KeyRing:
    local_key = None
    if settings.generate_local_key and not settings.api_keys:
        local_key, path, created = load_or_create_local_key(settings.data_dir)
        verb = "Created" if created else "Using"
        log.warning("%s the local API key for user '%s': %s", verb, settings.default_user, path)
    ring = build_keyring(settings.api_keys, settings.admin_key, local_key, settings.default_user)
    if not len(ring):
        raise no_api_keys()
    return ring
