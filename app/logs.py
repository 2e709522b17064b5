"""Logging for every Engram process: JSON lines (or plain text) on stderr, each carrying the id
of the HTTP request it was written for."""

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

# LogRecord's own attributes; anything else on a record came from `extra=` and is logged too.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


class RequestIdFilter(logging.Filter):
    """Stamps each record with the current request's id ('-' outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ts, level, logger, message, request_id, then any extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if entry.get("request_id") == "-":
            del entry["request_id"]
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(level: str, fmt: str = "json") -> None:
    """Replaces the root logger's handlers with one on stderr in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("saq").setLevel(logging.WARNING)  # saq logs every job at INFO
    logging.getLogger("httpx").setLevel(logging.WARNING)  # every outgoing request at INFO
    # "Terminating session: None" at INFO after each stateless /mcp request
    logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()  # through the root handler, in our format
        logging.getLogger(name).propagate = True
