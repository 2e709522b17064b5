"""`include_source_turns`: each /remember fact among recall's results with the transcript turns
it came from (its `source.turn_ids`), read in one scoped graph query, so a client can show the
words behind a fact or quote them."""

from typing import cast

from app.recall.response import Item, SourceTurn
from app.scope import Scope
from app.storage.graph.store import GraphStore

TURN_FIELDS = ("id", "content", "speaker", "role", "timestamp", "session_id")


async def attach(graph: GraphStore, scope: Scope, results: list[Item]) -> None:
    """Adds `source_turns` to every result whose memory names transcript turns (in place)."""
    wanted = {r["id"]: _turn_ids(r) for r in results}
    ids = sorted({turn for turns in wanted.values() for turn in turns})
    if not ids:
        return
    found = await graph.get_memories(scope, ids)
    for result in results:
        turns = [found[t] for t in wanted[result["id"]] if t in found]
        if wanted[result["id"]]:
            result["source_turns"] = [
                cast(SourceTurn, t.model_dump(include=set(TURN_FIELDS))) for t in turns
            ]


def _turn_ids(result: Item) -> list[str]:
    source = (result.get("memory") or {}).get("source") or {}
    return [t for t in source.get("turn_ids") or [] if isinstance(t, str)]
