"""A real Engram on a port for the client and its adapters: the client talks HTTP.

Served from a thread (tests/hardening/live.py), not in the test's loop, so that the sync
client's blocking calls and the frameworks' sync interfaces can reach it."""

from collections.abc import Iterator

import pytest

from app.main import create_app
from tests.conftest import ALICE_KEY, test_settings
from tests.hardening.live import serve


@pytest.fixture(scope="module")
def engram_url(falkordb_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Engram with a job worker (so /remember jobs finish) on a fresh graph, per module."""
    settings = test_settings(
        tmp_path_factory.mktemp("engram_clients"),
        falkordb_url=falkordb_url,
        workers=1,
        erase_rate_per_minute=1,
    )
    with serve(create_app(settings)) as url:
        yield url


@pytest.fixture
def alice_key() -> str:
    return ALICE_KEY
