"""GraphStore: the memory graph in FalkorDB, the source of truth. A FalkorGraph (the client,
app/storage/falkordb/client.py) with one method per memory operation the app needs: writes,
reads by id, recall's candidate reads, history, embedding status, counts. Its queries are the
constants of cypher.py beside it; the other modules of this package hold the Cypher of one
concern each and take a GraphStore. Values always go in as $params.

Every memory read and write takes a Scope; the scope predicate is part of the query itself, so a
memory outside the caller's scope is indistinguishable from one that does not exist. Each write
is one Cypher query, which FalkorDB runs atomically: the memory change, its revision, its
tombstone and its audit event are written together or not at all.
"""

import asyncio
from collections.abc import Sequence
from typing import Any, TypedDict

from app.models import Memory, MemoryProps
from app.scope import Scope
from app.storage.falkordb.client import FalkorGraph
from app.storage.graph.cypher import (
    AUDIT_EVENTS,
    BROWSE_BY,
    CANDIDATE_READS,
    COUNT_EMBEDDED,
    COUNT_MEMORIES,
    COUNT_SCOPE_MEMORIES,
    COUNT_USER_MEMORIES,
    CREATE_MEMORIES,
    DELETE_MEMORIES,
    EMBEDDED_TO_PENDING,
    EXISTING_IDS,
    GET_MEMORIES,
    GET_MEMORY,
    IDS_BY_TAGS,
    IMPORTANT,
    LINK_CONSECUTIVE_TURNS,
    LINK_FIRST_TURNS,
    LIST_BY_TAGS,
    MARK_EMBEDDED,
    MEMORIES_OF_USER,
    PAGE_OF_MEMORIES,
    PAGE_OF_USER_MEMORIES,
    PINNED,
    RECALL_CANDIDATES,
    RECENT,
    REVISIONS,
    SET_EMBEDDING_STATUS,
    SET_STATUS_ANY_USER,
    STALE_PENDING,
    STATES_AS_OF,
    SUPERSEDED_HEADS,
    TAGGED_EXACT,
    TOMBSTONE,
    UNEMBEDDED,
    UPDATE_MEMORY,
)
from app.storage.graph.idempotency import Claim, KeyTaken, guarded
from app.storage.graph.records import (
    BrowseFilter,
    RecallCandidates,
    graph_values,
    memories_of,
    memory_from_properties,
    memory_to_properties,
    properties_to_dict,
    scope_params,
    to_memory,
)


class MemoryHistory(TypedDict):
    """A memory's history as GET /memory/{id}/history reports it; the revisions, tombstone and
    events are the graph nodes' properties."""

    current: Memory | None
    revisions: list[MemoryProps]
    tombstone: dict[str, Any] | None
    events: list[dict[str, Any]]


class GraphStore(FalkorGraph):
    """The memory graph: memories, their history, sessions' turns, and the reads recall makes."""

    async def create_memories(
        self, memories: Sequence[Memory], actor: str, claim: Claim | None = None
    ) -> dict[str, bool]:
        """Writes memories and their audit events; returns id -> "content was deleted before".

        With a claim, its idempotency key is written in the same query; KeyTaken (and nothing
        written) if the key is live already."""
        params: dict[str, Any] = {"rows": [memory_to_properties(m) for m in memories]}
        params["actor"] = actor
        if claim is None:
            result = await self.query(CREATE_MEMORIES, params)
        else:
            result = await self.query(guarded(CREATE_MEMORIES), {**params, **claim.params()})
            if not result:
                raise KeyTaken(claim.key)
        return {row[0]: bool(row[1]) for row in result}

    async def get_memory(self, scope: Scope, memory_id: str) -> Memory | None:
        """Gets a memory by id within the scope."""
        rows = await self.ro_rows(GET_MEMORY, {"id": memory_id, **scope_params(scope)})
        return memory_from_properties(rows[0][0]) if rows else None

    async def get_memories(self, scope: Scope, memory_ids: Sequence[str]) -> dict[str, Memory]:
        """Memories by id within the scope, in one query."""
        if not memory_ids:
            return {}
        rows = await self.ro_rows(GET_MEMORIES, {"ids": list(memory_ids), **scope_params(scope)})
        return {memory.id: memory for memory in (memory_from_properties(r[0]) for r in rows)}

    async def recall_candidates(
        self, scope: Scope, memory_ids: Sequence[str], seeds: Sequence[str]
    ) -> RecallCandidates:
        """The properties of the ids in scope, whether each has a successor, and the session
        turns next to each seed (with their properties).

        Read as CANDIDATE_READS queries side by side, each over a share of the ids and seeds:
        FalkorDB runs them on its own threads, and one reply is parsed here while the next is
        still being produced.
        """
        parts = [
            (memory_ids[k::CANDIDATE_READS], seeds[k::CANDIDATE_READS])
            for k in range(CANDIDATE_READS)
        ]
        reads = [self._recall_candidates(scope, ids, part) for ids, part in parts if ids or part]
        found = RecallCandidates({}, [], set())
        for read in await asyncio.gather(*reads):
            found.properties.update(read.properties)
            found.neighbours.extend(read.neighbours)
            found.replaced |= read.replaced
        return found

    async def _recall_candidates(
        self, scope: Scope, memory_ids: Sequence[str], seeds: Sequence[str]
    ) -> RecallCandidates:
        params = {"ids": list(memory_ids), "seeds": list(seeds), **scope_params(scope)}
        found = RecallCandidates({}, [], set())
        for seed, memory_id, props, replaced in await self.ro_rows(RECALL_CANDIDATES, params):
            if props is not None:
                found.properties[memory_id] = props
            if seed is not None:
                found.neighbours.append((seed, memory_id))
            if replaced:
                found.replaced.add(memory_id)
        return found

    async def superseded_heads(self, scope: Scope, memory_ids: Sequence[str]) -> dict[str, Memory]:
        """For superseded memories among the ids: the head of their replacement chain."""
        if not memory_ids:
            return {}
        rows = await self.ro_rows(
            SUPERSEDED_HEADS, {"ids": list(memory_ids), **scope_params(scope)}
        )
        return {row[0]: memory_from_properties(row[1]) for row in rows}

    async def browse(
        self, scope: Scope, shown: BrowseFilter, limit: int, sort: str = "score"
    ) -> list[Memory]:
        """Memories without a query: those `shown` lets through, most important first (or in
        recall's time `sort`)."""
        params = {
            "tags": list(shown.tag_prefixes),
            "excluded": list(shown.excluded_prefixes),
            "start": shown.start,
            "end": shown.end,
            "types": list(shown.types),
            "layers": list(shown.layers),
            "roles": list(shown.roles),
            "now": shown.current_at,
            "decayed": shown.include_decayed,
            "archived": shown.include_archived,
            "limit": limit,
        }
        rows = await self.ro_rows(BROWSE_BY[sort], {**params, **scope_params(scope)})
        return [memory_from_properties(row[0]) for row in rows]

    async def states_as_of(
        self, scope: Scope, text: str, at: str, limit: int
    ) -> list[tuple[Memory, float]]:
        """Memory states current at `at` whose content matches the full-text query."""
        params = {"text": text, "t": at, **scope_params(scope)}
        rows = await self.ro_rows(STATES_AS_OF, params)
        states = []
        for properties, score in rows:
            props = properties_to_dict(properties)
            if "memory_id" in props:  # a revision: it speaks for its memory
                props["id"] = props.pop("memory_id")
            props = {k: v for k, v in props.items() if k not in ("replaced_at", "replaced_by")}
            states.append((memory_from_properties(props), float(score)))
        states.sort(key=lambda pair: -pair[1])
        return states[:limit]

    async def core_candidates(
        self,
        scope: Scope,
        *,
        min_importance: float,
        since: str,
        limit: int,
        include_archived: bool = False,
    ) -> tuple[list[Memory], list[Memory], list[Memory]]:
        """Pinned, most important non-pinned, and recent memories (raw layer excluded)."""
        base = {**scope_params(scope), "archived": include_archived}
        pinned, important, recent = await asyncio.gather(
            self.ro_rows(PINNED, {**base, "limit": 200}),
            self.ro_rows(IMPORTANT, {**base, "min_importance": min_importance, "limit": limit}),
            self.ro_rows(RECENT, {**base, "since": since, "limit": limit}),
        )
        return memories_of(pinned), memories_of(important), memories_of(recent)

    async def tagged(self, scope: Scope, tags: Sequence[str], limit: int) -> list[Memory]:
        """Memories with any of the exact (case-sensitive) tags, most important first."""
        rows = await self.ro_rows(
            TAGGED_EXACT, {"tags": list(tags), "limit": limit, **scope_params(scope)}
        )
        return [memory_from_properties(row[0]) for row in rows]

    async def update_memory(
        self,
        scope: Scope,
        memory_id: str,
        *,
        version: int,
        changes: dict[str, Any],
        actor: str,
        now: str,
    ) -> Memory | None:
        """Applies changes on top of `version`, keeping the previous state as a Revision.

        Returns None if the memory is gone or no longer at `version` (a concurrent update won).
        """
        params = {
            "id": memory_id,
            "version": version,
            "changes": graph_values(changes),
            "fields": sorted(changes),
            "actor": actor,
            "now": now,
            **scope_params(scope),
        }
        rows = await self.query(UPDATE_MEMORY, params)
        return to_memory(rows[0][0]) if rows else None

    async def delete_memories(
        self, scope: Scope, memory_ids: Sequence[str], *, actor: str, now: str
    ) -> list[str]:
        """Deletes memories, leaving a final Revision, a Tombstone and an audit event each."""
        params = {"ids": list(memory_ids), "actor": actor, "now": now, **scope_params(scope)}
        return [row[0] for row in await self.query(DELETE_MEMORIES, params)]

    async def list_by_tags(
        self,
        scope: Scope,
        tags: Sequence[str],
        *,
        limit: int,
        offset: int,
        include_archived: bool = False,
    ) -> list[Memory]:
        """Memories having any of the tags (case-insensitive), most important first."""
        params = {
            "tags": [t.lower() for t in tags],
            "limit": limit,
            "offset": offset,
            "archived": include_archived,
        }
        rows = await self.ro_rows(LIST_BY_TAGS, {**params, **scope_params(scope)})
        return [memory_from_properties(row[0]) for row in rows]

    async def ids_by_tags(self, scope: Scope, tags: Sequence[str], *, limit: int) -> list[str]:
        """Ids of memories having any of the tags, in a stable order."""
        params = {"tags": [t.lower() for t in tags], "limit": limit, **scope_params(scope)}
        return [row[0] for row in await self.ro_query(IDS_BY_TAGS, params)]

    async def history(self, scope: Scope, memory_id: str) -> MemoryHistory | None:
        """The current state, revisions, tombstone and audit events of a memory in scope.

        None if the scope never saw this memory (alive or deleted).
        """
        params = {"id": memory_id, **scope_params(scope)}
        current, revisions, tombstone = await asyncio.gather(
            self.ro_rows(GET_MEMORY, params),
            self.ro_query(REVISIONS, params),
            self.ro_query(TOMBSTONE, params),
        )
        if not (current or revisions or tombstone):
            return None
        events = await self.ro_query(AUDIT_EVENTS, params)
        return {
            "current": memory_from_properties(current[0][0]) if current else None,
            "revisions": [properties_to_dict(row[0].properties) for row in revisions],
            "tombstone": dict(tombstone[0][0].properties) if tombstone else None,
            "events": [dict(row[0].properties) for row in events],
        }

    async def set_embedding_status(self, scope: Scope, ids: Sequence[str], status: str) -> None:
        """Records the embedding state of memories (never faked: pending until a vector exists)."""
        await self.query(
            SET_EMBEDDING_STATUS, {"ids": list(ids), "status": status, "user_id": scope.user_id}
        )

    async def memories_of_user(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """Live memories of one user by id, whatever their agent (operator path for jobs)."""
        rows = await self.ro_query(MEMORIES_OF_USER, {"ids": list(memory_ids), "user_id": user_id})
        return [to_memory(row[0]) for row in rows]

    async def mark_embedded(self, user_id: str, hashes: dict[str, str]) -> set[str]:
        """Marks memories embedded if their content is still the embedded one; returns those ids."""
        rows = [{"id": memory_id, "hash": h} for memory_id, h in hashes.items()]
        result = await self.query(MARK_EMBEDDED, {"rows": rows, "user_id": user_id})
        return {row[0] for row in result}

    async def set_status_any_user(self, memory_ids: Sequence[str], status: str) -> None:
        """Sets embedding_status by id (operator path: re-embed, failure after retries)."""
        await self.query(SET_STATUS_ANY_USER, {"ids": list(memory_ids), "status": status})

    async def mark_all_unembedded(self) -> int:
        """Every embedded memory back to pending (their vectors are gone); returns how many."""
        rows = await self.query(EMBEDDED_TO_PENDING)
        return int(rows[0][0]) if rows else 0

    async def unembedded(self, *, after: str, limit: int) -> list[tuple[str, str]]:
        """(user_id, id) of memories without a current embedding, in id order after `after`."""
        rows = await self.ro_query(UNEMBEDDED, {"after": after, "limit": limit})
        return [(row[0], row[1]) for row in rows]

    async def stale_pending(self, *, before: str, after: str, limit: int) -> list[tuple[str, str]]:
        """(user_id, id) of memories pending since before `before`, in id order after `after`."""
        params = {"before": before, "after": after, "limit": limit}
        rows = await self.ro_query(STALE_PENDING, params)
        return [(row[0], row[1]) for row in rows]

    async def page_of_memories(
        self, *, after: str, limit: int, user_id: str | None = None
    ) -> list[Memory]:
        """Memories in id order after `after`, of one user or all (operator path)."""
        if user_id is None:
            rows = await self.ro_query(PAGE_OF_MEMORIES, {"after": after, "limit": limit})
        else:
            params = {"after": after, "limit": limit, "user_id": user_id}
            rows = await self.ro_query(PAGE_OF_USER_MEMORIES, params)
        return [to_memory(row[0]) for row in rows]

    async def existing_ids(self, memory_ids: Sequence[str]) -> set[str]:
        """Which of these ids are live memories (operator path: orphan detection)."""
        return {row[0] for row in await self.ro_query(EXISTING_IDS, {"ids": list(memory_ids)})}

    async def link_turns(
        self, user_id: str, firsts: list[dict[str, str | None]], pairs: list[dict[str, str]]
    ) -> None:
        """PRECEDED_BY links between consecutive turns of conversation sessions."""
        if firsts:
            await self.query(LINK_FIRST_TURNS, {"firsts": firsts, "user_id": user_id})
        if pairs:
            await self.query(LINK_CONSECUTIVE_TURNS, {"pairs": pairs, "user_id": user_id})

    async def count_memories(self, user_id: str | None = None) -> int:
        """Live memories, of one user or of all (operator path)."""
        if user_id is None:
            rows = await self.ro_query(COUNT_MEMORIES)
        else:
            rows = await self.ro_query(COUNT_USER_MEMORIES, {"user_id": user_id})
        return int(rows[0][0])

    async def count_visible(self, scope: Scope) -> int:
        """Live memories the scope sees (its user's, by the agent rule of app.scope)."""
        rows = await self.ro_query(COUNT_SCOPE_MEMORIES, scope_params(scope))
        return int(rows[0][0])

    async def count_embedded(self) -> int:
        """Live memories whose vector is written (embedding_status done), of all users."""
        rows = await self.ro_query(COUNT_EMBEDDED)
        return int(rows[0][0])
