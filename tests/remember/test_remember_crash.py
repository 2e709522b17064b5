"""A /remember job survives kill -9 of the service in the middle of its extraction.

Engram runs as a real process on the embedded default (its own FalkorDB server); the test LLM
holds the extraction call open, the process is killed with SIGKILL, the LLM is made fast, and a
new process on the same data directory finishes the job: the facts are stored once.
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ALICE_KEY, auth, free_port
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig
from tests.remember.script import SESSION_1
from tests.remember.test_remember_flow import llm_reply, remember_body

ROOT = Path(__file__).resolve().parents[2]
ALICE = auth(ALICE_KEY)


class Service:
    """`python -m app` in a subprocess, with its output in a log file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.base_url = f"http://127.0.0.1:{env['ENGRAM_PORT']}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"{self.base_url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError("Engram did not start:\n" + self.log.read_text()[-3000:])

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def llm_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(FakeOpenAIConfig(chat_reply=llm_reply)) as server:
        yield server


def service_env(data_dir: Path, llm: FakeOpenAI) -> dict[str, str]:
    return {
        **os.environ,
        "ENGRAM_DATA_DIR": str(data_dir),
        "ENGRAM_PORT": str(free_port()),
        "FALKORDB_PORT": str(free_port()),
        "ENGRAM_API_KEYS": json.dumps({ALICE_KEY: "alice"}),
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "64",
        "LLM_BASE_URL": llm.base_url,
        "LLM_MODEL": "fake-model",
        "LLM_TIMEOUT_S": "120",
        "ENGRAM_WORKERS": "1",
        "JOBS_HEARTBEAT_S": "1",
        "JOBS_SWEEP_S": "1",
        "JOBS_BASE_DELAY_S": "0.2",
        "SESSION_IDLE_SECONDS": "3600",
        "ENRICHMENT_ENABLED": "false",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_LOG_LEVEL": "warning",
    }


def remember_session(base_url: str) -> str:
    body = remember_body(SESSION_1)
    accepted = httpx.post(f"{base_url}/remember", json=body, headers=ALICE, timeout=10)
    assert accepted.status_code == 202, accepted.text
    return accepted.json()["job_id"]


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def test_extraction_finishes_after_kill_9_mid_call(tmp_path: Path, llm_server: FakeOpenAI):
    llm_server.config.delay = 60  # the extraction call hangs until the process is killed
    service = Service(service_env(tmp_path / "data", llm_server), tmp_path / "engram.log")
    try:
        service.start()
        job_id = remember_session(service.base_url)
        wait_for(lambda: "/v1/chat/completions" in llm_server.paths(), 30, "the LLM call")
        service.kill()

        llm_server.config.delay = 0
        service.start()  # same data dir: adopts the FalkorDB server the killed process left
        job_url = f"{service.base_url}/remember/jobs/{job_id}"

        def done() -> bool:
            state = httpx.get(job_url, headers=ALICE, timeout=5).json()["state"]
            assert state != "dead"
            return state == "done"

        wait_for(done, 60, "the re-delivered job")
        job = httpx.get(job_url, headers=ALICE, timeout=5).json()
        assert job["attempts"] >= 2
        stored = job["result"]["stored"]
        assert len(stored) == 4  # Tom's name, Prague, hiking, nurse; Ava's fact needs an agent

        def layer(name: str) -> list[dict]:
            body = {"query": "User", "limit": 50, "layer": name, "relevance_floor": 0}
            answer = httpx.post(f"{service.base_url}/recall", json=body, headers=ALICE)
            return answer.json()["results"]

        assert sorted(r["id"] for r in layer("raw")) == sorted(stored)  # once each, nothing more
        turns = [t for t in SESSION_1.turns if t.role in ("user", "assistant")]
        assert len(layer("transcript")) == len(turns)  # the re-run stored no turn twice
    finally:
        service.stop()
