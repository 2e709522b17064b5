"""API keys made at runtime (POST /admin/keys): stored in the graph as digests, cached here.

A request with a key this process has seen costs no graph round trip: the digest is answered
from a bounded cache for up to `cache_s` seconds, then checked again. An unknown digest is
looked up once by its index and remembered as unknown for as long, so a client repeating a
wrong key does not reach the graph each time. A revocation drops the key from this process's
cache at once; other processes poll the ring's revision every `refresh_s` seconds and empty
their caches when it changed, so a revoked key fails everywhere within `refresh_s` (plus one
poll's round trip). Runtime keys are user keys only: the admin key stays in configuration.
"""

import hashlib
import logging
import secrets
import uuid
from dataclasses import dataclass

from cachetools import TTLCache

from app.auth import KeyRing, Principal
from app.auth.oauth import OAuthTokens
from app.errors import Conflict, NotFound, StoreUnavailable
from app.models import to_iso, utc_now
from app.storage.graph import api_keys
from app.storage.graph.api_keys import ApiKeyRecord
from app.storage.graph.store import GraphStore

log = logging.getLogger(__name__)

KEY_PREFIX = "engram_"
CACHED_KEYS = 10_000  # digests known good, per process
CACHED_MISSES = 10_000  # digests known unknown, per process


@dataclass(frozen=True, slots=True)
class KeyPolicy:
    refresh_s: float  # how often the ring's revision is polled
    cache_s: float  # how long a digest's answer (known or unknown) is trusted
    max_per_user: int  # unrevoked keys a user may hold


def digest_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def principal_of(record: ApiKeyRecord) -> Principal:
    return Principal(record.user_id, record.key_id, record.agent_prefix, is_admin=False)


class RuntimeKeys:
    """Issues, revokes and authenticates the keys held in the graph."""

    def __init__(self, graph: GraphStore, policy: KeyPolicy) -> None:
        self.graph, self.policy = graph, policy
        self._known: TTLCache[str, Principal] = TTLCache(CACHED_KEYS, policy.cache_s)
        self._unknown: TTLCache[str, bool] = TTLCache(CACHED_MISSES, policy.cache_s)
        self._revision: str | None = None
        self._generation = 0  # counts cache clears: a look-up begun before one is not kept
        self._outage = False  # the revision poll failed last time (logged once)
        self._used: dict[str, str] = {}  # key id -> when last used, written in batches

    async def start(self) -> None:
        self._revision = await api_keys.revision(self.graph)

    async def authenticate(self, presented: str) -> Principal | None:
        digest = digest_of(presented)
        principal = self._known.get(digest)
        if principal is None and digest not in self._unknown:
            principal = await self._look_up(digest)
        if principal is not None and len(self._used) < CACHED_KEYS:
            self._used[principal.key_id] = to_iso(utc_now())
        return principal

    async def _look_up(self, digest: str) -> Principal | None:
        generation = self._generation
        try:
            record = await api_keys.active_by_digest(self.graph, digest)
        except StoreUnavailable:
            log.warning("API key look-up failed: FalkorDB is unavailable")
            return None  # not remembered: the key may be good once the graph answers
        principal = principal_of(record) if record is not None else None
        if generation == self._generation:  # else a revocation may have come in meanwhile
            if principal is None:
                self._unknown[digest] = True
            else:
                self._known[digest] = principal
        return principal

    async def issue(
        self, user_id: str, agent_prefix: str | None, label: str | None, actor: str
    ) -> tuple[ApiKeyRecord, str]:
        """A new key for the user: its record and the key itself (shown once, never stored)."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        record = ApiKeyRecord(
            key_id=secrets.token_hex(8),
            digest=digest_of(key),
            user_id=user_id,
            created_at=to_iso(utc_now()),
            agent_prefix=agent_prefix,
            label=label,
            created_by=actor,
        )
        if not await api_keys.create_key(self.graph, record, self.policy.max_per_user):
            raise Conflict(
                f"User {user_id} already holds {self.policy.max_per_user} unrevoked API keys, "
                "the most allowed (ENGRAM_MAX_KEYS_PER_USER); revoke one first"
            )
        self._unknown.pop(record.digest, None)
        return record, key

    async def revoke(self, key_id: str) -> ApiKeyRecord:
        record = await api_keys.revoke_key(self.graph, key_id, to_iso(utc_now()), uuid.uuid4().hex)
        if record is None:
            raise NotFound(f"API key {key_id} not found")
        self._generation += 1
        self._known.pop(record.digest, None)
        return record

    async def refresh(self) -> None:
        """Empties the caches if a key was revoked (by any process) or the graph was restored.
        While the graph is down the caches stay as they are (logged once per outage)."""
        try:
            revision = await api_keys.revision(self.graph)
        except StoreUnavailable:
            if not self._outage:
                log.warning("cannot poll for revoked API keys: FalkorDB is unavailable")
            self._outage = True
            return
        self._outage = False
        if revision != self._revision:
            self._generation += 1
            self._known.clear()
            self._unknown.clear()
            self._revision = revision

    async def is_live(self, key_id: str, user_id: str) -> bool:
        """Whether the key is this user's and not revoked, read from the graph (not the cache:
        a revocation in any process counts at once)."""
        record = await api_keys.get_key(self.graph, key_id)
        return record is not None and record.revoked_at is None and record.user_id == user_id

    async def flush_last_used(self) -> None:
        used, self._used = self._used, {}
        try:
            await api_keys.touch_keys(self.graph, used)
        except StoreUnavailable:
            self._used = {**used, **self._used}  # kept for the next flush


class Authenticator:
    """Configured keys first (ENGRAM_API_KEYS, the local key, the admin key), then runtime keys,
    then (when configured) the OAuth authorization server's access tokens."""

    def __init__(
        self, ring: KeyRing, runtime: RuntimeKeys | None, tokens: OAuthTokens | None = None
    ) -> None:
        self.ring, self.runtime, self.tokens = ring, runtime, tokens

    async def authenticate(self, presented: str) -> Principal | None:
        principal = self.ring.authenticate(presented)
        if principal is None and self.runtime is not None:
            principal = await self.runtime.authenticate(presented)
        if principal is None and self.tokens is not None:
            principal = await self.tokens.authenticate(presented)
        return principal

    async def is_live(self, key_id: str, user_id: str) -> bool:
        """Whether the key with this id is still one of the user's valid keys (what a signed
        download URL made with it needs: app/artifacts/links.py)."""
        if self.ring.holds(key_id, user_id):
            return True
        return self.runtime is not None and await self.runtime.is_live(key_id, user_id)
