"""API keys: each maps to a user (and optionally an agent prefix); one admin key for operators.

This module holds the configured keys (ENGRAM_API_KEYS, the local key, the admin key) and the
caller's scope; keys made at runtime (/admin/keys) are in `app.auth.runtime_keys`.

Keys are held only as sha256 digests and compared in constant time. A configured key may be
given in plain text or as ``sha256:<hex>``. Keys travel in headers only (`Authorization: Bearer`
or `X-API-Key`), never in query strings, which end up in logs.
"""

import hashlib
import hmac
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from app.errors import BadRequest, Forbidden
from app.scope import AGENT_ID, SUBAGENT_SEPARATOR, Scope

log = logging.getLogger(__name__)

LOCAL_KEY_FILE = "api_key"


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller."""

    user_id: str | None
    key_id: str
    agent_prefix: str | None = None
    is_admin: bool = False

    @property
    def actor(self) -> str:
        """How the audit log names this caller (never the key itself)."""
        who = "admin" if self.is_admin else f"user:{self.user_id}"
        return f"{who}/key:{self.key_id}"


@dataclass(frozen=True, slots=True)
class _Entry:
    digest: bytes
    principal: Principal


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def _configured_digest(key: str) -> bytes:
    if key.startswith("sha256:"):
        return bytes.fromhex(key.removeprefix("sha256:"))
    return _digest(key)


class KeyRing:
    """The set of valid keys."""

    def __init__(self) -> None:
        self._entries: list[_Entry] = []

    def add(
        self,
        key: str,
        *,
        user_id: str | None,
        agent_prefix: str | None = None,
        is_admin: bool = False,
    ) -> None:
        digest = _configured_digest(key)
        principal = Principal(user_id, digest.hex()[:8], agent_prefix, is_admin)
        self._entries.append(_Entry(digest, principal))

    def authenticate(self, presented: str) -> Principal | None:
        """The principal for a key, or None. Checks every entry, so timing reveals nothing."""
        digest = _digest(presented)
        found = None
        for entry in self._entries:
            if hmac.compare_digest(digest, entry.digest):
                found = entry.principal
        return found

    def holds(self, key_id: str, user_id: str) -> bool:
        """Whether a user key with this id (of this user) is configured."""
        return any(
            e.principal.key_id == key_id
            and e.principal.user_id == user_id
            and not e.principal.is_admin
            for e in self._entries
        )

    def principals(self) -> list[Principal]:
        """Who the configured keys stand for (the operator's list of users: never the keys)."""
        return [entry.principal for entry in self._entries]

    def __len__(self) -> int:
        return len(self._entries)


def build_keyring(
    api_keys: dict[str, str | dict[str, str]],
    admin_key: str | None,
    local_key: str | None,
    default_user: str,
) -> KeyRing:
    """Builds the key ring from configuration (and the embedded default's local key)."""
    ring = KeyRing()
    for key, binding in api_keys.items():
        if isinstance(binding, str):
            ring.add(key, user_id=binding)
        else:
            ring.add(key, user_id=binding["user_id"], agent_prefix=binding.get("agent_prefix"))
    if local_key:
        ring.add(local_key, user_id=default_user)
    if admin_key:
        ring.add(admin_key, user_id=None, is_admin=True)
    return ring


def load_or_create_local_key(data_dir: Path) -> tuple[str, Path, bool]:
    """The embedded default's key in data_dir/api_key (0600), created on first run."""
    path = data_dir / LOCAL_KEY_FILE
    if path.exists():
        return path.read_text().strip(), path, False
    data_dir.mkdir(parents=True, exist_ok=True)
    key = "engram_" + secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key, path, True


def resolve_scope(principal: Principal, header_agent: str | None) -> Scope:
    """The caller's scope: the key's user, the agent from X-Agent-Id, under the key's prefix."""
    if principal.user_id is None:
        raise Forbidden("The admin key is for /admin endpoints; use a user's API key here")
    agent = header_agent.strip() if header_agent else None
    if agent and not AGENT_ID.fullmatch(agent):
        raise BadRequest("Invalid X-Agent-Id: use letters, digits, '_', '.', '-', '@' and ':'")
    prefix = principal.agent_prefix
    if prefix:
        agent = agent or prefix
        if not is_same_or_subagent(agent, prefix):
            raise Forbidden(f"This API key is limited to agent '{prefix}' and its sub-agents")
    return Scope(principal.user_id, agent)


def is_same_or_subagent(agent: str, parent: str) -> bool:
    return agent == parent or agent.startswith(parent + SUBAGENT_SEPARATOR)


def memory_agent(scope: Scope, requested: str | None) -> str | None:
    """The agent a new memory belongs to: the scope's agent or one of its sub-agents."""
    if requested is None or scope.agent_id is None:
        return requested or scope.agent_id  # an unrestricted key may name any agent
    if not is_same_or_subagent(requested, scope.agent_id):
        raise Forbidden(
            f"agent_id '{requested}' is outside your agent scope: it must be your X-Agent-Id "
            "or one of its sub-agents ('<agent>:<name>')"
        )
    return requested
