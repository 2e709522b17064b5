"""Whether erased texts are still in any file of the data directory: the check that closes an
erasure. Every file is searched as raw bytes; that is a real check because both embedded stores
write text uncompressed (FalkorDB's AOF runs with `rdbcompression no`; Edge's payloads are JSON).

A text is searched for by its longest run of plain ASCII without quotes or backslashes (what
every store writes as it is, unescaped); a text with no such run of MIN_NEEDLE characters cannot
be told from other data and is not checked (`unchecked_texts`).
"""

from __future__ import annotations

import asyncio
import mmap
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

MIN_NEEDLE = 12
PLAIN_RUNS = re.compile(r"[ !#-\[\]-~]+")  # printable ASCII but `"` and `\`
RETRY_S = 0.2


class DiskCheckReport(TypedDict):
    """A DiskCheck as the erase report's `disk` carries it."""

    clean: bool
    checked_files: int
    checked_texts: int
    unchecked_texts: int
    found_in: list[str]
    seconds: float


@dataclass
class DiskCheck:
    clean: bool
    checked_files: int = 0
    checked_texts: int = 0
    unchecked_texts: int = 0
    found_in: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> DiskCheckReport:
        return {
            "clean": self.clean,
            "checked_files": self.checked_files,
            "checked_texts": self.checked_texts,
            "unchecked_texts": self.unchecked_texts,
            "found_in": self.found_in,
            "seconds": round(self.seconds, 3),
        }


def needle(text: str) -> bytes | None:
    """The part of `text` searched for, or None if it has none long enough."""
    runs = [run.strip() for run in PLAIN_RUNS.findall(text)]
    longest = max(runs, key=len, default="")
    return longest.encode() if len(longest) >= MIN_NEEDLE else None


def search(root: Path, texts: Sequence[str]) -> DiskCheck:
    """Searches every file under `root` for the texts (blocking)."""
    started = time.monotonic()
    needles = {n for n in map(needle, texts) if n is not None}
    check = DiskCheck(clean=True, checked_texts=len(needles))
    check.unchecked_texts = len(texts) - sum(1 for t in texts if needle(t) is not None)
    pattern = re.compile(b"|".join(re.escape(n) for n in sorted(needles))) if needles else None
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        check.checked_files += 1
        if pattern is not None and _holds(path, pattern):
            check.found_in.append(str(path.relative_to(root)))
    check.clean = not check.found_in
    check.seconds = time.monotonic() - started
    return check


async def wait_until_clean(root: Path, texts: Sequence[str], timeout_s: float) -> DiskCheck:
    """Searches again until the texts are gone or `timeout_s` passed: the stores delete the
    files they replaced a moment after the rewrite (FalkorDB's old AOF in the background)."""
    deadline = time.monotonic() + timeout_s
    while True:
        check = await asyncio.to_thread(search, root, texts)
        if check.clean or time.monotonic() > deadline:
            return check
        await asyncio.sleep(RETRY_S)


def _holds(path: Path, pattern: re.Pattern[bytes]) -> bool:
    try:
        with path.open("rb") as handle:
            if path.stat().st_size == 0:
                return False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return pattern.search(data) is not None
    except (FileNotFoundError, ValueError):
        return False  # deleted while the search ran: it holds nothing now
