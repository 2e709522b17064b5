"""Rules every client string and free-form value obeys before it can reach a store.

A leaf module (stdlib only), shared by the request models (app/memories/fields.py and the other
domains' schemas) and by the HTTP guard that checks every path, query, header and JSON body
(app/http_guard.py).

Text is rejected, never cleaned: a NUL character (FalkorDB refuses it as a query parameter) or a
lone UTF-16 surrogate (not encodable as UTF-8; JSON lets a client send one as `"\\ud800"`) makes
the request a 400 naming the field, so what is stored is always exactly what was sent.
"""

import json
import math
import re
from typing import Any

# NUL, and any surrogate code point: a str decoded from JSON holds a valid pair as one code point,
# so a surrogate left in it is always a lone one.
_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")
# A JSON text can only carry either as a \u escape (a raw NUL or an encoded surrogate is invalid
# JSON or invalid UTF-8 and fails the parse): a cheap test of the raw body before any walk.
# Python's JSON parser also takes NaN and Infinity, which no JSON reply can carry back.
_BAD_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|NaN|Infinity")

# A user id, as every route that names one takes it: 1-200 characters, no control characters.
USER_ID_PATTERN = r"^[^\x00-\x1f]+$"
MAX_USER_ID_CHARS = 200
MAX_JSON_DEPTH = 20  # nesting of a free-form object (metadata), counted from the value itself
MAX_METADATA_BYTES = 32_768  # `metadata` as compact JSON (UTF-8)


def text_problem(value: str) -> str | None:
    """What is wrong with a client string, or None."""
    found = _BAD_CHAR.search(value)
    if found is None:
        return None
    if found.group() == "\x00":
        return "must not contain the NUL character (U+0000)"
    return "must not contain a lone surrogate (U+D800–U+DFFF); send valid Unicode text"


def check_text(value: str) -> str:
    """The string itself, or ValueError saying what is wrong (for pydantic validators)."""
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def may_hold_bad_text(body: bytes) -> bool:
    """Whether a JSON body can hold a NUL, a lone surrogate or a non-finite number (False: it
    certainly does not)."""
    return _BAD_ESCAPE.search(body) is not None


def find_bad_text(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first (field path, problem) among the strings and keys of a JSON value, or None.

    Paths read like `memories[2].tags[0]` or `metadata.note`.
    """
    if isinstance(value, str):
        problem = text_problem(value)
        return (where or "body", problem) if problem else None
    if isinstance(value, float) and not math.isfinite(value):
        return (where or "body", "must be a finite number (not NaN or Infinity)")
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and (problem := text_problem(key)):
                return (f"{where or 'body'} key {key!r}", f"has a key that {problem}")
            if found := find_bad_text(item, path):
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if found := find_bad_text(item, f"{where}[{index}]"):
                return found
    return None


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a JSON value (a scalar is 0), counting no further than `limit` + 1."""
    if limit < 0 or not isinstance(value, dict | list):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((json_depth(item, limit - 1) for item in items), default=0)


def check_free_json(value: dict[str, Any], max_bytes: int = MAX_METADATA_BYTES) -> dict[str, Any]:
    """A free-form object (metadata) within the size, depth and text rules, or ValueError."""
    if json_depth(value) > MAX_JSON_DEPTH:
        raise ValueError(f"must be nested at most {MAX_JSON_DEPTH} levels deep")
    found = find_bad_text(value)
    if found:
        path, problem = found
        raise ValueError(f"{path} {problem}")
    try:
        size = len(
            json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
        )
    except (TypeError, ValueError):
        raise ValueError("must hold JSON values only (finite numbers)") from None
    if size > max_bytes:
        raise ValueError(f"must be at most {max_bytes} bytes as JSON ({size} provided)")
    return value


# A media type: `type/subtype` (RFC 6838 section 4.2 restricted names), then any number of
# `; name=value` parameters (RFC 9110 section 5.6.6: a token, or a quoted string of printable
# ASCII). Spaces may surround the `;`; no control character anywhere (not even a tab), since the
# type goes back out in a Content-Type header.
_RESTRICTED_NAME = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
MEDIA_ESSENCE = re.compile(rf"({_RESTRICTED_NAME})/({_RESTRICTED_NAME})")
MEDIA_TYPE = re.compile(
    rf" *{MEDIA_ESSENCE.pattern}((?: *; *{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))*) *;? *"
)
MAX_MEDIA_TYPE_CHARS = 255


def media_type_essence(value: str) -> str | None:
    """`type/subtype` of a media type, lower-cased (its parameters dropped); None if the value is
    not a media type."""
    if len(value) > MAX_MEDIA_TYPE_CHARS:
        return None
    found = MEDIA_TYPE.fullmatch(value)
    return f"{found.group(1)}/{found.group(2)}".lower() if found else None


# A boolean in a query string: these four spellings, any case; anything else ("yes", "on") is a
# 400 rather than a guess.
QUERY_TRUE, QUERY_FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def strict_bool(value: Any) -> bool:
    """A query string's boolean, or ValueError (for pydantic validators)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in QUERY_TRUE or text in QUERY_FALSE:
        return text in QUERY_TRUE
    raise ValueError(f"must be true or false (or 1 or 0), not {str(value)[:40]!r}")
