"""Language work runs in its own process, which is replaced if it dies."""

import os
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from app.enrichment.entities import extract_many
from app.nlp import run_nlp


async def test_runs_in_another_process_with_the_real_pipeline() -> None:
    assert await run_nlp(os.getpid) != os.getpid()
    found = await run_nlp(extract_many, ["Ada Lovelace moved to London."])
    assert {(e.category, e.slug) for e in found[0]} == {
        ("people", "ada-lovelace"), ("places", "london"),
    }  # fmt: skip


async def test_a_killed_worker_process_is_replaced() -> None:
    worker = await run_nlp(os.getpid)
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):
        await run_nlp(os.getpid)  # the call that finds it dead fails (its job is retried)
    assert await run_nlp(os.getpid) not in (worker, os.getpid())
