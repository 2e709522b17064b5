"""The `Idempotency-Key` header of the writing routes (POST /memory, /memory/batch, /remember,
/associate), as in Stripe's API.

The first request with a key does the write and its response is kept for 24 hours; a retry with
the same key and the same request (method, path, JSON body) gets that response again, with
`Idempotent-Replayed: true`, and writes nothing; the same key with another request is a 409.
Keys belong to the scope the request resolved to (user and agent, however the agent was reached:
an agent-bound key's own agent, or X-Agent-Id): two users, or two agents of one user, never see
each other's, and one scope reached two ways is the same scope.

The key is claimed by the write itself (app/storage/graph/idempotency.py), so a crash cannot leave a
write without its key. When a retry finds the key without a response (the first attempt wrote,
then failed before answering), the route's `again` finishes the request from the ids the write
recorded, without writing it a second time.
"""

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Header, Request
from fastapi.responses import JSONResponse

from app.errors import Conflict
from app.models import utc_now
from app.scope import Scope
from app.storage.graph.idempotency import Claim, KeyTaken, lookup, record
from app.storage.graph.store import GraphStore

Reply = tuple[int, dict[str, Any]]
Write = Callable[[Claim | None], Awaitable[Reply]]
Again = Callable[[list[str]], Awaitable[Reply]]

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[\x21-\x7e]{1,255}$",
        description="Makes a retry safe: the same key and request within 24 h returns the first "
        "response and writes nothing; the same key with another request is a 409. 1–255 "
        "printable ASCII characters, e.g. a UUID.",
    ),
]
REPLAYED = {"Idempotent-Replayed": "true"}


async def fingerprint(request: Request) -> str:
    """What makes two requests of one scope the same: method, path and the JSON body's content."""
    raw = await request.body()
    try:
        body = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        body = raw
    head = "\n".join((request.method, request.url.path))
    return hashlib.sha256(head.encode() + b"\n" + body).hexdigest()


def key_scope(request: Request, user_id: str) -> Scope:
    """The scope the request resolved to, as `app.deps.get_scope` recorded it."""
    scope = getattr(request.state, "scope", None)
    if not isinstance(scope, Scope) or scope.user_id != user_id:
        raise RuntimeError("a route taking an Idempotency-Key must depend on the caller's scope")
    return scope


def scoped_key(scope: Scope, key: str) -> str:
    """The key as stored: an agent's keys are its own. A shared scope's key is stored as sent; an
    agent's follows its id and a space, which neither an agent id nor a key can hold."""
    return key if scope.agent_id is None else f"{scope.agent_id} {key}"


async def respond_once(
    request: Request, graph: GraphStore, user_id: str, key: str | None, write: Write, again: Again
) -> JSONResponse:
    """The route's response: `write(claim)` for a new key (or none), a replay for a known one.

    `user_id`: the user of the route's scope; the key is the whole scope's (`key_scope`)."""
    if key is None:
        status, body = await write(None)
        return JSONResponse(body, status_code=status)
    key = scoped_key(key_scope(request, user_id), key)
    now, mark = utc_now(), await fingerprint(request)
    for _ in range(3):
        found = await lookup(graph, user_id, key, now)
        claim = Claim(user_id, key, mark, now)
        if found is None:
            try:
                status, body = await write(claim)
            except KeyTaken:
                continue  # a concurrent request with this key won: answer as its retry
            await record(graph, claim, status, json.dumps(body))
            return JSONResponse(body, status_code=status)
        if found.fingerprint != mark:
            raise Conflict(
                "Idempotency-Key was already used with a different request; use a new key"
            )
        if found.response is not None:
            replay = json.loads(found.response)
            return JSONResponse(replay, status_code=found.status or 200, headers=REPLAYED)
        status, body = await again(found.refs)
        await record(graph, claim, status, json.dumps(body))
        return JSONResponse(body, status_code=status, headers=REPLAYED)
    raise Conflict("Idempotency-Key is being used by concurrent requests; retry")
