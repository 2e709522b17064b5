"""The FastAPI application: lifespan, routers, and the one mapping of errors to HTTP."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI

from app.artifacts.router import router as artifacts_router
from app.config import Settings, get_settings
from app.console.router import mount_console
from app.enrichment.router import router as entities_router
from app.http_cors import allow_origins
from app.http_docs import mount_docs
from app.http_errors import install_error_handlers
from app.http_guard import AnswerErrors, LimitBody, reject_bad_text
from app.http_observe import ObserveRequests
from app.lifecycle.router import router as lifecycle_router
from app.mcp.http import mount_mcp
from app.mcp.http import session_manager as mcp_session_manager
from app.memories.listing_router import router as listing_router
from app.memories.router import router as memories_router
from app.openapi import install_openapi, operation_id
from app.ops.admin import router as admin_router
from app.ops.backup_router import router as backup_router
from app.ops.erase_router import router as erase_router
from app.ops.keys_router import router as keys_router
from app.ops.me_router import router as me_router
from app.ops.metrics_router import router as metrics_router
from app.ops.overview_router import router as overview_router
from app.ops.portable_router import router as portable_router
from app.ops.router import router as ops_router
from app.ops.settings_router import router as settings_router
from app.ops.vector_index_router import router as vector_index_router
from app.ops.write_gate import WriteGate, WriteGateMiddleware
from app.recall.core_router import router as core_router
from app.recall.router import router as recall_router
from app.relations.router import router as relations_router
from app.remember.router import router as remember_router
from app.runtime import Runtime, start_runtime
from app.sessions.profile_router import router as profile_router
from app.sessions.router import router as sessions_router
from app.webhooks.router import router as webhooks_router

if TYPE_CHECKING:
    from app.deps import Served
    from app.memories.dependencies import MemoriesServed
    from app.ops.router import OpsServed
    from app.recall.dependencies import RecallServed

    def _views(runtime: Runtime) -> tuple[Served, RecallServed, MemoriesServed, OpsServed]:
        """Only type-checked: the Runtime has every part the routes' dependencies read."""
        return runtime, runtime, runtime, runtime


DESCRIPTION = (
    "Long-term memory for AI agents. FalkorDB holds the truth, Qdrant mirrors it for search. "
    "Authenticate with `Authorization: Bearer <key>` or `X-API-Key: <key>`; "
    "`X-Agent-Id` selects the agent scope."
)


# A recall parses graph replies of thousands of small lists at once: with Python's default
# first-generation threshold (700) each burst sets off young collections that walk the lists
# still in use, on the request path. At 10,000 recalls set off none; reference cycles are still
# collected.
YOUNG_THRESHOLD = 10_000


def create_app(settings: Settings | None = None, *, freeze_after_start: bool = False) -> FastAPI:
    """Builds the app; stores are opened by the lifespan.

    `freeze_after_start` (the service's entry point sets it) moves everything loaded at start
    (the models, the modules: many objects) out of the garbage collector's reach: each full
    collection would walk them all, stalling the request it falls in. It also raises the
    collector's first-generation threshold (see YOUNG_THRESHOLD). Not for an app built per
    test: frozen objects are never collected, and the threshold is the whole process's.
    """
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = await start_runtime(settings)
        runtime.start_access_flush()
        if settings.workers:
            await runtime.start_workers(settings.workers)
        app.state.runtime = runtime
        app.state.stores = runtime.stores
        app.state.authenticator = runtime.authenticator
        if freeze_after_start:
            gc.collect()
            gc.freeze()
            gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        try:
            async with mcp_session_manager(mcp_server):
                yield
        finally:
            await runtime.stop()

    app = FastAPI(
        title="Engram",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
        dependencies=[Depends(reject_bad_text)],
        # No redirect to the path without (or with) a trailing slash: its Location would be
        # built from the request's Host header. Such a path is a 404 saying so (http_errors).
        redirect_slashes=False,
        docs_url=None,  # mount_docs serves them without a CDN
        redoc_url=None,
    )
    install_error_handlers(app)
    app.state.write_gate = WriteGate()
    app.add_middleware(WriteGateMiddleware, gate=app.state.write_gate)
    # Backup archives and imports stream to disk with limits of their own (app/ops/uploads.py).
    streamed = frozenset({"/admin/restore", "/admin/import"})
    app.add_middleware(LimitBody, max_bytes=settings.max_body_bytes, streamed=streamed)
    app.add_middleware(AnswerErrors)
    allow_origins(app, settings.cors_origins)
    app.add_middleware(ObserveRequests, access_log=settings.access_log)  # outermost
    app.include_router(memories_router)
    app.include_router(listing_router)
    app.include_router(artifacts_router)
    app.include_router(recall_router)
    app.include_router(core_router)
    app.include_router(relations_router)
    app.include_router(entities_router)
    app.include_router(remember_router)
    app.include_router(profile_router)
    app.include_router(sessions_router)
    app.include_router(ops_router)
    app.include_router(admin_router)
    app.include_router(metrics_router)
    app.include_router(backup_router)
    app.include_router(lifecycle_router)
    app.include_router(erase_router)
    app.include_router(keys_router)
    app.include_router(me_router)
    app.include_router(overview_router)
    app.include_router(settings_router)
    app.include_router(portable_router)
    app.include_router(webhooks_router)
    app.include_router(vector_index_router)
    mount_console(app)
    mount_docs(app)
    mcp_server = mount_mcp(app, settings)
    install_openapi(app)
    return app
