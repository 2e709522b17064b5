"""`python -m app`: serve Engram with uvicorn on the configured host and port."""

import logging

import uvicorn

from app.config import get_settings
from app.main import create_app


def main() -> None:
    settings = get_settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("saq").setLevel(logging.WARNING)  # saq logs every job at INFO
    uvicorn.run(
        create_app(settings, freeze_after_start=True),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
    )


if __name__ == "__main__":
    main()
