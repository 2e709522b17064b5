"""Child processes that die with the process that started them.

A server Engram starts for itself (the embedded FalkorDB; `python -m app` for a CLI command on a
data directory) must not outlive it, and a parent killed with SIGKILL (as desktop clients quit
`engram mcp`) runs no cleanup. On Linux the child asks the kernel, between fork and exec, for
SIGTERM when its parent dies (prctl PR_SET_PDEATHSIG): redis-server then shuts down cleanly (its
AOF flushed), Engram runs its lifespan's stop. Elsewhere nothing is set (the pidfile's reuse of a
live server, app/storage/falkordb/server.py, covers a server left behind).

The kernel sends that signal when the *thread* that forked the child exits, not the process: a
child forked from a short-lived thread (a pool's) would be killed when the thread ends. Children
are forked from the main thread, or else from one spawner thread that lives as long as the
process.
"""

import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# Looked up once here: the child, between fork and exec, should do as little as it can.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
_SIGTERM = int(signal.SIGTERM)
_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def popen_tied(args: Sequence[str], **options: Any) -> subprocess.Popen:
    """subprocess.Popen(args, **options), the child sent SIGTERM when this process dies."""
    if _PRCTL is None:
        return subprocess.Popen(args, **options)  # noqa: S603 - the caller's fixed command
    options["preexec_fn"] = _dies_with(os.getpid())
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(args, **options)  # noqa: S603 - the caller's fixed command
    return _spawner_thread().submit(_popen, args, options).result()


def _popen(args: Sequence[str], options: dict[str, Any]) -> subprocess.Popen:
    return subprocess.Popen(args, **options)  # noqa: S603 - the caller's fixed command


def _dies_with(parent: int) -> Callable[[], None]:
    prctl = _PRCTL
    assert prctl is not None

    def in_child() -> None:  # in the child, after fork, before exec
        prctl(PR_SET_PDEATHSIG, _SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), _SIGTERM)

    return in_child


def _spawner_thread() -> ThreadPoolExecutor:
    global _spawner
    with _spawner_lock:
        if _spawner is None:  # one worker, idle between spawns, never ended before exit
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-spawner")
        return _spawner
