"""The order of a conversation's turns: PRECEDED_BY links written as turns arrive."""

from app.memories import sequence
from app.models import Memory, to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.graph.sequences import link_sequences


async def link_session_turns(stores: Stores, scope: Scope, memories: list[Memory]) -> None:
    """Links each turn of a conversation session to the one before it (PRECEDED_BY).

    Within a batch, items of one session are consecutive turns in the order sent; the first of
    them follows the session's latest stored turn. Memories without a session are linked where
    sequence.py infers one. Recall uses these links to bring in the neighbouring turns of a good
    match.
    """
    inferred = sequence.infer(memories)
    since = to_iso(utc_now() - sequence.CLOSE)
    await link_sequences(
        stores.graph, scope.user_id, inferred.keys, inferred.firsts, inferred.pairs, since
    )
    in_session = [m for m in memories if m.session_id]
    if not in_session:
        return
    pairs, firsts = [], []
    last_seen: dict[str | None, str] = {}
    for memory in in_session:
        previous = last_seen.get(memory.session_id)
        if previous is None:
            firsts.append({"id": memory.id, "session_id": memory.session_id})
        else:
            pairs.append({"later": memory.id, "earlier": previous})
        last_seen[memory.session_id] = memory.id
    await stores.graph.link_turns(scope.user_id, firsts, pairs)
