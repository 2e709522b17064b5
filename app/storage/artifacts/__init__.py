"""Artifact bytes, the files attached to memories: the `ArtifactStore` protocol and the local
filesystem backend (files.py), the S3-compatible one (s3.py), and which of them a process opens
(backends.py). Their metadata is in the graph (app/storage/graph/artifact_records.py); the service
that attaches them is app/artifacts/service.py."""
