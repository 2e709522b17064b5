"""GraphStore: FalkorDB, the source of truth. Cypher lives here, values always go in as $params.

Every memory read and write takes a Scope; the scope predicate is part of the query itself, so a
memory outside the caller's scope is indistinguishable from one that does not exist. Each write
is one Cypher query, which FalkorDB runs atomically: the memory change, its revision, its
tombstone and its audit event are written together or not at all.
"""

import asyncio
import copy
import json
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from falkordb.asyncio import FalkorDB
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.errors import StoreUnavailable
from app.models import JSON_PROPERTIES, Memory
from app.scope import Scope
from app.storage import compact
from app.storage.idempotency import Claim, KeyTaken, guarded

log = logging.getLogger(__name__)


def scope_predicate(var: str) -> str:
    """The tenancy predicate on node `var`, shared by every scoped query (see app.scope.Scope)."""
    lineage = f"{var}.agent_lineage"
    return f"{var}.user_id = $user_id AND (size({lineage}) = 0 OR $agent_id IN {lineage})"


IN_SCOPE = scope_predicate("m")
# The same rule for revisions and tombstones, which keep their memory's scope fields.
HISTORY_SCOPE = scope_predicate("x")

CREATE_MEMORIES = """
UNWIND $rows AS row
CREATE (m:Memory) SET m = row
CREATE (:AuditEvent {id: row.id + ':1', memory_id: row.id, user_id: row.user_id,
        agent_id: row.agent_id, actor: $actor, action: 'create', version: 1, at: row.created_at})
WITH m
OPTIONAL MATCH (t:Tombstone {content_hash: m.content_hash, user_id: m.user_id})
RETURN m.id, count(t) > 0
"""

GET_MEMORY = f"MATCH (m:Memory {{id: $id}}) WHERE {IN_SCOPE} RETURN properties(m)"
GET_MEMORIES = f"MATCH (m:Memory) WHERE m.id IN $ids AND {IN_SCOPE} RETURN properties(m)"
# Whether a memory has a successor (INVALIDATED_BY / EVOLVED_INTO, which link memories only),
# for recall's state rule; outdegree reads the adjacency directly, cheaper than a pattern.
HAS_SUCCESSOR = "outdegree(m, ['INVALIDATED_BY', 'EVOLVED_INTO']) > 0"
# Recall's candidate read is split into this many queries run side by side (FalkorDB's thread
# pool has one thread per core; two cores here).
CANDIDATE_READS = 2
# Recall's read of (a share of) its shortlist: each candidate's properties, and the session turns
# just before and after each seed (their properties too, unless they are candidates of this
# read already).
RECALL_CANDIDATES = f"""
MATCH (m:Memory) WHERE m.id IN $ids AND {IN_SCOPE}
RETURN NULL AS seed, m.id AS id, properties(m) AS memory, {HAS_SUCCESSOR} AS replaced
UNION ALL
MATCH (s:Memory)-[r:PRECEDED_BY]-(m:Memory)
WHERE s.id IN $seeds AND {scope_predicate("s")} AND r.session = true AND {IN_SCOPE}
RETURN s.id AS seed, m.id AS id, CASE WHEN m.id IN $ids THEN NULL ELSE properties(m) END AS memory,
       {HAS_SUCCESSOR} AS replaced
"""
# The newest memory at the end of an INVALIDATED_BY / EVOLVED_INTO chain (≤ 5 hops), per id.
# From the given ids, behind WITH: as one pattern it was planned from every memory of the user.
SUPERSEDED_HEADS = f"""
MATCH (s:Memory) WHERE s.id IN $ids AND s.user_id = $user_id
WITH s
MATCH (s)-[:INVALIDATED_BY|EVOLVED_INTO*1..5]->(m:Memory)
WHERE {IN_SCOPE} AND NOT (m)-[:INVALIDATED_BY|EVOLVED_INTO]->(:Memory)
RETURN s.id, properties(m)
"""
# States of memories at time $t: a live memory whose current state began by then, or a revision
# (a replaced or deleted state) that was current then: [updated_at, replaced_at).
STATES_AS_OF = f"""
CALL db.idx.fulltext.queryNodes('Memory', $text) YIELD node, score
WITH node AS x, score WHERE {HISTORY_SCOPE} AND x.created_at <= $t AND x.updated_at <= $t
RETURN properties(x), score
UNION
CALL db.idx.fulltext.queryNodes('Revision', $text) YIELD node, score
WITH node AS x, score WHERE {HISTORY_SCOPE} AND x.updated_at <= $t AND x.replaced_at > $t
  AND x.created_at <= $t
RETURN properties(x), score
"""
# The listing queries order and cut before they project: `RETURN properties(m) ORDER BY … LIMIT`
# builds the map of every match before sorting (FalkorDB's plan: Project, then Sort); `WITH m
# ORDER BY … LIMIT … RETURN properties(m)` builds only those returned. Same rows, and far less
# work on a large store (tests/storage/test_query_plans.py checks the plans' shape).
PINNED = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND m.pinned = true AND m.layer <> 'raw'
  AND ($archived OR NOT coalesce(m.archived, false))
WITH m ORDER BY m.importance DESC, m.updated_at DESC LIMIT $limit
RETURN properties(m)
"""
IMPORTANT = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND NOT m.pinned AND m.layer <> 'raw'
  AND m.importance >= $min_importance AND ($archived OR NOT m.archived)
WITH m ORDER BY m.importance DESC, m.updated_at DESC LIMIT $limit
RETURN properties(m)
"""
RECENT = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND m.layer <> 'raw' AND m.timestamp >= $since
  AND ($archived OR NOT m.archived)
WITH m ORDER BY m.timestamp DESC LIMIT $limit
RETURN properties(m)
"""
TAGGED_EXACT = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND any(t IN m.tags WHERE t IN $tags) AND NOT m.archived
WITH m ORDER BY m.importance DESC, m.timestamp DESC LIMIT $limit
RETURN properties(m)
"""
# Without $now (history) every state shows; with it, recall's current-state rule (state.py).
BROWSE = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND ($start IS NULL OR m.timestamp >= $start)
  AND ($end IS NULL OR m.timestamp <= $end)
  AND (size($tags) = 0 OR any(t IN m.tag_prefixes WHERE t IN $tags))
  AND NOT any(t IN m.tag_prefixes WHERE t IN $excluded)
  AND (size($types) = 0 OR m.type IN $types)
  AND (size($layers) = 0 OR m.layer IN $layers)
  AND (size($roles) = 0 OR m.role IN $roles)
  AND ($now IS NULL OR (($archived OR NOT coalesce(m.archived, false))
       AND (m.t_valid IS NULL OR m.t_valid <= $now) AND (m.t_invalid IS NULL OR m.t_invalid > $now)
       AND ($decayed OR m.expires_at IS NULL OR m.expires_at > $now)))
WITH m ORDER BY m.importance DESC, m.timestamp DESC LIMIT $limit
RETURN properties(m)
"""

UPDATE_MEMORY = f"""
MATCH (m:Memory {{id: $id}}) WHERE {IN_SCOPE} AND m.version = $version
CREATE (r:Revision) SET r = properties(m), r.id = m.id + ':' + toString(m.version),
       r.memory_id = m.id, r.replaced_at = $now, r.replaced_by = $actor
SET m += $changes, m.version = m.version + 1, m.updated_at = $now
CREATE (:AuditEvent {{id: m.id + ':' + toString(m.version), memory_id: m.id, user_id: m.user_id,
        agent_id: m.agent_id, actor: $actor, action: 'update', version: m.version, at: $now,
        fields: $fields}})
RETURN m
"""

DELETE_MEMORIES = f"""
MATCH (m:Memory) WHERE m.id IN $ids AND {IN_SCOPE}
CREATE (r:Revision) SET r = properties(m), r.id = m.id + ':' + toString(m.version),
       r.memory_id = m.id, r.replaced_at = $now, r.replaced_by = $actor
CREATE (:Tombstone {{memory_id: m.id, user_id: m.user_id, agent_id: m.agent_id,
        agent_lineage: m.agent_lineage, content_hash: m.content_hash, deleted_at: $now,
        actor: $actor, version: m.version}})
CREATE (:AuditEvent {{id: m.id + ':delete', memory_id: m.id, user_id: m.user_id,
        agent_id: m.agent_id, actor: $actor, action: 'delete', version: m.version, at: $now}})
WITH m, m.id AS id
DETACH DELETE m
RETURN id
"""

# Tags match exactly, case-insensitively, any of the given ones (AutoMem's rule).
BY_TAGS_WHERE = f"{IN_SCOPE} AND any(t IN m.tags WHERE toLower(t) IN $tags)"
LIST_BY_TAGS = f"""
MATCH (m:Memory) WHERE m.user_id = $user_id AND {BY_TAGS_WHERE}
  AND ($archived OR NOT coalesce(m.archived, false))
WITH m ORDER BY m.importance DESC, m.timestamp DESC, m.id ASC SKIP $offset LIMIT $limit
RETURN properties(m)
"""
IDS_BY_TAGS = f"""
MATCH (m:Memory) WHERE m.user_id = $user_id AND {BY_TAGS_WHERE}
RETURN m.id ORDER BY m.id LIMIT $limit
"""

REVISIONS = f"""
MATCH (x:Revision {{memory_id: $id}}) WHERE {HISTORY_SCOPE} RETURN x ORDER BY x.version
"""
TOMBSTONE = f"MATCH (x:Tombstone {{memory_id: $id}}) WHERE {HISTORY_SCOPE} RETURN x"
AUDIT_EVENTS = """
MATCH (e:AuditEvent {memory_id: $id}) WHERE e.user_id = $user_id
RETURN e ORDER BY e.at, e.version
"""

SET_EMBEDDING_STATUS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id SET m.embedding_status = $status
"""

# Operator paths for jobs: a job carries the user id and re-reads state by id, without an agent.
MEMORIES_OF_USER = "MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id RETURN m"
MARK_EMBEDDED = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = $user_id AND m.content_hash = row.hash
SET m.embedding_status = 'done'
RETURN m.id
"""
UNEMBEDDED = """
MATCH (m:Memory) WHERE m.embedding_status <> 'done' AND m.id > $after
RETURN m.user_id, m.id ORDER BY m.id LIMIT $limit
"""
PAGE_OF_MEMORIES = "MATCH (m:Memory) WHERE m.id > $after RETURN m ORDER BY m.id LIMIT $limit"
PAGE_OF_USER_MEMORIES = """
MATCH (m:Memory) WHERE m.user_id = $user_id AND m.id > $after RETURN m ORDER BY m.id LIMIT $limit
"""
SET_STATUS_ANY_USER = "MATCH (m:Memory) WHERE m.id IN $ids SET m.embedding_status = $status"
EMBEDDED_TO_PENDING = """
MATCH (m:Memory) WHERE m.embedding_status = 'done' SET m.embedding_status = 'pending'
RETURN count(m)
"""
EXISTING_IDS = "MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id"

# Conversation order: a new session's first turn follows the session's latest earlier turn.
LINK_FIRST_TURNS = """
UNWIND $firsts AS row
MATCH (m:Memory {id: row.id})
MATCH (p:Memory {session_id: row.session_id}) WHERE p.user_id = $user_id AND NOT p.id IN $new
WITH m, row, max(p.created_at) AS latest
MATCH (previous:Memory {session_id: row.session_id})
WHERE previous.user_id = $user_id AND previous.created_at = latest
MERGE (m)-[r:PRECEDED_BY]->(previous) SET r.session = true
"""
LINK_CONSECUTIVE_TURNS = """
UNWIND $pairs AS pair
MATCH (a:Memory {id: pair.later}), (b:Memory {id: pair.earlier})
WHERE a.user_id = $user_id AND b.user_id = $user_id
MERGE (a)-[r:PRECEDED_BY]->(b) SET r.session = true
"""

COUNT_MEMORIES = "MATCH (m:Memory) RETURN count(m)"
COUNT_USER_MEMORIES = "MATCH (m:Memory {user_id: $user_id}) RETURN count(m)"
INDEXES = "CALL db.indexes() YIELD label, properties, types, status"


def scope_params(scope: Scope) -> dict[str, Any]:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id}


def memory_to_properties(memory: Memory) -> dict[str, Any]:
    """A Memory as graph properties: maps become JSON strings, None values are left out."""
    props = memory.model_dump(mode="json", exclude_none=True)
    for key in JSON_PROPERTIES:
        props[key] = json.dumps(props.get(key) or {}, separators=(",", ":"))
    return props


def properties_to_dict(props: dict[str, Any]) -> dict[str, Any]:
    """Graph properties back to plain values (JSON strings parsed)."""
    data = dict(props)
    for key in JSON_PROPERTIES:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return data


def to_memory(node: Any) -> Memory:
    """A graph node (as the client library parses it) as a Memory."""
    return memory_from_properties(node.properties)


def memory_from_properties(props: dict[str, Any]) -> Memory:
    """The one place a memory's graph properties become a Memory."""
    return Memory.model_validate(properties_to_dict(props))


def _memories(rows: list[list[Any]]) -> list[Memory]:
    """The memories of rows whose first column is `properties(m)`."""
    return [memory_from_properties(row[0]) for row in rows]


@dataclass(frozen=True)
class BrowseFilter:
    """What recall without a query shows (GraphStore.browse)."""

    tag_prefixes: Sequence[str] = ()
    excluded_prefixes: Sequence[str] = ()
    start: str | None = None
    end: str | None = None
    types: Sequence[str] = ()
    layers: Sequence[str] = ()
    roles: Sequence[str] = ()
    current_at: str | None = None  # only what is current at this time; None: every state
    include_decayed: bool = False
    include_archived: bool = False


@dataclass
class RecallCandidates:
    """What recall reads of its shortlist in one query (see GraphStore.recall_candidates)."""

    properties: dict[str, dict[str, Any]]  # id -> graph properties (JSON fields still strings)
    neighbours: list[tuple[str, str]]  # (seed id, id of the turn just before or after it)
    replaced: set[str]  # ids with a successor (INVALIDATED_BY / EVOLVED_INTO)


class GraphStore:
    """FalkorDB access for one graph, over a bounded connection pool."""

    def __init__(
        self, url: str, graph_name: str, pool_size: int = 16, timeout_s: float = 30.0
    ) -> None:
        self._pool = BlockingConnectionPool.from_url(
            url, max_connections=pool_size, timeout=10, socket_timeout=timeout_s,
            socket_connect_timeout=5, decode_responses=True,
        )  # fmt: skip
        self._db = FalkorDB(connection_pool=self._pool)
        self.graph_name = graph_name
        self._graph = self._db.select_graph(graph_name)

    async def close(self) -> None:
        await self._pool.aclose()

    async def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Runs a write query; store outages become StoreUnavailable."""
        return await self._run(self._graph.query, cypher, params)

    async def ro_query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Runs a read-only query."""
        return await self._run(self._graph.ro_query, cypher, params)

    async def _run(self, method: Any, cypher: str, params: dict[str, Any] | None) -> list[list]:
        try:
            result = await method(cypher, params or {})
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc
        return result.result_set

    async def ro_rows(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        """A read-only query whose columns are scalars, lists or maps (`properties(m)`, never a
        node), read by the fast compact reader; for the hot read paths."""
        args = (
            "GRAPH.RO_QUERY",
            self.graph_name,
            compact.params_header(params) + cypher,
            "--compact",
        )
        try:
            reply = await self._graph.execute_command(*args)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc
        for part in reply:
            if isinstance(part, Exception):
                raise part
        return compact.rows(reply)

    def on_graph(self, graph_name: str) -> "GraphStore":
        """Another graph of the same server over this store's connections (operator paths:
        backup copies, restore). Close only the original store, never this view."""
        view = copy.copy(self)
        view.graph_name = graph_name
        view._graph = self._db.select_graph(graph_name)
        return view

    async def copy_to(self, graph_name: str) -> None:
        """GRAPH.COPY: a point-in-time copy of this graph (writes go on while it is made)."""
        await self._run_command(self._graph.copy, graph_name)

    async def delete_graph(self) -> None:
        """GRAPH.DELETE: this graph, its indexes included."""
        await self._run_command(self._graph.delete)

    async def rewrite_log(self) -> bool:
        """BGREWRITEAOF: the append-only file is rewritten from the data as it is now, so what
        was deleted leaves the disk too. False if the server refused (e.g. one already runs)."""
        try:
            await self._db.connection.bgrewriteaof()
        except (RedisError, OSError):
            return False
        return True

    async def _run_command(self, method: Any, *args: Any) -> Any:
        try:
            return await method(*args)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc

    async def ping(self) -> bool:
        """True if the server answers; never raises."""
        try:
            return bool(await self._db.connection.ping())
        except (RedisError, OSError):
            return False

    async def indexes(self) -> list[dict[str, Any]]:
        """Every index with its status (OPERATIONAL or UNDER CONSTRUCTION)."""
        rows = await self.ro_query(INDEXES)
        return [
            dict(zip(("label", "properties", "types", "status"), row, strict=True)) for row in rows
        ]

    async def wait_for_indexes(self, timeout_s: float) -> None:
        """Blocks until FalkorDB reports every index OPERATIONAL (they rebuild after a restart)."""
        deadline = time.monotonic() + timeout_s
        while True:
            pending = [i for i in await self.indexes() if i["status"] != "OPERATIONAL"]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise StoreUnavailable(f"FalkorDB indexes not operational after {timeout_s}s")
            log.info("waiting for %d FalkorDB index(es) to be built", len(pending))
            await asyncio.sleep(0.1)

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

    async def browse(self, scope: Scope, shown: BrowseFilter, limit: int) -> list[Memory]:
        """Memories without a query: those `shown` lets through, most important first."""
        params = {
            "tags": list(shown.tag_prefixes), "excluded": list(shown.excluded_prefixes),
            "start": shown.start, "end": shown.end,
            "types": list(shown.types), "layers": list(shown.layers), "roles": list(shown.roles),
            "now": shown.current_at, "decayed": shown.include_decayed,
            "archived": shown.include_archived, "limit": limit,
        }  # fmt: skip
        rows = await self.ro_rows(BROWSE, {**params, **scope_params(scope)})
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
            states.append((Memory.model_validate(props), float(score)))
        states.sort(key=lambda pair: -pair[1])
        return states[:limit]

    async def core_candidates(
        self, scope: Scope, *, min_importance: float, since: str, limit: int,
        include_archived: bool = False,
    ) -> tuple[list[Memory], list[Memory], list[Memory]]:  # fmt: skip
        """Pinned, most important non-pinned, and recent memories (raw layer excluded)."""
        base = {**scope_params(scope), "archived": include_archived}
        pinned, important, recent = await asyncio.gather(
            self.ro_rows(PINNED, {**base, "limit": 200}),
            self.ro_rows(IMPORTANT, {**base, "min_importance": min_importance, "limit": limit}),
            self.ro_rows(RECENT, {**base, "since": since, "limit": limit}),
        )
        return _memories(pinned), _memories(important), _memories(recent)

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
            "id": memory_id, "version": version, "changes": _graph_values(changes),
            "fields": sorted(changes), "actor": actor, "now": now, **scope_params(scope),
        }  # fmt: skip
        rows = await self.query(UPDATE_MEMORY, params)
        return to_memory(rows[0][0]) if rows else None

    async def delete_memories(
        self, scope: Scope, memory_ids: Sequence[str], *, actor: str, now: str
    ) -> list[str]:
        """Deletes memories, leaving a final Revision, a Tombstone and an audit event each."""
        params = {"ids": list(memory_ids), "actor": actor, "now": now, **scope_params(scope)}
        return [row[0] for row in await self.query(DELETE_MEMORIES, params)]

    async def list_by_tags(
        self, scope: Scope, tags: Sequence[str], *, limit: int, offset: int,
        include_archived: bool = False,
    ) -> list[Memory]:  # fmt: skip
        """Memories having any of the tags (case-insensitive), most important first."""
        params = {"tags": [t.lower() for t in tags], "limit": limit, "offset": offset,
                  "archived": include_archived}  # fmt: skip
        rows = await self.ro_rows(LIST_BY_TAGS, {**params, **scope_params(scope)})
        return [memory_from_properties(row[0]) for row in rows]

    async def ids_by_tags(self, scope: Scope, tags: Sequence[str], *, limit: int) -> list[str]:
        """Ids of memories having any of the tags, in a stable order."""
        params = {"tags": [t.lower() for t in tags], "limit": limit, **scope_params(scope)}
        return [row[0] for row in await self.ro_query(IDS_BY_TAGS, params)]

    async def history(self, scope: Scope, memory_id: str) -> dict[str, Any] | None:
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
        self, user_id: str, firsts: list[dict], pairs: list[dict], new_ids: list[str]
    ) -> None:
        """PRECEDED_BY links between consecutive turns of conversation sessions."""
        if firsts:
            params = {"firsts": firsts, "new": new_ids, "user_id": user_id}
            await self.query(LINK_FIRST_TURNS, params)
        if pairs:
            await self.query(LINK_CONSECUTIVE_TURNS, {"pairs": pairs, "user_id": user_id})

    async def count_memories(self, user_id: str | None = None) -> int:
        """Live memories, of one user or of all (operator path)."""
        if user_id is None:
            rows = await self.ro_query(COUNT_MEMORIES)
        else:
            rows = await self.ro_query(COUNT_USER_MEMORIES, {"user_id": user_id})
        return int(rows[0][0])


def _graph_values(changes: dict[str, Any]) -> dict[str, Any]:
    """Maps become JSON strings; None stays None, which removes the property."""
    return {
        key: json.dumps(value, separators=(",", ":")) if key in JSON_PROPERTIES else value
        for key, value in changes.items()
    }


def new_id() -> str:
    return str(uuid.uuid4())
