"""The Cypher of GraphStore's own methods (store.py): memories written, read, updated and deleted,
recall's candidate reads, history, embedding status and counts, each a constant; values always go
in as $params. Also the scope predicate (`scope_predicate`, IN_SCOPE) that every scoped query of
this package builds on. The Cypher of each other concern is in a module of its own beside this one.

Every memory read takes the scope predicate (IN_SCOPE) as part of the query itself, so a memory
outside the caller's scope is indistinguishable from one that does not exist.
"""


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
BROWSE_FILTER = f"""
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
"""
# recall's `sort` without a query; equal times keep the order they were stored in (created_at:
# the turns of one /remember call share their messages' time).
BROWSE_ORDERS = {
    "score": "m.importance DESC, m.timestamp DESC, m.created_at DESC, m.id",
    "time_desc": "m.timestamp DESC, m.created_at DESC, m.id DESC",
    "time_asc": "m.timestamp ASC, m.created_at ASC, m.id ASC",
    "updated_desc": "m.updated_at DESC, m.id DESC",
    "updated_asc": "m.updated_at ASC, m.id ASC",
}
BROWSE_BY = {
    sort: BROWSE_FILTER + f"WITH m ORDER BY {order} LIMIT $limit\nRETURN properties(m)\n"
    for sort, order in BROWSE_ORDERS.items()
}
BROWSE = BROWSE_BY["score"]

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
# Pending since before $before: their embed job was never queued, or was lost.
STALE_PENDING = """
MATCH (m:Memory) WHERE m.embedding_status = 'pending' AND m.updated_at < $before AND m.id > $after
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

# Conversation order: a new session's first turn follows the session's latest earlier turn (a
# transcript turn the latest transcript turn: the facts /remember extracts are in no order).
# "Earlier" is by created_at, which is unique and in order within a write, so the write's own
# turns (all later than its first) drop out without a list to search for every turn.
LINK_FIRST_TURNS = """
UNWIND $firsts AS row
MATCH (m:Memory {id: row.id})
MATCH (p:Memory {session_id: row.session_id})
WHERE p.user_id = $user_id AND p.created_at < m.created_at
  AND (p.layer = 'transcript') = (m.layer = 'transcript')
WITH m, p ORDER BY p.created_at DESC
WITH m, collect(p.id)[0] AS previous_id
MATCH (previous:Memory {id: previous_id})
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
COUNT_SCOPE_MEMORIES = f"MATCH (m:Memory) WHERE {IN_SCOPE} RETURN count(m)"
COUNT_EMBEDDED = "MATCH (m:Memory) WHERE m.embedding_status = 'done' RETURN count(m)"
