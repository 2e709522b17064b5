"""A small OpenAI-compatible server for tests: /v1/embeddings and /v1/chat/completions.

Run it on a free 127.0.0.1 port in a background thread:

    with FakeOpenAI(FakeOpenAIConfig(dimension=8, fail_times=2)) as server:
        ...  # point a client at server.base_url ("http://127.0.0.1:<port>/v1")
        assert len(server.requests) == 3

Knobs (`server.config`, changeable between requests; `server.reset()` restores the defaults):
fail the next `fail_times` requests with `fail_status`, sleep `delay` seconds before answering,
answer embeddings with `dimension + 1` values (`wrong_dimension`), require `api_key`.
Chat knobs: `chat_reply` (the content, or a function of the messages), `chat_script` (replies or
ChatErrors used one per chat request before `chat_reply`), `chat_usage` (the usage numbers),
`reject_json_schema` (400 for response_format json_schema, like a server without structured
outputs), `quota_exceeded` (OpenAI's insufficient_quota 429 for every request while set).
Error answers a client may retry (429, 5xx) carry OpenAI's `retry-after-ms` header with
`retry_after_ms` (None: no header), so that clients honouring it retry at once in tests.
Embeddings are deterministic per text and come back in reverse order, so clients must sort by
`index`. `server.requests` records every request that reached a route.
"""

import asyncio
import hashlib
import math
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

ChatReply = str | Callable[[list[dict[str, Any]]], str]


@dataclass
class ChatError:
    """A scripted error answer: an OpenAI-style error body with this status, code and type."""

    status: int
    message: str = "scripted failure"
    code: str | int | None = None
    type: str | None = None


def default_usage() -> dict[str, int]:
    return {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


@dataclass
class FakeOpenAIConfig:
    """How the fake server behaves."""

    dimension: int = 8
    wrong_dimension: bool = False
    fail_times: int = 0
    fail_status: int = 500
    delay: float = 0.0
    reverse_order: bool = True
    api_key: str | None = None
    chat_reply: ChatReply = "ok"
    chat_script: list[ChatReply | ChatError] = field(default_factory=list)
    chat_usage: dict[str, int] = field(default_factory=default_usage)
    reject_json_schema: bool = False
    quota_exceeded: bool = False
    retry_after_ms: int | None = 1


@dataclass
class RecordedRequest:
    """One request the server received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def fake_vector(text: str, dimension: int) -> list[float]:
    """A deterministic unit vector for `text`."""
    stream = hashlib.shake_256(text.encode()).digest(2 * dimension)
    raw = [int.from_bytes(stream[i : i + 2], "big") / 32768 - 1.0 for i in range(0, len(stream), 2)]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


class FakeOpenAI:
    """The fake server and its recorded requests; a context manager that starts and stops it."""

    def __init__(self, config: FakeOpenAIConfig | None = None) -> None:
        self.config = config or FakeOpenAIConfig()
        self.requests: list[RecordedRequest] = []
        self.app = self._build_app()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        """The API root, including /v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self, config: FakeOpenAIConfig | None = None) -> None:
        """Forgets recorded requests and restores the knobs (or sets new ones)."""
        self.config = config or FakeOpenAIConfig()
        self.requests.clear()

    def paths(self) -> list[str]:
        """The paths of the recorded requests, in order."""
        return [r.path for r in self.requests]

    def start(self) -> "FakeOpenAI":
        """Binds a free port on 127.0.0.1 and serves from a daemon thread."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            loop="asyncio",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        self._wait_started()
        return self

    def stop(self) -> None:
        """Asks the server to exit and waits for its thread."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_started(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not (self._server and self._server.started):
            if time.monotonic() > deadline or not (self._thread and self._thread.is_alive()):
                raise RuntimeError("the fake OpenAI server did not start")
            time.sleep(0.01)

    def _build_app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/embeddings")
        async def embeddings(request: Request) -> JSONResponse:
            return await self._handle(request, self._embeddings)

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            return await self._handle(request, self._chat)

        return app

    async def _handle(
        self, request: Request, answer: Callable[[dict[str, Any]], JSONResponse]
    ) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return error_response(400, "the body is not JSON")
        self.requests.append(RecordedRequest(request.url.path, body, dict(request.headers)))
        config = self.config
        if config.delay:
            await asyncio.sleep(config.delay)
        if config.api_key and request.headers.get("authorization") != f"Bearer {config.api_key}":
            return error_response(401, "invalid api key")
        if config.fail_times > 0:
            config.fail_times -= 1
            return self._retryable(
                error_response(config.fail_status, f"injected failure {config.fail_status}")
            )
        if config.quota_exceeded:
            return quota_response()
        return answer(body)

    def _retryable(self, response: JSONResponse) -> JSONResponse:
        retryable = response.status_code == 429 or response.status_code >= 500
        if retryable and self.config.retry_after_ms is not None:
            response.headers["retry-after-ms"] = str(self.config.retry_after_ms)
        return response

    def _embeddings(self, body: dict[str, Any]) -> JSONResponse:
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not inputs:
            return error_response(400, "input must be a string or a non-empty list of strings")
        dimension = body.get("dimensions") or self.config.dimension
        if self.config.wrong_dimension:
            dimension += 1
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dimension)}
            for i, text in enumerate(inputs)
        ]
        if self.config.reverse_order:
            data.reverse()
        tokens = sum(len(str(text).split()) for text in inputs)
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    def _chat(self, body: dict[str, Any]) -> JSONResponse:
        messages = body.get("messages") or []
        if self.config.reject_json_schema and asks_json_schema(body):
            return error_response(
                400,
                "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
                "with this model.",
                code="invalid_parameter",
                kind="invalid_request_error",
            )
        script = self.config.chat_script
        reply = script.pop(0) if script else self.config.chat_reply
        if isinstance(reply, ChatError):
            return self._retryable(
                error_response(reply.status, reply.message, code=reply.code, kind=reply.type)
            )
        content = reply(messages) if callable(reply) else reply
        return JSONResponse(
            {
                "id": f"chatcmpl-fake-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake-chat"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": dict(self.config.chat_usage),
            }
        )


def asks_json_schema(body: dict[str, Any]) -> bool:
    """Whether a chat request asks for response_format json_schema."""
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_schema"


def error_response(
    status: int, message: str, *, code: str | int | None = None, kind: str | None = None
) -> JSONResponse:
    """An OpenAI-style error body; `code` defaults to the status, `kind` to one by status."""
    if kind is None:
        kind = (
            "rate_limit_error" if status == 429 else "server_error" if status >= 500 else "invalid"
        )
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": status if code is None else code}},
        status_code=status,
    )


def quota_response() -> JSONResponse:
    """OpenAI's answer when the account's quota is used up."""
    return error_response(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        code="insufficient_quota",
        kind="insufficient_quota",
    )
