"""Which artifact store a process opens: S3-compatible when ARTIFACT_S3_BUCKET is set, else the
local filesystem under ENGRAM_DATA_DIR/artifacts."""

from app.config import Settings
from app.storage.artifacts.files import ArtifactStore, FileArtifacts


def open_artifact_store(settings: Settings) -> ArtifactStore:
    if not settings.artifact_s3_bucket:
        return FileArtifacts(settings.data_dir / "artifacts")
    from app.storage.artifacts.s3 import S3Artifacts  # boto3 loads only where it is used

    client = {
        "endpoint_url": settings.artifact_s3_endpoint_url,
        "region_name": settings.artifact_s3_region,
        "aws_access_key_id": settings.artifact_s3_access_key_id,
        "aws_secret_access_key": settings.artifact_s3_secret_access_key,
    }
    given = {name: value for name, value in client.items() if value}
    return S3Artifacts(settings.artifact_s3_bucket, settings.artifact_s3_prefix, **given)
