"""A request body streamed to a file, with a size limit (archives and imports)."""

from pathlib import Path

from fastapi import Request

from app.errors import PayloadTooLarge


async def receive_to(request: Request, path: Path, *, limit: int, what: str) -> None:
    size = 0
    with path.open("wb") as handle:
        async for block in request.stream():
            size += len(block)
            if size > limit:
                raise PayloadTooLarge(f"{what} may be at most {limit} bytes")
            handle.write(block)
