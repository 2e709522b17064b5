"""The servers a test session started, read from /proc: what must be gone when it ends.

A server counts as the session's when it descends from the pytest process, or works in the
session's temporary directory (its cwd, as redis-server's `--dir`, or its ENGRAM_DATA_DIR): a
redis-server whose Engram died is re-parented away from pytest, but stays in its directory.
"""

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
ENGRAM_MODULES = ("app", "app.mcp_stdio", "app.worker")


@dataclass(frozen=True)
class Stray:
    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid}: {self.command}"


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process; None once it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    state, ppid = text.rpartition(")")[2].split()[:2]  # the name in parentheses may hold spaces
    return state, int(ppid)


def alive(pid: int) -> bool:
    """Running (an exited child not yet reaped is not)."""
    found = _stat(pid)
    return found is not None and found[0] not in ("Z", "X")


def parent_of(pid: int) -> int | None:
    found = _stat(pid)
    return None if found is None else found[1]


def _argv(pid: int) -> list[str]:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def _is_server(argv: list[str]) -> bool:
    if not argv:
        return False
    if "redis-server" in argv[0]:  # redis-server names itself "redis-server host:port"
        return True
    modules = {argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-m"}
    return bool(modules & set(ENGRAM_MODULES)) or any(a.endswith("/engram") for a in argv[:2])


def _works_in(pid: int, root: Path) -> bool:
    base = PROC / str(pid)
    try:
        if Path(os.readlink(base / "cwd")).is_relative_to(root):
            return True
        environ = (base / "environ").read_bytes().split(b"\0")
    except OSError:
        return False
    prefix = b"ENGRAM_DATA_DIR="
    dirs = [
        Path(v[len(prefix) :].decode(errors="replace")) for v in environ if v.startswith(prefix)
    ]
    return any(d.is_relative_to(root) for d in dirs)


def _descendants(root_pid: int, pids: list[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid in pids:
        parent = parent_of(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found, todo = set(), [root_pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def session_servers(root_pid: int, tmp_root: Path) -> list[Stray]:
    """The live redis-server and Engram processes of the session rooted at `root_pid`."""
    pids = [int(p.name) for p in PROC.iterdir() if p.name.isdigit()]
    ours = _descendants(root_pid, pids)
    strays = []
    for pid in pids:
        if pid == root_pid or not alive(pid):
            continue
        argv = _argv(pid)
        if _is_server(argv) and (pid in ours or _works_in(pid, tmp_root)):
            strays.append(Stray(pid, " ".join(argv)))
    return strays


def left_running(root_pid: int, tmp_root: Path, grace_s: float = 15.0) -> list[Stray]:
    """session_servers, given `grace_s` to finish exiting (a server sent SIGTERM a moment ago
    is shutting down, not left behind)."""
    deadline = time.monotonic() + grace_s
    while (strays := session_servers(root_pid, tmp_root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return strays


def kill(strays: list[Stray]) -> None:
    for stray in strays:
        try:
            os.kill(stray.pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
