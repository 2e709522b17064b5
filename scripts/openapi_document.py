"""Prints Engram's OpenAPI document (the one `/openapi.json` serves) as JSON, without starting
anything: what clients/typescript generates its types from (`npm run generate` there)."""

import json
import sys
import tempfile
from pathlib import Path

from app.config import Settings
from app.main import create_app


def document() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(data_dir=Path(data_dir), generate_local_key=False)
        return create_app(settings).openapi()


def main() -> None:
    json.dump(document(), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
