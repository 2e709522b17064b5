"""Request dependencies: the stores and services a route needs, the caller and their scope.

Each service comes on its own (`StoresDep`, `JobsDep`, ...), read from the running Runtime that
`app.main` keeps in `app.state.runtime`; this module never imports the composition root.
"""

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Protocol

from fastapi import Depends, Header, Request

from app.auth import Principal, resolve_scope
from app.auth.runtime_keys import Authenticator, RuntimeKeys
from app.classify import ClassificationStats
from app.config import Settings
from app.embeddings import Embedder
from app.errors import Forbidden, Unauthorized
from app.jobs.queue import JobQueue
from app.llm import LLMClient
from app.scope import Scope
from app.storage import Stores


def runtime_part(name: str) -> Callable[[Request], Awaitable[Any]]:
    """A dependency giving one attribute of the running Runtime (a store, a service)."""

    async def part(request: Request) -> Any:
        return getattr(request.app.state.runtime, name)

    part.runtime_part = name  # type: ignore[attr-defined]  # read by from_runtime()
    return part


def from_runtime(call: Callable[..., Any]) -> bool:
    """Whether a dependency gives a part of the Runtime (a store or a service)."""
    return hasattr(call, "runtime_part")


async def get_stores(request: Request) -> Stores:
    stores: Stores = request.app.state.stores
    return stores


def _presented_key(request: Request) -> str | None:
    # AutoMem's clients send the admin token in these headers, next to their API token.
    admin = request.headers.get("x-admin-token") or request.headers.get("x-admin-api-key")
    if admin:
        return admin
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("x-api-key") or _query_key(request)


def _query_key(request: Request) -> str | None:
    """AutoMem's `?api_key=`, where ENGRAM_ALLOW_QUERY_API_KEY allows it (off by default: a URL
    is logged by proxies; Engram's own request log leaves the query string out)."""
    runtime = getattr(request.app.state, "runtime", None)
    if runtime is None or not runtime.settings.allow_query_api_key:
        return None
    return request.query_params.get("api_key") or None


async def optional_principal(request: Request) -> Principal | None:
    """The caller if a valid key was presented; None if none was. A wrong key is always 401."""
    key = _presented_key(request)
    if key is None:
        return None
    authenticator: Authenticator = request.app.state.authenticator
    principal = await authenticator.authenticate(key)
    if principal is None:
        raise Unauthorized("Invalid API key")
    return principal


async def require_principal(
    principal: Annotated[Principal | None, Depends(optional_principal)],
) -> Principal:
    if principal is None:
        raise Unauthorized(
            "An API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
        )
    return principal


async def require_admin(principal: Annotated[Principal, Depends(require_principal)]) -> Principal:
    if not principal.is_admin:
        raise Forbidden("This endpoint needs the admin key")
    return principal


AgentHeader = Annotated[
    str | None, Header(description="Agent scope; sub-agents as 'parent:child'.")
]


async def get_scope(
    request: Request,
    principal: Annotated[Principal, Depends(require_principal)],
    x_agent_id: AgentHeader = None,
) -> Scope:
    scope = resolve_scope(principal, x_agent_id)
    request.state.scope = scope  # whose Idempotency-Keys the request uses (app.http_idempotency)
    return scope


StoresDep = Annotated[Stores, Depends(get_stores)]
JobsDep = Annotated[JobQueue, Depends(runtime_part("jobs"))]
EmbedderDep = Annotated[Embedder, Depends(runtime_part("embedder"))]
SettingsDep = Annotated[Settings, Depends(runtime_part("settings"))]
LLMDep = Annotated[LLMClient | None, Depends(runtime_part("llm"))]
ClassificationStatsDep = Annotated[
    ClassificationStats, Depends(runtime_part("classification_stats"))
]
RuntimeKeysDep = Annotated[RuntimeKeys, Depends(runtime_part("runtime_keys"))]
WorkerSlotsDep = Annotated[int, Depends(runtime_part("worker_slots"))]


class Counters(Protocol):
    """Counters a status page shows (e.g. /remember's extraction outcomes)."""

    def as_dict(self) -> dict[str, Any]: ...


RememberStatsDep = Annotated[Counters, Depends(runtime_part("remember_stats"))]
SchedulerRunningDep = Annotated[bool, Depends(runtime_part("scheduler_running"))]
PrincipalDep = Annotated[Principal, Depends(require_principal)]
OptionalPrincipalDep = Annotated[Principal | None, Depends(optional_principal)]
AdminDep = Annotated[Principal, Depends(require_admin)]
ScopeDep = Annotated[Scope, Depends(get_scope)]
