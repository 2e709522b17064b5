"""Which addresses a webhook may be delivered to: public ones, unless the operator allows more.

A target names a host; what counts is every address that host resolves to (the event loop's
getaddrinfo, the resolver a connection would use, so `localhost`, `0x7f000001`, `2130706433`
and `127.1` all come out as 127.0.0.1). An address is allowed when it is in one of
WEBHOOK_ALLOWED_CIDRS, or when it is public, or, with WEBHOOK_ALLOW_PRIVATE, when it is
loopback, private or shared (CGNAT). Link-local (the cloud metadata service at 169.254.169.254),
unspecified, multicast and reserved addresses are allowed only by a CIDR naming them.

The check runs at registration (a 400 naming the reason) and again at every connection of a
delivery (app/webhooks/transport.py), which connects to the address it checked.
"""

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.config import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
# (host, port) -> getaddrinfo's answer; the event loop's by default.
Resolver = Callable[[str, int], Awaitable[list[tuple[Any, ...]]]]

PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(cidr) for cidr in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
) + (ipaddress.ip_network("fc00::/7"),)  # unique-local
SHARED_NETWORK = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
# The classes WEBHOOK_ALLOW_PRIVATE allows: where an operator's own receivers may live.
INTERNAL = ("loopback", "private", "shared (carrier-grade NAT)")


class AddressRefused(Exception):
    """A target's host resolves to an address deliveries may not go to (or to none)."""


class NameNotResolved(AddressRefused):
    """The host resolves to no address (at delivery: maybe for now only)."""


@dataclass(frozen=True)
class AddressPolicy:
    allow_private: bool = False
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> "AddressPolicy":
        return cls(settings.webhook_allow_private, tuple(settings.webhook_allowed_cidrs))

    def refusal(self, address: IPAddress) -> str | None:
        """Why deliveries may not go to this address (its class), or None when they may."""
        if any(address in network for network in self.allowed_networks):
            return None
        kind = address_class(address)
        if kind is None or (self.allow_private and kind in INTERNAL):
            return None
        return kind


def address_class(address: IPAddress) -> str | None:
    """The class of a non-public address ("loopback", "link-local", …); None for a public one.
    An IPv6 address that embeds an IPv4 one (IPv4-mapped, 6to4) is the IPv4 one's class."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return address_class(embedded)
    checks = (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (address in SHARED_NETWORK, "shared (carrier-grade NAT)"),
        (any(address in network for network in PRIVATE_NETWORKS), "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "special-purpose"),
    )
    return next((kind for matched, kind in checks if matched), None)


async def loop_resolver(host: str, port: int) -> list[tuple[Any, ...]]:
    loop = asyncio.get_running_loop()
    return await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)


async def checked_addresses(
    host: str,
    port: int,
    policy: AddressPolicy,
    *,
    timeout_s: float,
    resolve: Resolver = loop_resolver,
) -> list[IPAddress]:
    """The addresses `host` resolves to, every one allowed; AddressRefused (saying why) when
    one is not (a resolver may answer in any order: any of them could be the one used), or
    when the host does not resolve."""
    try:
        answers = await asyncio.wait_for(resolve(host, port), timeout_s)
    except (OSError, TimeoutError):  # socket.gaierror is an OSError
        raise NameNotResolved(f"host {host} does not resolve") from None
    addresses = _unique(ipaddress.ip_address(answer[4][0]) for answer in answers)
    if not addresses:
        raise NameNotResolved(f"host {host} does not resolve")
    for address in addresses:
        kind = policy.refusal(address)
        if kind is not None:
            raise AddressRefused(_reason(host, address, kind))
    return addresses


def _unique(addresses: Iterable[IPAddress]) -> list[IPAddress]:
    return list(dict.fromkeys(addresses))


def _reason(host: str, address: IPAddress, kind: str) -> str:
    what = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} address"
    if _literal(host) == address:
        return f"{host} is {what}"
    return f"{host} resolves to {address}, which is {what}"


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


async def check_url(url: str, policy: AddressPolicy, *, timeout_s: float) -> None:
    """AddressRefused unless every address of the URL's host is allowed (the URL itself was
    validated: http(s), a host)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    await checked_addresses(parts.hostname or "", port, policy, timeout_s=timeout_s)
