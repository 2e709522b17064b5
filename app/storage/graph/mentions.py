"""Cypher for "does any memory in this scope mention it?" (app/recall/unsaid.py): one lookup in
the full-text index of the memories' content, within the caller's scope."""

from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import scope_params
from app.storage.graph.store import GraphStore

MENTIONED = f"""
CALL db.idx.fulltext.queryNodes('Memory', $text) YIELD node
WITH node AS m
WHERE {IN_SCOPE}
RETURN m.id LIMIT 1
"""


async def mentioned(graph: GraphStore, scope: Scope, text: str) -> bool:
    """True when a memory of the scope matches `text` (a full-text query: words, `pre*`,
    `%typo%`)."""
    return bool(await graph.ro_query(MENTIONED, {"text": text, **scope_params(scope)}))
