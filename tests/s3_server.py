"""A local S3-compatible server for the S3 artifact backend's tests: moto's server (PyPI's
`moto`), a real HTTP endpoint speaking the S3 protocol, started as a process of its own."""

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import boto3
import httpx

from tests.conftest import free_port

CREDENTIALS = {"aws_access_key_id": "engram-test", "aws_secret_access_key": "engram-test-secret"}
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    endpoint: str

    def client(self):  # noqa: ANN201 - boto3 clients have no static type
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION, **CREDENTIALS)

    def new_bucket(self) -> str:
        name = f"engram-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        listed = self.client().list_objects_v2(Bucket=bucket)
        return sorted(item["Key"] for item in listed.get("Contents", []))

    def settings(self, bucket: str) -> dict[str, object]:
        return {
            "artifact_s3_bucket": bucket,
            "artifact_s3_endpoint_url": self.endpoint,
            "artifact_s3_region": REGION,
            "artifact_s3_access_key_id": CREDENTIALS["aws_access_key_id"],
            "artifact_s3_secret_access_key": CREDENTIALS["aws_secret_access_key"],
        }


@contextmanager
def s3_server() -> Iterator[S3Server]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(endpoint, process)
        yield S3Server(endpoint)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(endpoint: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the S3 server exited with {process.returncode}")
        try:
            httpx.get(endpoint, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("the S3 server did not start within 60 s")
