"""Signed, expiring download links for artifacts: `GET /artifacts/download?token=…` works without
an API key until the token expires.

A token is `<payload>.<signature>`, both base64url (unpadded, canonical: any other spelling of
the same bytes is refused): the payload is JSON naming the scope it was made for (user and
agent), the memory, the artifact, the expiry (Unix seconds) and the id of the API key that asked
for it; the signature is HMAC-SHA256 of the payload with the server's key
(ENGRAM_ARTIFACT_URL_SECRET, else the random key in data_dir/artifacts/.url-secret). The download
still goes through the scope: an artifact deleted, or a memory deleted, since the link was made
is a 404; and through the key: once it is revoked (or removed from the configuration), its links
are refused. Changing the server's key voids every link.
"""

import base64
import hashlib
import hmac
import json
import re
from dataclasses import asdict, dataclass

from app.errors import Forbidden
from app.scope import Scope

BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Grant:
    user_id: str
    agent_id: str | None
    memory_id: str
    artifact_id: str
    expires: int  # Unix seconds
    key_id: str  # the API key that asked for the link: it must still be valid at download

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
    """The bytes of unpadded base64url written as _b64 writes them, else ValueError: no other
    character, no padding, no spare bits set (which would spell the same bytes another way)."""
    if not BASE64URL.fullmatch(text):
        raise ValueError("not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("not the canonical base64url of its bytes")
    return data
