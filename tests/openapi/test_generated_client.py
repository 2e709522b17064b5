"""A client generated from the served document by openapi-python-client, used against a live
server: typed requests and answers, the error envelope, both ways to present a key."""

import asyncio
import importlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from openapi_spec_validator import validate

from tests.conftest import ALICE_KEY, BOB_KEY, test_settings
from tests.live import live_server

GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture(scope="module")
async def base_url(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    settings = test_settings(tmp_path_factory.mktemp("sdk"), falkordb_url=falkordb_url, workers=1)
    async with live_server(settings) as url:
        yield url


@pytest.fixture(scope="module")
async def sdk(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package `engram_sdk`, imported from a temporary directory."""
    async with httpx.AsyncClient(base_url=base_url) as client:
        document = (await client.get("/openapi.json")).json()
    validate(document)
    where = tmp_path_factory.mktemp("sdk_src")
    (where / "openapi.json").write_text(json.dumps(document))
    env = os.environ | {"PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = await asyncio.to_thread(
        subprocess.run,
        [
            str(GENERATOR),
            "generate",
            "--path",
            "openapi.json",
            "--meta",
            "none",
            "--output-path",
            "engram_sdk",
        ],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    return importlib.import_module("engram_sdk")


@pytest.fixture
def api(sdk: ModuleType) -> Iterator[object]:
    """Imports a generated module by its path below the package: api('api.memories.get_memory')."""

    def load(name: str) -> ModuleType:
        return importlib.import_module(f"engram_sdk.{name}")

    yield load


def client_for(sdk: ModuleType, base_url: str, key: str, header: str = "bearer"):
    if header == "bearer":
        return sdk.AuthenticatedClient(base_url=base_url, token=key)
    return sdk.AuthenticatedClient(
        base_url=base_url, token=key, prefix="", auth_header_name="X-API-Key"
    )


async def test_memory_round_trip_is_typed(sdk: ModuleType, api, base_url: str):
    models = api("models")
    alice = client_for(sdk, base_url, ALICE_KEY)
    store, get, update = (
        api(f"api.memories.{n}") for n in ("store_memory", "get_memory", "update_memory")
    )
    stored = await store.asyncio(
        client=alice,
        body=models.MemoryCreate(content="Alice keeps her bike in the shed", tags=["home"]),
    )
    assert isinstance(stored, models.StoreResponse)
    found = await get.asyncio(stored.memory_id, client=alice)
    assert isinstance(found, models.MemoryResponse)
    assert found.memory.content == "Alice keeps her bike in the shed"
    assert isinstance(found.memory.type_, models.MemoryType)
    changed = await update.asyncio(
        stored.memory_id, client=alice, body=models.MemoryUpdate(tags=["home", "bike"])
    )
    assert isinstance(changed, models.UpdateResponse)
    assert (changed.version, changed.memory.tags) == (2, ["home", "bike"])


async def test_recall_by_get_and_post_returns_typed_memories(sdk: ModuleType, api, base_url):
    models = api("models")
    alice = client_for(sdk, base_url, ALICE_KEY, header="x-api-key")
    stored = await api("api.memories.store_memory").asyncio(
        client=alice,
        body=models.MemoryCreate(content="The garage door code is 7781", tags=["house"]),
    )
    by_get = await api("api.recall.recall").asyncio(
        client=alice, query="garage door code", tags=["house"], limit=2, expand_relations=False
    )
    assert isinstance(by_get, models.RecallResponse)
    assert by_get.results[0].memory.content == "The garage door code is 7781"
    assert by_get.results[0].id == stored.memory_id
    elsewhere = await api("api.recall.recall").asyncio(
        client=alice, query="garage door code", tags=["office"]
    )
    assert stored.memory_id not in [item.id for item in elsewhere.results]
    by_post = await api("api.recall.recall_post").asyncio(
        client=alice, body=models.RecallRequest(query="garage door code", limit=3)
    )
    assert isinstance(by_post, models.RecallResponse)
    assert by_post.results[0].memory.content == "The garage door code is 7781"


async def test_errors_are_the_typed_envelope(sdk: ModuleType, api, base_url: str):
    models = api("models")
    get = api("api.memories.get_memory")
    alice = client_for(sdk, base_url, ALICE_KEY)
    missing = await get.asyncio(str(uuid.uuid4()), client=alice)
    assert isinstance(missing, models.ErrorResponse)
    assert (missing.code, missing.error) == (404, "not_found")
    invalid = await get.asyncio("not-a-uuid", client=alice)
    assert isinstance(invalid, models.ErrorResponse) and invalid.code == 400
    wrong_key = await get.asyncio(str(uuid.uuid4()), client=client_for(sdk, base_url, "nope"))
    assert isinstance(wrong_key, models.ErrorResponse) and wrong_key.error == "unauthorized"

    stored = await api("api.memories.store_memory").asyncio(
        client=alice, body=models.MemoryCreate(content="Only Alice may read this")
    )
    bob = await get.asyncio(stored.memory_id, client=client_for(sdk, base_url, BOB_KEY))
    assert isinstance(bob, models.ErrorResponse) and bob.code == 404


async def test_remember_then_poll_its_job(sdk: ModuleType, api, base_url: str):
    models = api("models")
    alice = client_for(sdk, base_url, ALICE_KEY)
    turn = models.MessageIn(role=models.MessageInRole.USER, content="I moved to Porto last year.")
    accepted = await api("api.remember.remember").asyncio(
        client=alice, body=models.RememberRequest(messages=[turn], session_id="sdk-chat")
    )
    assert isinstance(accepted, models.RememberAccepted)
    poll = api("api.remember.get_remember_job")
    job = await poll.asyncio(accepted.job_id, client=alice)
    for _ in range(600):  # a bounded wait for the in-process worker
        if job.state in ("done", "dead"):
            break
        await asyncio.sleep(0.1)
        job = await poll.asyncio(accepted.job_id, client=alice)
    assert isinstance(job, models.RememberJob)
    assert job.state == "done"
