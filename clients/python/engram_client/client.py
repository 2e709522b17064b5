"""`Engram`: the synchronous client."""

import json
import time
from collections.abc import Iterator
from types import TracebackType
from typing import Any, TypeVar, Unpack

import httpx

from engram_client import _calls as calls
from engram_client import _jobs, models
from engram_client._config import Config
from engram_client.errors import EngramConnectionError, error_from
from engram_client.params import (
    ContextParams,
    ListFilters,
    MemoryChanges,
    MemoryFields,
    Message,
    NewMemory,
    RecallParams,
    RememberParams,
)

T = TypeVar("T")


class Engram:
    """Engram over HTTP. `base_url` defaults to ENGRAM_URL (else http://127.0.0.1:8001),
    `api_key` to ENGRAM_API_KEY; `agent_id` is sent as X-Agent-Id on every request.

    Failed requests are retried `max_retries` times when that is safe (see `_retry.py`); writes
    carry an Idempotency-Key, so a retried write is stored once. Use it as a context manager, or
    call `close()`."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        agent_id: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 3,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._config = Config.make(base_url, api_key, agent_id, timeout_s, max_retries)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout_s)

    @property
    def agent_id(self) -> str | None:
        return self._config.agent_id

    def for_agent(self, agent_id: str | None) -> "Engram":
        """The same client in another agent's scope (None: the user's shared memories); it
        shares this one's connections, and closing it leaves them open."""
        view = object.__new__(Engram)
        view._config, view._http, view._owns_http = (
            self._config.for_agent(agent_id),
            self._http,
            False,
        )
        return view

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # Memories

    def store(
        self, content: str, *, idempotency_key: str | None = None, **fields: Unpack[MemoryFields]
    ) -> models.Stored:
        """Stores one memory (POST /memory)."""
        return self._run(calls.store(content, fields, idempotency_key))

    def store_batch(
        self, memories: list[NewMemory], *, idempotency_key: str | None = None
    ) -> models.StoredBatch:
        """Stores 1–500 memories in one atomic write, all or none (POST /memory/batch)."""
        return self._run(calls.store_batch(memories, idempotency_key))

    def get(self, memory_id: str) -> models.Memory:
        return self._run(calls.get(memory_id))

    def update(self, memory_id: str, **changes: Unpack[MemoryChanges]) -> models.Updated:
        """Changes the fields given; the old state becomes a revision. `expected_version`
        makes it a ConflictError when the memory changed meanwhile."""
        return self._run(calls.update(memory_id, changes))

    def delete(self, memory_id: str, *, erase: bool = False) -> models.Deleted:
        """Deletes (a tombstone stays) or, with `erase`, removes the content everywhere."""
        return self._run(calls.delete(memory_id, erase))

    def list_memories(
        self, *, cursor: str | None = None, limit: int | None = None, **filters: Unpack[ListFilters]
    ) -> models.MemoryPage:
        """One page of the memories in scope; pass `next_cursor` back as `cursor`."""
        return self._run(calls.list_memories(cursor, limit, filters))

    def iter_memories(
        self, *, page_size: int = 200, **filters: Unpack[ListFilters]
    ) -> Iterator[models.Memory]:
        """Every memory in scope, following the cursor page by page."""
        cursor: str | None = None
        while True:
            page = self.list_memories(cursor=cursor, limit=page_size, **filters)
            yield from page.memories
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    # Recall

    def recall(self, query: str = "", **params: Unpack[RecallParams]) -> models.Recalled:
        """Searches the memories in scope; every parameter of GET /recall (docs/api.md#recall)."""
        return self._run(calls.recall(query, params))

    def context(self, query: str = "", **params: Unpack[ContextParams]) -> models.Context:
        """A `<memories>` block for a prompt (POST /recall/context)."""
        return self._run(calls.context(query, params))

    def startup_recall(
        self, *, session_id: str | None = None, memoryless: bool = False
    ) -> models.Startup:
        return self._run(calls.startup_recall(session_id, memoryless))

    def profile(self) -> models.Profile:
        return self._run(calls.profile())

    # /remember

    def remember(
        self,
        messages: list[Message],
        *,
        session_id: str,
        wait: bool = False,
        timeout_s: float = 120.0,
        idempotency_key: str | None = None,
        **params: Unpack[RememberParams],
    ) -> models.RememberAccepted:
        """Posts conversation turns; facts are extracted by a job. `wait=True` returns once the
        job is done, with it as `.job` (JobFailedError if it failed, JobTimeoutError after
        `timeout_s`)."""
        accepted = self._run(calls.remember(messages, session_id, params, idempotency_key))
        if wait and accepted.job_id is not None:
            accepted.job = self.wait_for_job(accepted.job_id, timeout_s=timeout_s)
        return accepted

    def remember_job(self, job_id: str) -> models.RememberJob:
        return self._run(calls.remember_job(job_id))

    def wait_for_job(self, job_id: str, *, timeout_s: float = 120.0) -> models.RememberJob:
        deadline = time.monotonic() + timeout_s
        for interval in _jobs.poll_intervals_s():
            job = self.remember_job(job_id)
            if job.finished:
                return _jobs.outcome(job)
            if time.monotonic() + interval > deadline:
                raise _jobs.timed_out(job, timeout_s)
            time.sleep(interval)
        raise AssertionError("unreachable")

    # Artifacts

    def upload_artifact(
        self,
        memory_id: str,
        file: calls.FileInput,
        *,
        filename: str | None = None,
        content_type: str | None = None,
    ) -> models.ArtifactAttached:
        """Attaches a file (bytes, text, a Path or an open binary file) to a memory."""
        return self._run(calls.upload_artifact(memory_id, file, filename, content_type))

    def list_artifacts(self, memory_id: str) -> models.ArtifactList:
        return self._run(calls.list_artifacts(memory_id))

    def get_artifact(
        self, memory_id: str, artifact_id: str, *, offset: int = 0, limit: int | None = None
    ) -> models.ArtifactText | models.ArtifactFile:
        """A text artifact's page (`ArtifactText`), or any other artifact's bytes."""
        return self._run(calls.get_artifact(memory_id, artifact_id, offset, limit))

    def delete_artifact(self, memory_id: str, artifact_id: str) -> models.ArtifactDeleted:
        return self._run(calls.delete_artifact(memory_id, artifact_id))

    def artifact_url(
        self, memory_id: str, artifact_id: str, *, expires_in: int | None = None
    ) -> models.ArtifactUrl:
        """A signed URL that downloads the artifact without a key until it expires."""
        return self._run(calls.artifact_url(memory_id, artifact_id, expires_in))

    # Export

    def export(self) -> Iterator[dict[str, Any]]:
        """Every memory of the user (all agents) as the lines of GET /me/export, streamed."""
        response = self._send(calls.export(), stream=True)
        try:
            for line in response.iter_lines():
                if line.strip():
                    yield json.loads(line)
        except httpx.TransportError as error:
            raise EngramConnectionError(f"Export broke off: {error}") from error
        finally:
            response.close()

    # Transport

    def _run(self, call: calls.Call[T]) -> T:
        return call.read(self._send(call))

    def _send(self, call: calls.Call[Any], stream: bool = False) -> httpx.Response:
        policy, attempt = self._config.retry, 0
        while True:
            request = self._http.build_request(
                call.method,
                self._config.base_url + call.path,
                params=call.params,
                json=call.json,
                files=call.files,
                data=call.data,
                headers={**self._config.headers, **call.headers},
            )
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                wait = policy.after_error(error, call.safe, attempt)
                if wait is None:
                    raise EngramConnectionError(f"{call.method} {call.path}: {error}") from error
            else:
                if response.is_success:
                    return response
                response.read()
                response.close()
                wait = policy.after_answer(response, call.safe, attempt)
                if wait is None:
                    raise error_from(response)
            time.sleep(wait)
            attempt += 1
