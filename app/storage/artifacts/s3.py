"""Artifact bytes in an S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, …), through
boto3: the same layout as on the filesystem, as keys under ARTIFACT_S3_PREFIX —
`<prefix><owner>/<memory id>/<artifact id>` and the search index beside it.

A PUT is atomic, so an object exists whole or not at all; the bytes are spooled through a
temporary file first, to check the size limit and take the sha256 before anything is stored.
Deleting is removing the keys; on a bucket with versioning on, old versions stay until its
lifecycle rules expire them (docs/operations.md says so: use an unversioned bucket, or a rule,
for erasure to reach the store).

Every method blocks: call them in a thread.
"""

import hashlib
import secrets
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from app.storage.artifacts.files import (
    INDEX_SUFFIX,
    SECRET_FILE,
    StoredFile,
    TooLarge,
    Written,
    owner_dir,
)

SPOOL_IN_MEMORY = 8 << 20
DELETE_BATCH = 1000  # the most keys one DeleteObjects call takes
MISSING = ("404", "NoSuchKey", "NotFound")


class S3Artifacts:
    """Artifacts as objects of one bucket, under `prefix`."""

    def __init__(self, bucket: str, prefix: str = "", **client: Any) -> None:
        self.bucket = bucket
        self.prefix = prefix
        retries = Config(retries={"max_attempts": 5, "mode": "standard"})
        self._s3 = boto3.client("s3", config=retries, **client)

    def _memory_prefix(self, user_id: str, memory_id: str) -> str:
        return f"{self.prefix}{owner_dir(user_id)}/{memory_id}/"

    def key(self, user_id: str, memory_id: str, artifact_id: str) -> str:
        return self._memory_prefix(user_id, memory_id) + artifact_id

    def local_path(self, user_id: str, memory_id: str, artifact_id: str) -> Path | None:
        return None

    def exists(self, user_id: str, memory_id: str, artifact_id: str) -> bool:
        try:
            self._s3.head_object(Bucket=self.bucket, Key=self.key(user_id, memory_id, artifact_id))
        except ClientError as exc:
            if _missing(exc):
                return False
            raise
        return True

    def write(
        self, user_id: str, memory_id: str, artifact_id: str, blocks: Iterable[bytes], limit: int
    ) -> Written:
        """Stores the bytes whole or not at all; TooLarge (nothing stored) past `limit`."""
        digest, size = hashlib.sha256(), 0
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as spool:
            for block in blocks:
                size += len(block)
                if size > limit:
                    raise TooLarge(f"more than {limit} bytes")
                digest.update(block)
                spool.write(block)
            spool.seek(0)
            key = self.key(user_id, memory_id, artifact_id)
            self._s3.put_object(Bucket=self.bucket, Key=key, Body=spool, ContentLength=size)
        return Written(size, digest.hexdigest())

    def read(self, user_id: str, memory_id: str, artifact_id: str) -> bytes:
        return self._get(self.key(user_id, memory_id, artifact_id))

    def _get(self, key: str) -> bytes:
        try:
            answer = self._s3.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if _missing(exc):
                raise FileNotFoundError(key) from None
            raise
        data: bytes = answer["Body"].read()
        return data

    def digest(self, user_id: str, memory_id: str, artifact_id: str) -> str | None:
        try:
            return hashlib.sha256(self.read(user_id, memory_id, artifact_id)).hexdigest()
        except FileNotFoundError:
            return None

    def remove(self, user_id: str, memory_id: str, artifact_id: str) -> None:
        key = self.key(user_id, memory_id, artifact_id)
        self._delete([key, key + INDEX_SUFFIX])

    def read_index(self, user_id: str, memory_id: str, artifact_id: str) -> bytes | None:
        try:
            return self._get(self.key(user_id, memory_id, artifact_id) + INDEX_SUFFIX)
        except FileNotFoundError:
            return None

    def write_index(self, user_id: str, memory_id: str, artifact_id: str, data: bytes) -> None:
        """Stores the search index of an artifact that exists (none for a deleted one)."""
        key = self.key(user_id, memory_id, artifact_id)
        if not self.exists(user_id, memory_id, artifact_id):
            raise FileNotFoundError(key)
        self._s3.put_object(Bucket=self.bucket, Key=key + INDEX_SUFFIX, Body=data)
        if not self.exists(user_id, memory_id, artifact_id):  # deleted meanwhile
            self._delete([key + INDEX_SUFFIX])

    def remove_memories(self, user_id: str, memory_ids: Iterable[str]) -> int:
        removed = 0
        for memory_id in memory_ids:
            keys = list(self._keys(self._memory_prefix(user_id, memory_id)))
            self._delete(keys)
            removed += bool(keys)
        return removed

    def remove_user(self, user_id: str) -> None:
        self._delete(list(self._keys(f"{self.prefix}{owner_dir(user_id)}/")))

    def remove_everything(self) -> None:
        """Every artifact (a forced restore replaces the store); the URL key stays."""
        keys = [k for k in self._keys(self.prefix) if k != self.prefix + SECRET_FILE]
        self._delete(keys)

    def files(self) -> Iterator[StoredFile]:
        """Every object under the prefix, as the filesystem's sweep lists files; a search index
        only when its artifact is gone."""
        listed = dict(self._listing(self.prefix))
        for key, modified in sorted(listed.items()):
            parts = key.removeprefix(self.prefix).split("/")
            if len(parts) != 3:
                continue  # the URL key, or an object another program put here
            if key.endswith(INDEX_SUFFIX) and key.removesuffix(INDEX_SUFFIX) in listed:
                continue
            yield StoredFile(parts[0], parts[1], parts[2], modified)

    def discard(self, owner: str, memory_id: str, name: str, *, memory_gone: bool) -> None:
        if "/" in owner + memory_id + name or name in ("", ".", ".."):
            raise ValueError(f"not a file of this store: {owner}/{memory_id}/{name}")
        self._delete([f"{self.prefix}{owner}/{memory_id}/{name}"])

    def url_secret(self) -> bytes:
        """The key that signs download URLs: made at random on first use, kept in the bucket;
        the first process to store it wins (a conditional PUT), every other reads it."""
        key = self.prefix + SECRET_FILE
        try:
            return bytes.fromhex(self._get(key).decode().strip())
        except FileNotFoundError:
            pass
        try:
            self._s3.put_object(
                Bucket=self.bucket, Key=key, Body=secrets.token_hex(32).encode(), IfNoneMatch="*"
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") not in ("PreconditionFailed", "412"):
                raise
        return bytes.fromhex(self._get(key).decode().strip())

    def _listing(self, prefix: str) -> Iterator[tuple[str, float]]:
        pages = self._s3.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix
        )
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"], item["LastModified"].timestamp()

    def _keys(self, prefix: str) -> Iterator[str]:
        for key, _ in self._listing(prefix):
            yield key

    def _delete(self, keys: list[str]) -> None:
        for first in range(0, len(keys), DELETE_BATCH):
            batch = [{"Key": k} for k in keys[first : first + DELETE_BATCH]]
            self._s3.delete_objects(Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True})


def _missing(exc: ClientError) -> bool:
    return str(exc.response.get("Error", {}).get("Code")) in MISSING
