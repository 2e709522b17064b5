"""Retries against a real Engram, with the network's faults made by a transport in between:
an answer lost after the write (retried with the same Idempotency-Key: stored once), a
refused connection, and a 429 (retried after its Retry-After)."""

import httpx
import pytest
from engram_client import AsyncEngram, Engram, EngramConnectionError, RateLimitError

from tests.conftest import ALICE_KEY, free_port


class Faulty(httpx.HTTPTransport):
    """Forwards to the real server; `faults` say what happens to the next matching requests."""

    def __init__(self, path: str, faults: list[str]) -> None:
        super().__init__()
        self.path, self.faults, self.sent = path, faults, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != self.path or not self.faults:
            return super().handle_request(request)
        self.sent.append(request)
        fault = self.faults.pop(0)
        if fault == "answer lost":
            super().handle_request(request).read()  # the write happened; its answer is lost
            raise httpx.ReadError("connection reset", request=request)
        body = {"status": "error", "code": 429, "error": "rate_limited", "message": "slow down"}
        return httpx.Response(429, json=body, headers={"Retry-After": "0"})


def test_a_write_whose_answer_was_lost_is_stored_once(engram_url: str):
    faulty = Faulty("/memory", ["answer lost", "answer lost"])
    with Engram(engram_url, api_key=ALICE_KEY, http_client=httpx.Client(transport=faulty)) as a:
        stored = a.store("Retried exactly once: the blue notebook", tags=["retry-once"])
        keys = {request.headers["Idempotency-Key"] for request in faulty.sent}
        assert len(faulty.sent) == 2 and len(keys) == 1
        matches = a.list_memories(tags=["retry-once"]).memories
    assert [m.id for m in matches] == [stored.memory_id]


def test_a_429_is_retried_and_then_raised(engram_url: str):
    faulty = Faulty("/profile", ["429"])
    with Engram(engram_url, api_key=ALICE_KEY, http_client=httpx.Client(transport=faulty)) as a:
        assert a.profile().count >= 0
    always = Faulty("/profile", ["429"] * 3)
    client = httpx.Client(transport=always)
    with (
        Engram(engram_url, api_key=ALICE_KEY, max_retries=2, http_client=client) as a,
        pytest.raises(RateLimitError) as limited,
    ):
        a.profile()
    assert limited.value.retry_after == 0 and len(always.sent) == 3


def test_an_update_whose_answer_was_lost_is_not_sent_again(engram_url: str):
    with Engram(engram_url, api_key=ALICE_KEY) as alice:
        stored = alice.store("Updated once")
    faulty = Faulty(f"/memory/{stored.memory_id}", ["answer lost"])
    with (
        Engram(engram_url, api_key=ALICE_KEY, http_client=httpx.Client(transport=faulty)) as a,
        pytest.raises(EngramConnectionError),
    ):
        a.update(stored.memory_id, tags=["x"])
    assert len(faulty.sent) == 1


async def test_nothing_listening_is_a_connection_error_after_the_retries():
    seen: list[httpx.Request] = []

    async def count(request: httpx.Request) -> None:
        seen.append(request)

    http = httpx.AsyncClient(event_hooks={"request": [count]})
    url = f"http://127.0.0.1:{free_port()}"
    async with AsyncEngram(url, api_key=ALICE_KEY, max_retries=2, http_client=http) as client:
        with pytest.raises(EngramConnectionError):
            await client.store("never arrives")
    await http.aclose()
    assert len(seen) == 3
