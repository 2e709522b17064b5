"""One Engram per data directory: a process owns the embedded stores it starts, and only those.

A second process on the same ENGRAM_DATA_DIR used to adopt the running FalkorDB, fail on the
vector shard the first one holds open, and on its way out shut the first one's FalkorDB down.
So before anything in the directory is touched, start-up takes an exclusive lock on
ENGRAM_DATA_DIR/engram.lock and writes its owner (pid, API port, command) into it; a second
process refuses at once and names the owner. The kernel drops a flock when its process dies,
however it dies, so a FalkorDB left running by an Engram that crashed (the lock free, redis.pid
alive) is adopted by the next owner, as before the lock.
"""

import contextlib
import fcntl
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.refusals import data_dir_in_use

LOCKFILE = "engram.lock"


@dataclass
class DataDirLock:
    """The held lock; `release()` lets the next process own the directory."""

    path: Path
    fd: int | None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None


def claim_data_dir(data_dir: Path, *, port: int, now: str) -> DataDirLock:
    """Locks `data_dir` for this process, or refuses naming the process that holds it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCKFILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise data_dir_in_use(data_dir.resolve(), lock_owner(path)) from None
    owner = {"pid": os.getpid(), "port": port, "command": _command(), "since": now}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
    return DataDirLock(path, fd)


def held_by(data_dir: Path) -> dict[str, Any] | None:
    """The owner of `data_dir` if a live process holds its lock, else None."""
    try:
        fd = os.open(data_dir / LOCKFILE, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return lock_owner(data_dir / LOCKFILE)
    finally:
        os.close(fd)
    return None


def lock_owner(path: Path) -> dict[str, Any]:
    """What the lock's holder wrote about itself ({} if it has not yet, or the file is gone)."""
    with contextlib.suppress(OSError, ValueError):
        found = json.loads(path.read_text())
        if isinstance(found, dict):
            return found
    return {}


def _command() -> str:
    """How this process was started, e.g. `python -m app.mcp_stdio`."""
    argv = list(sys.orig_argv)
    if argv:
        argv[0] = Path(argv[0]).name
    return " ".join(argv)
