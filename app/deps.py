"""Request dependencies: the stores and services a route needs, the caller and their scope.

Each service comes on its own (`StoresDep`, `JobsDep`, ...), read from the running Runtime that
`app.main` keeps in `app.state.runtime`; this module never imports the composition root. What a
dependency reads from it is declared by a Protocol (`Served` here, one per domain for its own
services, each read through a typed `_served`), and `app.main` checks that the Runtime satisfies
each, so every part is typed.
"""

import uuid
from collections.abc import Callable
from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, Header, Path, Request
from pydantic import BeforeValidator

from app.auth import Principal, resolve_scope
from app.auth.runtime_keys import Authenticator, RuntimeKeys
from app.classify import ClassificationStats
from app.config import Settings
from app.embeddings import Embedder
from app.errors import BadRequest, Forbidden, ServiceUnavailable, Unauthorized
from app.jobs.queue import JobQueue
from app.llm import LLMClient
from app.scope import Scope
from app.storage import Stores
from app.validation import strict_bool

Dependency = TypeVar("Dependency", bound=Callable[..., Any])
# A boolean query parameter: true/false/1/0 only (pydantic alone also takes yes/on/y/t...).
QueryBool = Annotated[bool, BeforeValidator(strict_bool, json_schema_input_type=bool)]
_FROM_RUNTIME: set[Callable[..., Any]] = set()


async def valid_memory_id(memory_id: Annotated[str, Path(description="The memory's UUID.")]) -> str:
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        raise BadRequest("memory_id must be a valid UUID") from None


# A memory addressed in a route's path (the memory, artifact, relation and erase routes).
MemoryIdDep = Annotated[str, Depends(valid_memory_id)]


def runtime_dependency(call: Dependency) -> Dependency:
    """Marks a dependency that reads a part of the Runtime (it answers 503 before start-up)."""
    _FROM_RUNTIME.add(call)
    return call


def from_runtime(call: Callable[..., Any]) -> bool:
    """Whether a dependency gives a part of the Runtime (a store or a service)."""
    return call in _FROM_RUNTIME


class Counters(Protocol):
    """Counters a status page shows (e.g. /remember's extraction outcomes)."""

    def as_dict(self) -> dict[str, Any]: ...


class Served(Protocol):
    """The parts of the Runtime this module's dependencies read."""

    @property
    def settings(self) -> Settings: ...
    @property
    def jobs(self) -> JobQueue: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def llm(self) -> LLMClient | None: ...
    @property
    def classification_stats(self) -> ClassificationStats: ...
    @property
    def runtime_keys(self) -> RuntimeKeys | None: ...
    @property
    def worker_slots(self) -> int: ...
    @property
    def remember_stats(self) -> Counters: ...
    @property
    def scheduler_running(self) -> bool: ...


def _served(request: Request) -> Served:
    served: Served = request.app.state.runtime  # app.main checks that the Runtime is one
    return served


@runtime_dependency
async def get_jobs(request: Request) -> JobQueue:
    return _served(request).jobs


@runtime_dependency
async def get_embedder(request: Request) -> Embedder:
    return _served(request).embedder


@runtime_dependency
async def get_runtime_settings(request: Request) -> Settings:
    return _served(request).settings


@runtime_dependency
async def get_llm(request: Request) -> LLMClient | None:
    return _served(request).llm


@runtime_dependency
async def get_classification_stats(request: Request) -> ClassificationStats:
    return _served(request).classification_stats


@runtime_dependency
async def get_runtime_keys(request: Request) -> RuntimeKeys:
    keys = _served(request).runtime_keys
    if keys is None:  # a process that serves no API (a worker) has no key registry
        raise ServiceUnavailable("This process keeps no API keys")
    return keys


@runtime_dependency
async def get_worker_slots(request: Request) -> int:
    return _served(request).worker_slots


@runtime_dependency
async def get_remember_stats(request: Request) -> Counters:
    return _served(request).remember_stats


@runtime_dependency
async def get_scheduler_running(request: Request) -> bool:
    return _served(request).scheduler_running


async def get_stores(request: Request) -> Stores:
    stores: Stores = request.app.state.stores
    return stores


async def get_configured_keys(request: Request) -> list[Principal]:
    """Who the configured keys (ENGRAM_API_KEYS, the local key, the admin key) stand for."""
    authenticator: Authenticator = request.app.state.authenticator
    return authenticator.ring.principals()


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


async def get_authenticator(request: Request) -> Authenticator:
    authenticator: Authenticator = request.app.state.authenticator
    return authenticator


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
JobsDep = Annotated[JobQueue, Depends(get_jobs)]
EmbedderDep = Annotated[Embedder, Depends(get_embedder)]
SettingsDep = Annotated[Settings, Depends(get_runtime_settings)]
LLMDep = Annotated[LLMClient | None, Depends(get_llm)]
ClassificationStatsDep = Annotated[ClassificationStats, Depends(get_classification_stats)]
RuntimeKeysDep = Annotated[RuntimeKeys, Depends(get_runtime_keys)]
WorkerSlotsDep = Annotated[int, Depends(get_worker_slots)]
RememberStatsDep = Annotated[Counters, Depends(get_remember_stats)]
SchedulerRunningDep = Annotated[bool, Depends(get_scheduler_running)]
PrincipalDep = Annotated[Principal, Depends(require_principal)]
OptionalPrincipalDep = Annotated[Principal | None, Depends(optional_principal)]
AuthenticatorDep = Annotated[Authenticator, Depends(get_authenticator)]
AdminDep = Annotated[Principal, Depends(require_admin)]
ScopeDep = Annotated[Scope, Depends(get_scope)]
ConfiguredKeysDep = Annotated[list[Principal], Depends(get_configured_keys)]
