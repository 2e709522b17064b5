"""The HTTP server's own refusals, in Engram's error envelope.

uvicorn answers a request its parser cannot read before any ASGI code runs, with a plain-text
400 ("Invalid HTTP request received."). `EnvelopeHttpToolsProtocol` (the `http` protocol of
`python -m app`) answers in the envelope instead: a 414 `uri_too_long` for a URL over
MAX_URL_BYTES, the length the parser itself can read (no longer URL is ever kept: the rest of it
is read and dropped), else a 400 `bad_request`.
"""

import http

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.http_guard import error_body

# The longest request target (path and query string, as sent) httptools reads: its URL offsets
# are 16-bit. Long inputs go in a body (POST /recall).
MAX_URL_BYTES = 65_535
URL_TOO_LONG = (
    f"The URL (path and query string) must be at most {MAX_URL_BYTES} bytes; "
    "send long inputs in a JSON body (e.g. POST /recall)"
)


class UrlTooLong(Exception):
    """Raised from a parser callback: the parser stops and reports an error."""


class EnvelopeHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with its refusals in the error envelope."""

    url_too_long = False

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.url_too_long = False

    def on_url(self, url: bytes) -> None:
        if self.url_too_long:
            return
        super().on_url(url)
        if len(self.url) > MAX_URL_BYTES:
            self.url_too_long, self.url = True, b""

    def on_headers_complete(self) -> None:
        if self.url_too_long:
            raise UrlTooLong
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        if self.url_too_long:
            status, body = 414, error_body(414, "uri_too_long", URL_TOO_LONG)
        else:
            status, body = 400, error_body(400, "bad_request", "The request is not valid HTTP")
        head = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode()]
        for name, value in self.server_state.default_headers:
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: application/json\r\n")
        head.append(b"content-length: " + str(len(body)).encode() + b"\r\n")
        head.append(b"connection: close\r\n\r\n")
        self.transport.write(b"".join(head) + body)
        self.transport.close()
