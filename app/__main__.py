"""`python -m app`: serve Engram with uvicorn on the configured host and port."""

import uvicorn

from app.config import get_settings
from app.http_server import EnvelopeHttpToolsProtocol
from app.logs import configure_logging
from app.main import create_app


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_format)
    uvicorn.run(
        create_app(settings, freeze_after_start=True),
        host=settings.host,
        port=settings.port,
        http=EnvelopeHttpToolsProtocol,  # the server's own refusals in the error envelope
        log_level=settings.log_level,
        access_log=False,  # Engram's own access log (app.http_observe) has the request id
        log_config=None,  # uvicorn's loggers go through the handler configure_logging set
    )


if __name__ == "__main__":
    main()
