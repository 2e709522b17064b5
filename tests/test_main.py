"""The service's entry point freezes what it loaded at start and collects young objects less
often; an app built per test does neither."""

import gc
from pathlib import Path

from app.main import YOUNG_THRESHOLD, create_app
from tests.conftest import test_settings


async def test_the_service_freezes_what_it_loaded_at_start(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    gc.unfreeze()
    thresholds = gc.get_threshold()
    try:
        plain = create_app(settings)
        async with plain.router.lifespan_context(plain):
            assert gc.get_freeze_count() == 0
            assert gc.get_threshold() == thresholds
        frozen = create_app(settings, freeze_after_start=True)
        async with frozen.router.lifespan_context(frozen):
            assert gc.get_freeze_count() > 10_000  # the modules and models, not a handful
            assert gc.get_threshold() == (YOUNG_THRESHOLD, *thresholds[1:])
    finally:
        gc.unfreeze()  # the test process must go on collecting them
        gc.set_threshold(*thresholds)
