"""The start-up backlog scan: one embed job per 32 memories of one user, queued once."""

from pathlib import Path

import pytest

from app.memories.build import build_memory
from app.memories.schemas import MemoryCreate
from app.models import utc_now
from app.scope import Scope
from app.wiring import schedule
from app.wiring.schedule import enqueue_backlog
from tests.conftest import running_client, test_settings


async def test_backlog_jobs_are_full_batches_of_one_user(
    falkordb_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(schedule, "SCAN_PAGE", 16)  # the scan reads several pages
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, backlog_scan=False)
    async with running_client(settings) as client:
        runtime = client.app.state.runtime
        now = utc_now()
        memories = [
            build_memory(MemoryCreate(content=f"note {i}"), scope=Scope(user), actor=user, now=now)
            for i, user in enumerate(["alice"] * 70 + ["bob"] * 5)
        ]
        await runtime.stores.graph.create_memories(memories, "test")  # written, never queued

        assert await enqueue_backlog(runtime) == 75
        pending = (await runtime.jobs.stats())["embed"]["pending"]
        assert pending == 4  # alice 32 + 32 + 6, bob 5 — not one job per user per page
        await enqueue_backlog(runtime)  # a second start finds the same jobs queued
        assert (await runtime.jobs.stats())["embed"]["pending"] == pending
