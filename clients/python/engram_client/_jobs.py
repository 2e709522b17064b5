"""Waiting for a /remember job: how often to ask, and what its end means."""

from collections.abc import Iterator

from engram_client.errors import JobFailedError, JobTimeoutError
from engram_client.models import RememberJob


def poll_intervals_s() -> Iterator[float]:
    """0.2 s, then up to 2 s between polls: most jobs end within a second or two."""
    interval = 0.2
    while True:
        yield interval
        interval = min(interval * 1.5, 2.0)


def outcome(job: RememberJob) -> RememberJob:
    if job.state != "done":
        raise JobFailedError(f"Job {job.job_id} ended {job.state}: {job.error}", job=job)
    return job


def timed_out(job: RememberJob, timeout_s: float) -> JobTimeoutError:
    return JobTimeoutError(
        f"Job {job.job_id} still {job.state} after {timeout_s:g} s; it carries on", job=job
    )
