"""The documented shapes of the relationship routes (bodies are parsed leniently, as AutoMem's)."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class AssociationIn(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory1_id: str = Field(description="The memory the relationship starts from.")
    memory2_id: str = Field(description="The memory it points to.")
    type: str = Field("RELATES_TO", description="The relationship type (e.g. RELATES_TO).")
    strength: float = Field(0.5, ge=0, le=1, description="0–1.")


class AssociateRequest(BaseModel):
    """One association, or `associations` for up to 500 at once."""

    model_config = ConfigDict(extra="allow")
    memory1_id: str | None = Field(None, description="The memory the relationship starts from.")
    memory2_id: str | None = Field(None, description="The memory it points to.")
    type: str = Field("RELATES_TO", description="The relationship type (e.g. RELATES_TO).")
    strength: float = Field(0.5, ge=0, le=1, description="0–1.")
    associations: list[AssociationIn] | None = Field(
        None, description="A batch instead of one: each item is tried on its own."
    )


class AssociateResponse(BaseModel):
    model_config = ConfigDict(extra="allow")
    status: Literal["success"] = "success"
    message: str = Field(description="What was linked.")
    relation_type: str = Field(description="The relationship type.")
    strength: float = Field(description="Its strength.")


class AssociationOk(BaseModel):
    index: int = Field(description="Position in `associations`.")
    memory1_id: str = Field(description="From.")
    memory2_id: str = Field(description="To.")
    relation_type: str = Field(description="The relationship type.")
    strength: float = Field(description="Its strength.")


class AssociationFailed(BaseModel):
    index: int = Field(description="Position in `associations`.")
    reason: str = Field(description="Why it was not created.")


class AssociateBatchResponse(BaseModel):
    status: Literal["success", "partial_success"] = Field(description="partial_success: 207.")
    created_count: int = Field(description="Relationships created.")
    failed_count: int = Field(description="Items that failed.")
    succeeded: list[AssociationOk] = Field(description="The created ones.")
    failed: list[AssociationFailed] = Field(description="The failed ones, with the reason.")
    summary: str = Field(description="One line for humans.")


class DissociateResponse(BaseModel):
    status: Literal["success"] = "success"
    relation_type: str = Field(description="The relationship type removed.")
    deleted: int = Field(description="Relationships removed (1).")


class RelatedMemory(BaseModel):
    id: str = Field(description="The memory's id.")
    type: str = Field(description="Its type.")
    timestamp: str = Field(description="When it was said or happened (UTC).")
    summary: str = Field(description="Its summary, or the start of its content.")
    importance: float = Field(description="0–1.")
    confidence: float = Field(description="0–1.")
    tags: list[str] = Field(description="Its first tags.")


class RelatedResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory asked about.")
    count: int = Field(description="How many are listed.")
    related_memories: list[RelatedMemory] = Field(description="Linked memories, nearest first.")
    relationship_types: list[str] = Field(description="The types followed.")
    max_depth: int = Field(description="Hops followed.")
    limit: int = Field(description="The limit applied.")


ASSOCIATE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": AssociateRequest.model_json_schema()}},
    }
}
