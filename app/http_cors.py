"""CORS for browser clients (ENGRAM_CORS_ORIGINS): Starlette's middleware, or nothing at all."""

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

# What Engram's clients send; keys travel in headers, never in cookies (so no credentials mode).
ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    "X-API-Key",
    "X-Agent-Id",
    "X-Admin-Token",
    "X-Admin-Api-Key",
    "X-Request-Id",
    "Idempotency-Key",
)
EXPOSED_HEADERS = ("X-Request-Id", "Retry-After")
PREFLIGHT_CACHE_S = 600


def allow_origins(app: FastAPI, origins: list[str]) -> None:
    """Answers browsers' preflights and adds CORS headers for these origins ("*": any); with
    none, adds nothing. Called before the outermost middleware, so refusals carry them too."""
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=list(ALLOWED_HEADERS),
            expose_headers=list(EXPOSED_HEADERS),
            max_age=PREFLIGHT_CACHE_S,
        )
