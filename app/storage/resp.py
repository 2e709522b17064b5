"""A lean pool of FalkorDB connections for the hot read paths (`GraphStore.ro_rows`).

redis-py's asyncio client spends event-loop time per command (its pool's condition, a timeout
scope per read, its notification hooks) on top of the same hiredis parser this pool uses, on the
request path of every recall; `bench/recall_ab.py` compares the two side by side. Writes and
everything else stay on redis-py.

Only plain `redis://` (TCP) and `unix://` URLs are served, with their username, password,
database, `client_name`, `socket_timeout` and `socket_connect_timeout`; `ReadPool.supports` says
whether a URL is one of them (anything else, e.g. `rediss://` with its certificate options, keeps
redis-py). Error replies become redis-py's own exception classes (its parser's mapping), so a
server still loading its data or refusing the password is a `redis.ConnectionError`, as through
redis-py. A connection is used by one command at a time and closed after any failure or
cancellation, so a late reply can never answer the next command. A command that failed on a
reused connection because the server had closed it (a restart) is sent once more on a fresh
one: the commands sent here are read-only (redis-py retries such failures too).
"""

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

import hiredis
from redis._parsers.base import BaseParser  # redis-py's error-reply mapping (pinned version)
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse

READ_SIZE = 1 << 17
CONNECT_TIMEOUT_S = 5.0


def _pack(args: tuple[str, ...]) -> bytes:
    """A RESP command: an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def _raised(reply: Any) -> Any:
    """The reply, or its error raised."""
    if isinstance(reply, Exception):
        raise reply
    return reply


class _ClosedBeforeReply(ConnectionResetError):
    """The server closed the connection before any byte of the reply (e.g. it restarted)."""


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def call(self, args: tuple[str, ...]) -> Any:
        """Sends one command and reads its whole reply (an error reply is returned, not raised)."""
        self.writer.write(_pack(args))
        parser = hiredis.Reader(
            encoding="utf-8", replyError=BaseParser.parse_error, protocolError=InvalidResponse
        )
        received = False
        while True:
            try:
                data = await self.reader.read(READ_SIZE)
            except ConnectionError as exc:
                if received:
                    raise
                raise _ClosedBeforeReply(str(exc)) from exc
            if not data:
                closed = ConnectionResetError if received else _ClosedBeforeReply
                raise closed("FalkorDB closed the connection")
            received = True
            parser.feed(data)
            reply = parser.gets()
            if reply is not False:
                return reply

    def close(self) -> None:
        self.writer.close()


class ReadPool:
    """At most `size` connections, opened on demand and reused."""

    def __init__(self, url: str, size: int = 16, timeout_s: float = 30.0) -> None:
        self._options = parse_url(url)
        self._slots = asyncio.Semaphore(size)
        self._idle: list[_Connection] = []
        self._timeout_s = self._options.get("socket_timeout") or timeout_s
        self._connect_timeout_s = self._options.get("socket_connect_timeout") or CONNECT_TIMEOUT_S
        self._closed = False

    @staticmethod
    def supports(url: str) -> bool:
        return url.startswith(("redis://", "unix://"))

    async def execute(self, *args: str) -> Any:
        """The reply to one read-only command. An error reply raises as through redis-py;
        OSError (TimeoutError included) when the server cannot be reached or does not answer
        within the timeout, which counts the wait for a free connection."""
        async with asyncio.timeout(self._timeout_s), self._slots:
            return _raised(await self._call(args))

    async def _call(self, args: tuple[str, ...]) -> Any:
        if self._closed:
            raise RedisConnectionError("the read connections are closed")
        if self._idle:
            try:
                return await self._exchange(self._idle.pop(), args)
            except _ClosedBeforeReply:
                pass  # closed by the server while idle (a restart): once more, on a new one
        return await self._exchange(await self._connect(), args)

    async def _exchange(self, connection: _Connection, args: tuple[str, ...]) -> Any:
        """One command on `connection`: closed after any failure or cancellation, else kept for
        the next command (its reply was read whole)."""
        try:
            reply = await connection.call(args)
        except BaseException:
            connection.close()
            raise
        if self._closed:
            connection.close()
        else:
            self._idle.append(connection)
        return reply

    async def _connect(self) -> _Connection:
        async with asyncio.timeout(self._connect_timeout_s):
            connection = await self._open()
            try:
                await self._handshake(connection)
            except BaseException:
                connection.close()
                raise
        return connection

    async def _open(self) -> _Connection:
        options = self._options
        if "path" in options:
            reader, writer = await asyncio.open_unix_connection(options["path"])
        else:
            host, port = options.get("host", "localhost"), options.get("port", 6379)
            reader, writer = await asyncio.open_connection(host, port)
        return _Connection(reader, writer)

    async def _handshake(self, connection: _Connection) -> None:
        options = self._options
        if options.get("password"):
            credentials = (options.get("username"), options["password"])
            _raised(await connection.call(("AUTH", *(c for c in credentials if c))))
        if options.get("db"):
            _raised(await connection.call(("SELECT", str(options["db"]))))
        if options.get("client_name"):
            _raised(await connection.call(("CLIENT", "SETNAME", options["client_name"])))

    async def close(self) -> None:
        """Closes the idle connections; those in use close when their command ends, and later
        commands fail (ConnectionError)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
            with contextlib.suppress(OSError):
                await connection.writer.wait_closed()
