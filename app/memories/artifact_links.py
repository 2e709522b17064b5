"""Signed, expiring download links for artifacts: `GET /artifacts/download?token=…` works without
an API key until the token expires.

A token is `<payload>.<signature>`, both base64url: the payload is JSON naming the scope it was
made for (user and agent), the memory, the artifact and the expiry (Unix seconds); the signature
is HMAC-SHA256 of the payload with the server's key (ENGRAM_ARTIFACT_URL_SECRET, else the
random key in data_dir/artifacts/.url-secret). The download still goes through the scope: an
artifact deleted, or a memory deleted, since the link was made is a 404. Changing the key voids
every link.
"""

import base64
import hashlib
import hmac
import json
from dataclasses import asdict, dataclass

from app.errors import Forbidden
from app.scope import Scope


@dataclass(frozen=True)
class Grant:
    user_id: str
    agent_id: str | None
    memory_id: str
    artifact_id: str
    expires: int  # Unix seconds

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)


def sign(grant: Grant, key: bytes) -> str:
    payload = _b64(json.dumps(asdict(grant), separators=(",", ":")).encode())
    return f"{payload}.{_b64(_mac(payload, key))}"


def verify(token: str, key: bytes, now: float) -> Grant:
    """The grant a token carries; Forbidden if it is forged, malformed or expired."""
    payload, _, signature = token.partition(".")
    try:
        valid = hmac.compare_digest(_unb64(signature), _mac(payload, key))
        grant = Grant(**json.loads(_unb64(payload))) if valid else None
    except (ValueError, TypeError):
        grant = None
    if grant is None:
        raise Forbidden("This download link is not valid")
    if grant.expires <= now:
        raise Forbidden("This download link has expired: ask for a new one")
    return grant


def _mac(payload: str, key: bytes) -> bytes:
    return hmac.new(key, payload.encode(), hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
