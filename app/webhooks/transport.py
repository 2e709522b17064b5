"""The connection a delivery goes out on: the target's host resolved, every address checked
(app/webhooks/addresses.py), then the connection made to a checked address, never to the name.

Checking the name and then letting the HTTP client resolve it again would leave a window for
DNS rebinding (a name that answers a public address to the check and 127.0.0.1 to the
connection). So the check lives in httpcore's network backend, where the connection is made;
TLS is still verified against the target's host name. No proxy from the environment is used
(a proxy would resolve the name itself), and redirects are not followed.
"""

from collections.abc import Iterable

import httpcore
import httpx

from app.webhooks.addresses import (
    AddressPolicy,
    AddressRefused,
    Resolver,
    checked_addresses,
    loop_resolver,
)


class CheckedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network I/O, connecting only to addresses the policy allows."""

    def __init__(
        self, policy: AddressPolicy, timeout_s: float, resolve: Resolver = loop_resolver
    ) -> None:
        self._policy = policy
        self._timeout_s = timeout_s
        self._resolve = resolve
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await checked_addresses(
            host, port, self._policy, timeout_s=self._timeout_s, resolve=self._resolve
        )
        failure: Exception | None = None
        for address in addresses:  # the next one when one cannot be reached
            try:
                return await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None  # checked_addresses answers at least one address
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("a webhook is never delivered over a Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class CheckedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport on a pool whose connections go through CheckedBackend."""

    def __init__(
        self, policy: AddressPolicy, timeout_s: float, resolve: Resolver = loop_resolver
    ) -> None:
        super().__init__(trust_env=False)
        # httpx takes no network backend of its own: its pool is replaced by one that has it.
        # Fail loudly should httpx ever build it differently, rather than connect unchecked.
        if not isinstance(getattr(self, "_pool", None), httpcore.AsyncConnectionPool):
            raise RuntimeError("httpx's transport has no connection pool to replace")
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            network_backend=CheckedBackend(policy, timeout_s, resolve),
        )


def delivery_client(policy: AddressPolicy, timeout_s: float) -> httpx.AsyncClient:
    """A client for one delivery: checked connections, no redirects, no environment proxy."""
    return httpx.AsyncClient(
        transport=CheckedTransport(policy, timeout_s),
        timeout=timeout_s,
        follow_redirects=False,
        trust_env=False,
    )
