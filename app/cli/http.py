"""The HTTP client every command uses: base URL, admin key, and errors mapped to exit codes."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from app.cli.errors import AUTH_REFUSED, FAILED, UNREACHABLE, CliError

# Long operator calls (backup, restore) wait as long as the server works; connecting does not.
LONG = httpx.Timeout(None, connect=10.0)


class EngramClient:
    """A thin synchronous client; every failure becomes a CliError with the right exit code."""

    def __init__(self, url: str, admin_key: str | None, timeout_s: float) -> None:
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {admin_key}"} if admin_key else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout_s)
        self.has_key = admin_key is not None

    def close(self) -> None:
        self._http.close()

    def request(
        self, method: str, path: str, *, accept: tuple[int, ...] = (), **kwargs: Any
    ) -> Any:
        """The decoded JSON body of a successful response (or of one with a status in
        `accept`, for errors whose body the command shows)."""
        response = self._send(method, path, accept, **kwargs)
        return response.json() if response.content else None

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)

    @contextmanager
    def stream(self, method: str, path: str, **kwargs: Any) -> Iterator[httpx.Response]:
        """A streamed response (checked before the body is read)."""
        try:
            with self._http.stream(method, path, **kwargs) as response:
                if response.is_error:
                    response.read()
                    raise _http_error(response)
                yield response
        except httpx.TransportError as exc:
            raise _unreachable(self.url, exc) from exc

    def _send(
        self, method: str, path: str, accept: tuple[int, ...], **kwargs: Any
    ) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise _unreachable(self.url, exc) from exc
        if response.is_error and response.status_code not in accept:
            raise _http_error(response)
        return response


def _unreachable(url: str, exc: Exception) -> CliError:
    return CliError(f"Cannot reach Engram at {url}: {exc or type(exc).__name__}", UNREACHABLE)


def _http_error(response: httpx.Response) -> CliError:
    """The server's error envelope as one line, with the exit code for its status."""
    try:
        body = response.json()
        message = body.get("message") or body.get("detail") or response.text
    except ValueError:
        message = response.text[:500]
    status = response.status_code
    if status in (401, 403):
        hint = " (set --admin-key or ENGRAM_ADMIN_KEY)" if status == 401 else ""
        return CliError(f"{status}: {message}{hint}", AUTH_REFUSED)
    return CliError(f"{status}: {message}", FAILED)
