"""Access tokens of the operator's OAuth authorization server (MCP_OAUTH_*), taken where an API
key is: a JWT signed by one of the server's published keys, for this resource, names a user.

Engram is only the resource server: it issues no tokens. Signing keys come from the server's
JWKS URL through PyJWT's PyJWKClient (cached; an unknown key id makes it fetch again), on a
thread, since the client fetches with blocking I/O.
"""

import asyncio
import hashlib
import logging
from collections.abc import Sequence

import jwt

from app.auth import Principal

log = logging.getLogger(__name__)

# Asymmetric only: with HS* the "key" would be a secret shared with every resource server.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
ALGORITHMS += ["EdDSA"]
MAX_USER_ID = 200
JWKS_CACHE_S = 300


class OAuthTokens:
    """Checks bearer tokens that are not API keys against the authorization servers' keys."""

    def __init__(
        self,
        *,
        issuers: Sequence[str],
        jwks_url: str,
        audience: str,
        user_claim: str = "sub",
    ) -> None:
        self.issuers, self.audience, self.user_claim = list(issuers), audience, user_claim
        self._keys = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=JWKS_CACHE_S, timeout=10)

    async def authenticate(self, presented: str) -> Principal | None:
        if presented.count(".") != 2:  # not a JWT: an API key that did not match
            return None
        return await asyncio.to_thread(self._verify, presented)

    def _verify(self, token: str) -> Principal | None:
        try:
            key = self._keys.get_signing_key_from_jwt(token)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuers,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWKClientConnectionError as exc:
            log.warning("The OAuth signing keys could not be fetched: %s", exc)
            return None
        except jwt.PyJWTError as exc:
            log.info("An OAuth access token was refused: %s", exc)
            return None
        user = claims.get(self.user_claim)
        if not isinstance(user, str) or not user or len(user) > MAX_USER_ID:
            log.info("An OAuth access token has no usable %r claim", self.user_claim)
            return None
        key_id = "oauth-" + hashlib.sha256(token.encode()).hexdigest()[:8]
        return Principal(user_id=user, key_id=key_id)
