"""FALKORDB_SENTINELS and FALKORDB_WAIT_REPLICAS as settings, and the address they make
(no server needed: the failover itself is tests/storage/test_sentinel.py)."""

import pytest
from pydantic import ValidationError

from app.config import Settings
from app.storage.falkordb.address import FalkorAddress, falkordb_address


def test_sentinels_are_read_from_host_port_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALKORDB_SENTINELS", "10.0.0.1:26379, sentinel-b:26380,[::1]:26381")
    monkeypatch.setenv("FALKORDB_SENTINEL_MASTER", "graph")
    settings = Settings(_env_file=None)
    assert settings.falkordb_sentinels == [
        ("10.0.0.1", 26379),
        ("sentinel-b", 26380),
        ("::1", 26381),
    ]
    assert not settings.embedded_falkordb
    address = falkordb_address(settings)
    assert address is not None and address.through_sentinel
    assert (
        address.describe()
        == "primary 'graph' of the sentinels 10.0.0.1:26379,sentinel-b:26380,::1:26381"
    )


@pytest.mark.parametrize("text", ["sentinel-a", "host:port", ":26379", "host:70000"])
def test_a_sentinel_that_is_not_host_port_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("FALKORDB_SENTINELS", f"ok:26379,{text}")
    with pytest.raises(ValidationError, match="is not host:port"):
        Settings(_env_file=None)


def test_a_url_and_sentinels_together_are_refused() -> None:
    with pytest.raises(ValidationError, match="FALKORDB_URL or FALKORDB_SENTINELS, not both"):
        Settings(falkordb_url="redis://db:6379", falkordb_sentinels=[("s", 26379)])


def test_waiting_for_replicas_needs_a_server_with_replicas() -> None:
    with pytest.raises(ValidationError, match="FALKORDB_WAIT_REPLICAS needs replicas"):
        Settings(falkordb_wait_replicas=1)
    assert Settings(falkordb_wait_replicas=1, falkordb_url="redis://db:6379").falkordb_wait_replicas


def test_the_address_of_a_url_never_shows_its_password() -> None:
    address = FalkorAddress.of("redis://user:secret@db:6379")
    assert "secret" not in address.describe()
    assert falkordb_address(Settings()) is None  # the embedded default
