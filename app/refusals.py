"""Refusals to start: each says what is wrong and the command that fixes it.

A leaf module: the start-up (app/runtime.py) turns what failed into one of these, and the message
is the last line an operator sees (uvicorn prints it with the traceback, `engram serve` alone).
"""

from pathlib import Path


class StartupRefused(RuntimeError):
    """Engram will not start; `fix` is what to run or change."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"Engram cannot start: {what}\nTo fix: {fix}")
        self.what, self.fix = what, fix


def embedded_falkordb_failed(url: str, port: int, log_tail: str, log_path: Path) -> StartupRefused:
    """The embedded FalkorDB server exited during start-up; its log says why."""
    if "Address already in use" in log_tail:
        return StartupRefused(
            f"port {port} for the embedded FalkorDB is taken by another program",
            f"stop that program (`ss -ltnp 'sport = :{port}'` shows it) or choose a free port, "
            f"e.g. `FALKORDB_PORT={port + 1}`",
        )
    if "Bad file format reading the append only file" in log_tail or (
        "Unrecoverable error reading the append only file" in log_tail
    ):
        return StartupRefused(
            f"FalkorDB's append-only file in {log_path.parent} is damaged",
            "restore the last backup (`engram restore <archive>`), or repair the file with "
            "`redis-check-aof --fix <file>` from a Redis install, then start again",
        )
    if "Module" in log_tail and ("failed to load" in log_tail or "Error loading" in log_tail):
        return StartupRefused(
            "the FalkorDB module could not be loaded by redis-server",
            "run `make install` (it installs the pinned module), or point FALKORDB_MODULE at a "
            "falkordb.so built for this machine",
        )
    return StartupRefused(
        f"the embedded FalkorDB on {url} exited during start-up; its log ends with:\n{log_tail}",
        f"read {log_path}; to use a FalkorDB server of your own instead, set FALKORDB_URL",
    )


def falkordb_unreachable(url: str, waited_s: float, error: BaseException) -> StartupRefused:
    return StartupRefused(
        f"FalkorDB at {without_credentials(url)} did not answer within {waited_s:g} s "
        f"({_short(error)})",
        "start that FalkorDB server (or its sentinels), or correct FALKORDB_URL or "
        "FALKORDB_SENTINELS (unset both and Engram runs its own); FALKORDB_CONNECT_WAIT_S sets "
        "how long start-up waits for it",
    )


def indexes_not_ready(waited_s: float) -> StartupRefused:
    return StartupRefused(
        f"FalkorDB's indexes were still being built after {waited_s:g} s",
        f"give a large graph longer, e.g. `FALKORDB_INDEX_WAIT_S={int(waited_s * 5)}`",
    )


def vector_index_unreadable(where: str, path: Path | None, error: BaseException) -> StartupRefused:
    """The vector index could not be opened. It only mirrors the graph, so it can be rebuilt."""
    if path is None:
        return StartupRefused(
            f"the vector index ({without_credentials(where)}) cannot be reached ({_short(error)})",
            "start that Qdrant server or correct QDRANT_URL (unset it and Engram keeps its own "
            "index in ENGRAM_DATA_DIR)",
        )
    if "already open" in str(error):
        return StartupRefused(
            f"the vector index at {path} is open in another process",
            "stop the other Engram that uses this ENGRAM_DATA_DIR, or give this one its own",
        )
    return StartupRefused(
        f"the vector index at {path} cannot be opened ({_short(error)}); it only mirrors the "
        "graph, which is intact",
        f"move it aside and start again: `mv {path} {path}.broken` (with FALKORDB_URL set, start "
        "once with ENGRAM_ADOPT_VECTOR_STORE=true); the start-up check finds the points missing "
        "and queues a sync that rebuilds them from the graph (`engram sync` waits for it)",
    )


def data_dir_in_use(data_dir: Path, owner: dict) -> StartupRefused:
    """Another live process owns the data directory's embedded stores
    (app/storage/data_dir_lock.py)."""
    pid = owner.get("pid", "unknown")
    command = f", started as `{owner['command']}`" if owner.get("command") else ""
    return StartupRefused(
        f"ENGRAM_DATA_DIR {data_dir} is in use by another Engram: pid {pid}, "
        f"ENGRAM_PORT {owner.get('port', 'unknown')}{command}. Its embedded FalkorDB and vector "
        "index belong to that process",
        f"stop that Engram first (`kill {pid}`), or give this one its own ENGRAM_DATA_DIR; to "
        "use the same memories from a second process, talk to the running one's API (or its "
        "MCP endpoint /mcp) instead of opening its stores",
    )


def no_api_keys() -> StartupRefused:
    return StartupRefused(
        "no API key is configured",
        """set ENGRAM_API_KEYS='{"<key>": "<user>"}', or ENGRAM_GENERATE_LOCAL_KEY=true for a """
        "local key written to ENGRAM_DATA_DIR/api_key",
    )


def without_credentials(url: str) -> str:
    """A URL fit for a message: `redis://user:secret@host` -> `redis://***@host`."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def _short(error: BaseException) -> str:
    first = str(error).splitlines()[0][:200] if str(error) else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
