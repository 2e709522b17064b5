"""Idempotency keys in the graph: `(:IdempotencyKey {user_id, key, fingerprint, refs, ...})`.

A key is claimed by the write it protects: `guarded(cypher)` prefixes a write query with the
claim, so FalkorDB (one writer at a time per graph) creates the key and the data together or
neither; a key already claimed makes the whole query write nothing and return no row. Writes that
are harmless to repeat (a MERGE of edges, a job enqueued under a fixed id) may claim first on
their own (`claim`) and repeat the write when a retry finds the key without a response.

The response is recorded once the request has one (`record`); a retry with the same key and the
same request replays it. Keys live for `TTL_HOURS`; expired ones of the user are removed by the
next claim (at most SWEEP at a time), so they never pile up.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.models import to_iso
from app.storage.falkordb.client import FalkorGraph

TTL_HOURS = 24
SWEEP = 100

_CLAIM = """
OPTIONAL MATCH (old:IdempotencyKey {user_id: $idem_user}) WHERE old.expires_at <= $idem_now
WITH collect(old)[..$idem_sweep] AS expired
FOREACH (o IN expired | DELETE o)
WITH 1 AS one
OPTIONAL MATCH (k:IdempotencyKey {user_id: $idem_user, key: $idem_key})
WITH count(k) AS taken WHERE taken = 0
CREATE (:IdempotencyKey {user_id: $idem_user, key: $idem_key, fingerprint: $idem_fingerprint,
        refs: $idem_refs, created_at: $idem_now, expires_at: $idem_expires})
WITH 1 AS claimed
"""
CLAIM_ALONE = _CLAIM + "RETURN claimed"
LOOKUP = """
MATCH (k:IdempotencyKey {user_id: $user_id, key: $key}) WHERE k.expires_at > $now
RETURN k.fingerprint, k.refs, k.status, k.response
"""
RECORD = """
MATCH (k:IdempotencyKey {user_id: $user_id, key: $key}) WHERE k.expires_at > $now
SET k.status = $status, k.response = $response
"""


class KeyTaken(Exception):
    """The key was claimed by another request (the guarded write wrote nothing)."""


@dataclass(frozen=True)
class Claim:
    """One request's claim of a key, with what it writes (`refs`: the ids a retry needs)."""

    user_id: str
    key: str
    fingerprint: str
    at: datetime
    refs: list[str] = field(default_factory=list)

    def params(self) -> dict[str, Any]:
        return {
            "idem_user": self.user_id,
            "idem_key": self.key,
            "idem_fingerprint": self.fingerprint,
            "idem_refs": list(self.refs),
            "idem_now": to_iso(self.at),
            "idem_expires": to_iso(self.at + timedelta(hours=TTL_HOURS)),
            "idem_sweep": SWEEP,
        }


@dataclass(frozen=True)
class Found:
    """A live key: the request that claimed it and, once it finished, its response."""

    fingerprint: str
    refs: list[str]
    status: int | None
    response: str | None  # the JSON body


def guarded(cypher: str) -> str:
    """`cypher` run only if the claim succeeds, the claim written with it (params: Claim.params)."""
    return _CLAIM + cypher


async def claim(graph: FalkorGraph, claim: Claim) -> None:
    """Claims the key on its own; KeyTaken if it is live already."""
    if not await graph.query(CLAIM_ALONE, claim.params()):
        raise KeyTaken(claim.key)


async def lookup(graph: FalkorGraph, user_id: str, key: str, now: datetime) -> Found | None:
    rows = await graph.ro_query(LOOKUP, {"user_id": user_id, "key": key, "now": to_iso(now)})
    if not rows:
        return None
    fingerprint, refs, status, response = rows[0]
    return Found(fingerprint, list(refs or []), status, response)


async def record(graph: FalkorGraph, claim: Claim, status: int, response: str) -> None:
    params = {"user_id": claim.user_id, "key": claim.key, "now": to_iso(claim.at)}
    await graph.query(RECORD, {**params, "status": status, "response": response})
