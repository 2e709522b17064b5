"""Webhook targets are not an SSRF (issue 41): a target whose host is not a public address is
refused at registration, naming why, and again at delivery, after the name is resolved; an
operator's allow-list (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOWED_CIDRS) admits what it names.

No test here sends traffic beyond loopback: names are `localhost` (in /etc/hosts) or resolved by
a stand-in resolver (a DNS server is outside loopback), and the public targets registered
receive no event."""

import asyncio
import ipaddress
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.webhooks.addresses import AddressPolicy, AddressRefused, address_class, checked_addresses
from app.webhooks.transport import CheckedTransport
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings
from tests.webhooks.receiver import receiver

ADMIN, ALICE = auth(ADMIN_KEY), auth(ALICE_KEY)
NOBODY = "user-without-events"  # the public targets below never receive anything

REFUSED = [
    ("127.0.0.1", "127.0.0.1 is a loopback address"),
    ("localhost", "localhost resolves to 127.0.0.1, which is a loopback address"),
    ("[::1]", "::1 is a loopback address"),
    ("0x7f000001", "0x7f000001 resolves to 127.0.0.1, which is a loopback address"),
    ("2130706433", "2130706433 resolves to 127.0.0.1, which is a loopback address"),
    ("127.1", "127.1 resolves to 127.0.0.1, which is a loopback address"),
    ("10.1.2.3", "10.1.2.3 is a private address"),
    ("172.16.5.4", "172.16.5.4 is a private address"),
    ("172.31.255.254", "172.31.255.254 is a private address"),
    ("192.168.1.1", "192.168.1.1 is a private address"),
    ("100.64.0.1", "100.64.0.1 is a shared (carrier-grade NAT) address"),
    ("169.254.169.254", "169.254.169.254 is a link-local address"),
    ("[fe80::1]", "fe80::1 is a link-local address"),
    ("[fd00::1]", "fd00::1 is a private address"),
    ("0.0.0.0", "0.0.0.0 is an unspecified address"),
    ("[::]", ":: is an unspecified address"),
    ("224.0.0.1", "224.0.0.1 is a multicast address"),
    ("[ff02::1]", "ff02::1 is a multicast address"),
    ("240.0.0.1", "240.0.0.1 is a reserved address"),
    ("192.0.2.1", "192.0.2.1 is a special-purpose address"),  # documentation range
    ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1 is a loopback address"),  # IPv4-mapped
    ("[::ffff:169.254.169.254]", "::ffff:169.254.169.254 is a link-local address"),
    ("[2002:7f00:1::]", "2002:7f00:1:: is a loopback address"),  # 6to4 of 127.0.0.1
]


async def test_each_address_class_that_is_not_public_is_refused_at_registration(
    falkordb_url: str, tmp_path: Path
):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        for host, reason in REFUSED:
            body = {"url": f"http://{host}:8080/hook", "user_id": "alice"}
            answer = await client.post("/admin/webhooks", json=body, headers=ADMIN)
            assert answer.status_code == 400, (host, answer.text)
            error = answer.json()
            assert error["error"] == "bad_request" and error["message"].startswith(
                f"Invalid 'url': {reason}; webhook targets must be public addresses"
            ), (host, error)
            assert "WEBHOOK_ALLOWED_CIDRS" in error["message"]
        listed = await client.get("/admin/webhooks", headers=ADMIN)
        assert listed.json()["targets"] == []

        for url in ("http://93.184.215.14/hook", "https://[2606:4700::1]:8443/hook"):
            made = await client.post(
                "/admin/webhooks", json={"url": url, "user_id": NOBODY}, headers=ADMIN
            )
            assert made.status_code == 201, made.text
            gone = await client.delete(f"/admin/webhooks/{made.json()['id']}", headers=ADMIN)
            assert gone.status_code == 200


async def test_the_operator_s_allow_list_admits_what_it_names(falkordb_url: str, tmp_path: Path):
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        webhook_allow_private=True,
        webhook_allowed_cidrs=["169.254.10.0/24"],
    )
    async with running_client(settings) as client:

        async def register(host: str) -> httpx.Response:
            body = {"url": f"http://{host}/hook", "user_id": NOBODY}
            return await client.post("/admin/webhooks", json=body, headers=ADMIN)

        for host in ("localhost", "10.1.2.3", "[fd00::1]", "100.64.0.1", "169.254.10.7"):
            assert (await register(host)).status_code == 201, host
        # what never hosts a receiver stays refused unless a CIDR names it
        for host in ("169.254.169.254", "0.0.0.0", "224.0.0.1"):
            answer = await register(host)
            assert answer.status_code == 400 and host in answer.json()["message"], host


def test_the_allowed_cidrs_setting_takes_a_list_and_refuses_a_malformed_one(tmp_path: Path):
    settings = test_settings(tmp_path, webhook_allowed_cidrs="127.0.0.0/8, ::1/128")
    assert [str(n) for n in settings.webhook_allowed_cidrs] == ["127.0.0.0/8", "::1/128"]
    with pytest.raises(ValueError, match="(?i)webhook_allowed_cidrs"):
        test_settings(tmp_path, webhook_allowed_cidrs="10.0.0.1/8")  # host bits set


def stand_in(answers: dict[str, list[str]]) -> Any:
    """A resolver answering these names (and failing on any other as getaddrinfo does)."""

    async def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in answers[host]]

    return resolve


async def test_a_name_is_refused_when_it_does_not_resolve_or_when_any_answer_is_not_public():
    policy = AddressPolicy()
    names = stand_in({"split.example": ["93.184.215.14", "10.0.0.5"]})
    with pytest.raises(AddressRefused, match="host nowhere.example does not resolve"):
        await checked_addresses("nowhere.example", 80, policy, timeout_s=5, resolve=names)
    with pytest.raises(AddressRefused, match="resolves to 10.0.0.5, which is a private"):
        await checked_addresses("split.example", 80, policy, timeout_s=5, resolve=names)


def test_the_classes_come_from_ipaddress_and_embedded_ipv4_counts_as_itself():
    public = ("93.184.215.14", "2606:4700::1", "::ffff:93.184.215.14", "2002:5db8:d70e::")
    assert [address_class(ipaddress.ip_address(a)) for a in public] == [None] * 4
    assert address_class(ipaddress.ip_address("::ffff:100.64.1.1")) == "shared (carrier-grade NAT)"


async def test_a_delivery_connects_to_the_address_it_checked_never_to_the_name_again():
    """A name checked at delivery is connected to by the address the check saw: a resolver
    that would answer 127.0.0.1 later (DNS rebinding) is never asked again."""
    with receiver() as hooks:
        port = int(hooks.url.rsplit(":", 1)[1])
        allowed = AddressPolicy(allowed_networks=(ipaddress.ip_network("127.0.0.0/8"),))
        asked: list[str] = []
        names = stand_in({"hooks.example": ["127.0.0.1"]})

        async def counting(host: str, port: int) -> list[tuple[Any, ...]]:
            asked.append(host)
            return await names(host, port)

        transport = CheckedTransport(allowed, 5, counting)
        async with httpx.AsyncClient(transport=transport) as client:
            answer = await client.post(f"http://hooks.example:{port}/in", content=b"{}")
        assert answer.status_code == 200 and asked == ["hooks.example"]
        [got] = hooks.at("/in")
        assert got.headers["host"] == f"hooks.example:{port}"

        for refusing, name in (
            (CheckedTransport(AddressPolicy(), 5, names), "hooks.example"),
            (CheckedTransport(AddressPolicy(), 5), "localhost"),  # the event loop's resolver
        ):
            async with httpx.AsyncClient(transport=refusing) as client:
                with pytest.raises(AddressRefused, match=f"{name} resolves to 127.0.0.1"):
                    await client.post(f"http://{name}:{port}/refused", content=b"{}")
        assert hooks.at("/refused") == []


async def test_a_target_refused_at_delivery_receives_nothing_and_the_error_says_only_that(
    falkordb_url: str, tmp_path: Path
):
    """Registered through a name while the allow-list admitted it, then the operator narrowed
    the list: the delivery resolves `localhost`, refuses 127.0.0.1 and sends nothing."""
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        workers=1,
        jobs_max_attempts=2,
        jobs_base_delay_s=0.2,
        jobs_sweep_s=1,
        webhook_allowed_cidrs=["127.0.0.0/8"],
    )
    with receiver() as hooks:
        port = hooks.url.rsplit(":", 1)[1]
        async with running_client(settings) as client:
            body = {"url": f"http://localhost:{port}/late", "user_id": "alice"}
            made = await client.post("/admin/webhooks", json=body, headers=ADMIN)
            assert made.status_code == 201, made.text
            settings.webhook_allowed_cidrs = []  # as a restart with the narrower setting would

            stored = await client.post("/memory", json={"content": "Plums in May"}, headers=ALICE)
            assert stored.status_code == 201
            letter = await dead_letter(client)
            assert letter["error"] == "DeliveryFailed: refused: address not allowed"
            for told in (letter["error"], letter["traceback"]):
                assert "127.0.0.1" not in told and "localhost" not in told
    assert hooks.received == []


async def dead_letter(client: httpx.AsyncClient, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        letters = (await client.get("/admin/dead-letters", headers=ADMIN)).json()["dead"]
        webhook = [d for d in letters if d["kind"] == "webhook"]
        if webhook:
            return webhook[0]
        await asyncio.sleep(0.2)
    raise AssertionError("no webhook dead letter in time")
