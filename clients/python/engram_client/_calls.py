"""Each endpoint as a `Call`: what to send and how to read the answer, with no I/O.

`Engram` and `AsyncEngram` run the same calls, so a request is described once and the two
clients differ only in how they wait.
"""

import base64
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from engram_client import models
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
M = TypeVar("M", bound=BaseModel)
FileInput = bytes | str | Path | IO[bytes]
QueryPairs = list[tuple[str, str | int | float | bool | None]]


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: QueryPairs = field(default_factory=list)
    json: Any = None
    files: Mapping[str, Any] | None = None
    data: Mapping[str, str] | None = None
    idempotency_key: str | None = None
    # True when sending it twice changes nothing: reads, and writes carrying an Idempotency-Key.
    # Only these are retried after the request may have reached the service.
    safe: bool = False

    @property
    def headers(self) -> dict[str, str]:
        return {"Idempotency-Key": self.idempotency_key} if self.idempotency_key else {}


def as_model(cls: type[M]) -> Callable[[httpx.Response], M]:
    return lambda response: cls.model_validate(response.json())


def body(values: Mapping[str, Any]) -> Any:
    """JSON-ready: datetimes as ISO-8601, nested models and TypedDicts as plain objects."""
    return to_jsonable_python(dict(values))


def segment(value: str) -> str:
    """A path segment, quoted so an id cannot reach another route."""
    return quote(value, safe="")


def query(values: Mapping[str, Any]) -> QueryPairs:
    """Query parameters: lists repeated, labels as key=value, booleans as true/false."""
    pairs: QueryPairs = []
    for name, value in values.items():
        if value is None:
            continue
        if name == "labels" and isinstance(value, Mapping):
            pairs += [(name, f"{key}={label_text(item)}") for key, item in value.items()]
        elif isinstance(value, list | tuple):
            pairs += [(name, str(to_jsonable_python(item))) for item in value]
        elif isinstance(value, bool):
            pairs.append((name, "true" if value else "false"))
        else:
            pairs.append((name, str(to_jsonable_python(value))))
    return pairs


def label_text(value: Any) -> str:
    """A label value as the service compares it (booleans lower-case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def new_key(given: str | None) -> str:
    return given or str(uuid.uuid4())


# Memories


def store(content: str, fields: MemoryFields, key: str | None) -> Call[models.Stored]:
    return Call(
        "POST",
        "/memory",
        as_model(models.Stored),
        json=body({"content": content, **fields}),
        idempotency_key=new_key(key),
        safe=True,
    )


def store_batch(memories: list[NewMemory], key: str | None) -> Call[models.StoredBatch]:
    return Call(
        "POST",
        "/memory/batch",
        as_model(models.StoredBatch),
        json={"memories": [body(memory) for memory in memories]},
        idempotency_key=new_key(key),
        safe=True,
    )


def get(memory_id: str) -> Call[models.Memory]:
    return Call(
        "GET",
        f"/memory/{segment(memory_id)}",
        lambda response: models.Memory.model_validate(response.json()["memory"]),
        safe=True,
    )


def update(memory_id: str, changes: MemoryChanges) -> Call[models.Updated]:
    # Not retried once sent: without expected_version a replay would add a version.
    return Call(
        "PATCH", f"/memory/{segment(memory_id)}", as_model(models.Updated), json=body(changes)
    )


def delete(memory_id: str, erase: bool) -> Call[models.Deleted]:
    return Call(
        "DELETE",
        f"/memory/{segment(memory_id)}",
        as_model(models.Deleted),
        params=query({"erase": erase or None}),
        safe=True,
    )


def list_memories(
    cursor: str | None, limit: int | None, filters: ListFilters
) -> Call[models.MemoryPage]:
    return Call(
        "GET",
        "/memory",
        as_model(models.MemoryPage),
        params=query({"cursor": cursor, "limit": limit, **filters}),
        safe=True,
    )


# Recall


def recall(query_text: str, params: RecallParams) -> Call[models.Recalled]:
    # POST: the same parameters as GET /recall, with no URL length limit for an embedding.
    return Call(
        "POST",
        "/recall",
        as_model(models.Recalled),
        json=body({"query": query_text, **params}),
        safe=True,
    )


def context(query_text: str, params: ContextParams) -> Call[models.Context]:
    return Call(
        "POST",
        "/recall/context",
        as_model(models.Context),
        json=body({"query": query_text, **params}),
        safe=True,
    )


def startup_recall(session_id: str | None, memoryless: bool) -> Call[models.Startup]:
    return Call(
        "GET",
        "/startup-recall",
        as_model(models.Startup),
        params=query({"session_id": session_id, "memoryless": memoryless or None}),
        safe=True,
    )


def profile() -> Call[models.Profile]:
    return Call("GET", "/profile", as_model(models.Profile), safe=True)


# /remember


def remember(
    messages: list[Message], session_id: str, params: RememberParams, key: str | None
) -> Call[models.RememberAccepted]:
    return Call(
        "POST",
        "/remember",
        as_model(models.RememberAccepted),
        json=body({"messages": messages, "session_id": session_id, **params}),
        idempotency_key=new_key(key),
        safe=True,
    )


def remember_job(job_id: str) -> Call[models.RememberJob]:
    return Call("GET", f"/remember/jobs/{segment(job_id)}", as_model(models.RememberJob), safe=True)


# Artifacts


def file_bytes(file: FileInput) -> bytes:
    """The whole file, read once, so that a retry sends the same bytes."""
    if isinstance(file, bytes):
        return file
    if isinstance(file, str):
        return file.encode()
    if isinstance(file, Path):
        return file.read_bytes()
    return file.read()


def file_name(file: FileInput, filename: str | None) -> str:
    if filename:
        return filename
    if isinstance(file, Path):
        return file.name
    name = getattr(file, "name", None)
    return Path(name).name if isinstance(name, str) else "file"


def upload_artifact(
    memory_id: str, file: FileInput, filename: str | None, content_type: str | None
) -> Call[models.ArtifactAttached]:
    name = file_name(file, filename)
    part = (name, file_bytes(file), content_type) if content_type else (name, file_bytes(file))
    return Call(
        "POST",
        f"/memory/{segment(memory_id)}/artifacts",
        as_model(models.ArtifactAttached),
        files={"file": part},
        data={"filename": name, **({"content_type": content_type} if content_type else {})},
    )


def list_artifacts(memory_id: str) -> Call[models.ArtifactList]:
    return Call(
        "GET",
        f"/memory/{segment(memory_id)}/artifacts",
        as_model(models.ArtifactList),
        safe=True,
    )


def read_artifact(response: httpx.Response) -> models.ArtifactText | models.ArtifactFile:
    answer = response.json()
    if "content_base64" in answer:
        raw = base64.b64decode(answer.pop("content_base64"))
        return models.ArtifactFile.model_validate({**answer, "content": raw})
    return models.ArtifactText.model_validate(answer)


def get_artifact(
    memory_id: str, artifact_id: str, offset: int, limit: int | None
) -> Call[models.ArtifactText | models.ArtifactFile]:
    return Call(
        "GET",
        f"/memory/{segment(memory_id)}/artifacts/{segment(artifact_id)}",
        read_artifact,
        params=query({"offset": offset or None, "limit": limit, "encoding": "base64"}),
        safe=True,
    )


def delete_artifact(memory_id: str, artifact_id: str) -> Call[models.ArtifactDeleted]:
    return Call(
        "DELETE",
        f"/memory/{segment(memory_id)}/artifacts/{segment(artifact_id)}",
        as_model(models.ArtifactDeleted),
        safe=True,
    )


def artifact_url(
    memory_id: str, artifact_id: str, expires_in: int | None
) -> Call[models.ArtifactUrl]:
    return Call(
        "POST",
        f"/memory/{segment(memory_id)}/artifacts/{segment(artifact_id)}/url",
        as_model(models.ArtifactUrl),
        json=body({"expires_in": expires_in} if expires_in else {}),
        safe=True,
    )


def export() -> Call[None]:
    """GET /me/export: read line by line by the client (`stream`), never whole."""
    return Call("GET", "/me/export", lambda response: None, safe=True)
