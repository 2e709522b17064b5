"""Shared fixtures: one real FalkorDB server per session, a fresh graph and vector index per app.

Nothing here is mocked: the server is redis-server with the FalkorDB module, the vector index is
the real Qdrant Edge engine (or qdrant-client's local mode, the stand-in for a Qdrant server).
"""

import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.storage.falkordb.server import EmbeddedFalkorDB
from tests import processes

ALICE_KEY = "alice-key-0123456789abcdef"
BOB_KEY = "bob-key-0123456789abcdef"
AGENT_KEY = "openwebui-key-0123456789abcdef"
ADMIN_KEY = "admin-key-0123456789abcdef"
API_KEYS = {
    ALICE_KEY: "alice",
    BOB_KEY: "bob",
    AGENT_KEY: {"user_id": "alice", "agent_prefix": "openwebui"},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def auth(key: str, agent: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    if agent:
        headers["X-Agent-Id"] = agent
    return headers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks every test that uses a real store as `integration` (one place, by fixture)."""
    store_fixtures = {"falkordb_url", "app_client", "make_client", "falkordb_server"}
    for item in items:
        if store_fixtures & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session", autouse=True)
def no_server_left_behind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fails the session, loudly, if a redis-server or Engram it started outlives it (and kills
    them): set up first, so torn down after every other fixture has stopped its servers."""
    root = tmp_path_factory.getbasetemp()
    yield
    strays = processes.left_running(os.getpid(), root)
    if strays:
        processes.kill(strays)
        pytest.fail(
            "the test session left servers running (killed now): "
            + "; ".join(str(s) for s in strays)
        )


@pytest.fixture(scope="session")
async def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    server = EmbeddedFalkorDB(data_dir=tmp_path_factory.mktemp("falkordb"), port=free_port())
    url = await server.start()
    yield url
    await server.stop()


def test_settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "falkordb_graph": f"test_{uuid.uuid4().hex[:12]}",
        "qdrant_url": None,
        "embedding_provider": "hash",
        "embedding_dimensions": 8,
        "workers": 0,
        "sync_interval_s": 0,
        "embedding_sweep_interval_s": 0,  # on where tested (tests/memories/test_embedding_sweep.py)
        # Lifecycle schedules off: a scheduled decay, clustering or forgetting pass would change a
        # test's memories under it (tests/lifecycle turns them on where it tests them).
        "consolidation_decay_interval_s": 0,
        "consolidation_forget_interval_s": 0,
        "consolidation_cluster_interval_s": 0,
        "api_keys": API_KEYS,
        "admin_key": ADMIN_KEY,
        "generate_local_key": False,
    }
    values.update(overrides)
    return Settings(**values)


test_settings.__test__ = False  # a helper, not a test


@asynccontextmanager
async def running_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """An app with its lifespan running, reached in-process through httpx."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://engram") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


@pytest.fixture(scope="module")
async def app_client(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    """Engram on the session's FalkorDB server (a fresh graph) and an Edge shard, per module."""
    settings = test_settings(tmp_path_factory.mktemp("engram"), falkordb_url=falkordb_url)
    async with running_client(settings) as client:
        yield client
