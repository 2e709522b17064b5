"""Request dependencies: the stores, the authenticated caller and their scope."""

from typing import Annotated

from fastapi import Depends, Header, Request

from app.auth import KeyRing, Principal, resolve_scope
from app.errors import Forbidden, Unauthorized
from app.runtime import Runtime
from app.scope import Scope
from app.storage import Stores


async def get_stores(request: Request) -> Stores:
    return request.app.state.stores


async def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def _presented_key(request: Request) -> str | None:
    # AutoMem's clients send the admin token in these headers, next to their API token.
    admin = request.headers.get("x-admin-token") or request.headers.get("x-admin-api-key")
    if admin:
        return admin
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("x-api-key") or None


async def optional_principal(request: Request) -> Principal | None:
    """The caller if a valid key was presented; None if none was. A wrong key is always 401."""
    key = _presented_key(request)
    if key is None:
        return None
    keyring: KeyRing = request.app.state.keyring
    principal = keyring.authenticate(key)
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
    principal: Annotated[Principal, Depends(require_principal)], x_agent_id: AgentHeader = None
) -> Scope:
    return resolve_scope(principal, x_agent_id)


StoresDep = Annotated[Stores, Depends(get_stores)]
RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
PrincipalDep = Annotated[Principal, Depends(require_principal)]
OptionalPrincipalDep = Annotated[Principal | None, Depends(optional_principal)]
AdminDep = Annotated[Principal, Depends(require_admin)]
ScopeDep = Annotated[Scope, Depends(get_scope)]
