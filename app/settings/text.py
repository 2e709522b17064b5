"""Settings given as text that pydantic-settings would not parse (their fields are `NoDecode`)."""

import json
from typing import Any


def listed(value: Any) -> Any:
    """A comma-separated or JSON list as a list of its items; any other value as it is."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [item.strip() for item in text.split(",") if item.strip()]
