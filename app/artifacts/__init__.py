"""Artifacts: files attached to a memory, reached only through it (its scope is theirs). The
service that uploads, reads and deletes them (service.py), what an upload may be (checks.py),
signed download links (links.py), the on-demand search of their text (search.py), and their
routes (router.py, schemas.py). The bytes are kept by app.storage.artifacts, their metadata on
the memory node (app/storage/graph/artifact_records.py)."""
