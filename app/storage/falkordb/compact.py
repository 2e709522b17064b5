"""A synchronous reader of FalkorDB's compact result format, for the read paths that must be fast.

The client library parses every value of a result with a coroutine of its own; for recall's
reads (a few thousand values per call) that costs milliseconds of event-loop time. The queries
read through here return scalars, lists and maps only — a node as `properties(m)` — which parse
without the graph's schema, in one plain loop.
"""

from typing import Any

from falkordb.helpers import stringify_param_value

NULL, STRING, INTEGER, BOOLEAN, DOUBLE, ARRAY, MAP = 1, 2, 3, 4, 5, 6, 10
AS_IS = frozenset((STRING, INTEGER))  # kinds whose raw value is the Python value


def params_header(params: dict[str, Any]) -> str:
    """The `CYPHER name=value …` prefix that carries query parameters (values quoted by the
    client library's own rules, so they never become query text)."""
    if not params:
        return ""
    return "CYPHER " + "".join(f"`{k}`={stringify_param_value(v)} " for k, v in params.items())


def rows(reply: list[Any]) -> list[list[Any]]:
    """The records of a compact GRAPH.QUERY reply ([header, records, stats], or [stats])."""
    if len(reply) < 3:
        return []
    return [[value(cell) for cell in record] for record in reply[1]]


def value(cell: list[Any]) -> Any:
    """One compact value, `[type, raw]`, as a Python value."""
    kind, raw = cell
    if kind in AS_IS:
        return raw
    if kind == NULL:
        return None
    if kind == DOUBLE:
        return float(raw)
    if kind == BOOLEAN:
        return raw == "true"
    # Most items of a node's lists and maps are strings or integers, taken as they are here:
    # a call per item would be most of the parsing time.
    if kind == ARRAY:
        return [item[1] if item[0] in AS_IS else value(item) for item in raw]
    if kind == MAP:
        return {
            key: item[1] if item[0] in AS_IS else value(item)
            for key, item in zip(raw[::2], raw[1::2], strict=True)
        }
    raise TypeError(
        f"compact value of type {kind} is not read here: return properties(n) instead of nodes"
    )
