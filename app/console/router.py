"""Serves the console's page and its static files, every one with a strict Content Security Policy.

The console is a plain client of the public API: these routes need no key and read no store. The
page holds no data; the browser fetches it with the key the user typed, so tenancy stays in the API.
"""

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC_DIR = Path(__file__).parent / "static"

# Only this origin's own script, style and API; no inline script or style, no framing, no forms
# posted anywhere: memory text that slipped into the page as markup could run nothing.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@router.get("/console")
async def console_page() -> FileResponse:
    """The console's single page."""
    return FileResponse(STATIC_DIR / "index.html", headers=SECURITY_HEADERS)


class SecuredStaticFiles(StaticFiles):
    """Starlette's static files, answered with the console's security headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


def mount_console(app: FastAPI) -> None:
    """Adds /console and its files under /console/static/."""
    app.include_router(router)
    app.mount("/console/static", SecuredStaticFiles(directory=STATIC_DIR), name="console-static")
