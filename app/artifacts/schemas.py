"""Request and response bodies of the artifact routes."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.models import ArtifactMeta


class ArtifactCreate(BaseModel):
    """A JSON upload: text as `content`, or any bytes as `content_base64`."""

    model_config = ConfigDict(extra="forbid")

    filename: str = Field(max_length=1000, description="The file's name (sanitised on store).")
    content_type: str | None = Field(
        None,
        max_length=200,
        description="Media type; absent = guessed from the filename (text/plain for `content`).",
    )
    content: str | None = Field(None, description="Text content (stored as UTF-8).")
    content_base64: str | None = Field(None, description="Binary content, base64-encoded.")


class ArtifactUrlRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expires_in: int | None = Field(
        None, ge=1, le=7 * 86_400, description="Seconds the URL works; default 3600."
    )


class ArtifactResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory the artifact is attached to.")
    artifact: ArtifactMeta


class ArtifactListResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory.")
    count: int = Field(description="Artifacts attached.")
    artifacts: list[ArtifactMeta] = Field(description="Their metadata, oldest first.")


class ArtifactTextResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory.")
    artifact: ArtifactMeta
    content: str = Field(description="This page of the text.")
    offset: int = Field(description="The page's first character.")
    limit: int = Field(description="Characters asked for.")
    total_chars: int = Field(description="Characters in the whole text.")
    next_offset: int | None = Field(description="Where the next page starts; null at the end.")


class ArtifactBase64Response(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory.")
    artifact: ArtifactMeta
    content_base64: str = Field(description="The whole file, base64-encoded.")


class ArtifactDeleteResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory.")
    artifact_id: str = Field(description="The artifact deleted.")


class ArtifactUrlResponse(BaseModel):
    status: Literal["success"] = "success"
    url: str = Field(description="GET it without an API key until it expires.")
    expires_at: str = Field(description="When the URL stops working (UTC).")
