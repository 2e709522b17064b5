"""The service's entry point freezes what it loaded at start; an app built per test does not."""

import gc
from pathlib import Path

from app.main import create_app
from tests.conftest import test_settings


async def test_the_service_freezes_what_it_loaded_at_start(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    gc.unfreeze()
    try:
        plain = create_app(settings)
        async with plain.router.lifespan_context(plain):
            assert gc.get_freeze_count() == 0
        frozen = create_app(settings, freeze_after_start=True)
        async with frozen.router.lifespan_context(frozen):
            assert gc.get_freeze_count() > 10_000  # the modules and models, not a handful
    finally:
        gc.unfreeze()  # the test process must go on collecting them
