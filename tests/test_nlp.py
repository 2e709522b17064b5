"""Language work runs in its own process, which is replaced if it dies."""

import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from app.enrichment.entities import extract_many
from app.nlp import run_nlp

ROOT = Path(__file__).resolve().parents[1]


async def test_runs_in_another_process_with_the_real_pipeline() -> None:
    assert await run_nlp(os.getpid) != os.getpid()
    found = await run_nlp(extract_many, ["Ada Lovelace moved to London."])
    assert {(e.category, e.slug) for e in found[0]} == {
        ("people", "ada-lovelace"),
        ("places", "london"),
    }


async def test_a_killed_worker_process_is_replaced() -> None:
    worker = await run_nlp(os.getpid)
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):
        await run_nlp(os.getpid)  # the call that finds it dead fails (its job is retried)
    assert await run_nlp(os.getpid) not in (worker, os.getpid())


def test_the_worker_process_exits_when_its_parent_dies(tmp_path) -> None:
    script = (
        "import asyncio, os, sys\n"
        "from app.nlp import run_nlp\n"
        "print(asyncio.run(run_nlp(os.getpid)), flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    worker = int(done.stdout.strip())
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"
