from pydantic import AliasChoices, BaseModel, Field


class ArtifactSettings(BaseModel):
    """Artifacts

    Files attached to a memory (app/artifacts/service.py, [api](api.md#artifacts)): on the
    local filesystem under the data directory, or in an S3-compatible object store
    ([operations](operations.md#artifacts-in-an-s3-compatible-store)).
    """

    # The largest accepted, in bytes (mnemory's MAX_ARTIFACT_SIZE).
    max_artifact_size: int = Field(
        10 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("MAX_ARTIFACT_SIZE", "ENGRAM_MAX_ARTIFACT_SIZE"),
        description=(
            "the largest artifact accepted, in bytes (413 beyond) ([api](api.md#artifacts))"
        ),
    )
    # How long a signed download URL lives by default; the key that signs those URLs (unset: a
    # random key kept in data_dir/artifacts/.url-secret; set it when several processes with
    # different data directories serve one deployment).
    artifact_url_ttl_s: int = Field(
        3600,
        ge=1,
        le=7 * 86_400,
        validation_alias="ENGRAM_ARTIFACT_URL_TTL_S",
        description=("how long a signed artifact download URL works by default (at most 7 days)"),
    )
    artifact_url_secret: str | None = Field(
        None,
        validation_alias="ENGRAM_ARTIFACT_URL_SECRET",
        description=(
            "the key that signs artifact download URLs; unset: a random key in "
            "`data_dir/artifacts/.url-secret`; set it when processes with different "
            "data directories serve one deployment"
        ),
    )
    # An S3-compatible object store for artifacts (unset: the local filesystem). Credentials:
    # these, else boto3's own chain (AWS_ACCESS_KEY_ID…, ~/.aws, an instance role).
    artifact_s3_bucket: str | None = Field(
        None,
        validation_alias="ARTIFACT_S3_BUCKET",
        description=(
            "the bucket of an S3-compatible store for artifacts; unset: the local filesystem"
        ),
    )
    artifact_s3_prefix: str = Field(
        "",
        max_length=200,
        pattern=r"^$|^[A-Za-z0-9!_.*'()/-]*/$",
        validation_alias="ARTIFACT_S3_PREFIX",
        description="a key prefix ending in `/`, e.g. `engram/prod/`",
    )
    artifact_s3_endpoint_url: str | None = Field(
        None,
        validation_alias="ARTIFACT_S3_ENDPOINT_URL",
        description="the endpoint of a store that is not AWS, e.g. `http://minio:9000`",
    )
    artifact_s3_region: str | None = Field(
        None,
        validation_alias="ARTIFACT_S3_REGION",
        description="the region (AWS), optional elsewhere",
    )
    artifact_s3_access_key_id: str | None = Field(
        None,
        validation_alias="ARTIFACT_S3_ACCESS_KEY_ID",
        description=(
            "credentials: the access key id; unset: boto3's own chain "
            "(`AWS_ACCESS_KEY_ID`…, `~/.aws`, an instance role)"
        ),
    )
    artifact_s3_secret_access_key: str | None = Field(
        None,
        validation_alias="ARTIFACT_S3_SECRET_ACCESS_KEY",
        repr=False,
        description="credentials: the secret access key; unset: boto3's own chain",
    )
    # Chunks one `include_artifacts` recall may embed for text artifacts that have no search
    # index yet (the upload's artifact_index job normally builds it first).
    artifact_search_embed_budget: int = Field(
        256,
        ge=0,
        le=100_000,
        validation_alias="ARTIFACT_SEARCH_EMBED_BUDGET",
        description=(
            "chunks one `include_artifacts` recall may embed for text artifacts that "
            "have no search index yet (the upload's `artifact_index` job normally "
            "builds it first)"
        ),
    )
