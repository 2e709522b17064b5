"""Cypher for window vectors (app/memories/windows.py): the turns a window is made of, and the
record on each memory of the turns its window embeds (`window_members`), which is what lets
recall check a window against the graph and erasure find every window an erased text is in.

A window follows only session links (`PRECEDED_BY` with `session = true`, from a source session
or an inferred sequence), never the entity links enrichment adds.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from app.scope import Scope
from app.storage.graph.cypher import scope_predicate
from app.storage.graph.records import scope_params
from app.storage.graph.store import GraphStore

TURNS_BEFORE = 2  # a window is the turn and the two before it in its conversation


def spoken(node: str) -> str:
    """A turn's text as searched: "Speaker: text" for a transcript turn (models.spoken_text)."""
    role = f"CASE {node}.role WHEN 'assistant' THEN 'Assistant' ELSE 'User' END"
    label = f"coalesce({node}.speaker, {role})"
    return f"CASE WHEN {node}.layer = 'transcript' THEN {label} + ': ' ELSE '' END + {node}.content"


# Each memory of $ids, and the turns just before it (nearest first), of the same user.
WINDOW_TURNS = f"""
UNWIND $ids AS id
MATCH (c:Memory {{id: id}}) WHERE c.user_id = $user_id
OPTIONAL MATCH (c)-[r1:PRECEDED_BY]->(p1:Memory)
WHERE r1.session = true AND p1.user_id = $user_id
OPTIONAL MATCH (p1)-[r2:PRECEDED_BY]->(p2:Memory)
WHERE r2.session = true AND p2.user_id = $user_id
RETURN c.id, {spoken("c")}, c.timestamp, p1.id, {spoken("p1")}, p1.timestamp, p2.id,
       {spoken("p2")}, p2.timestamp, size(coalesce(c.window_members, [])) > 0
"""
# The turns whose window holds one of $ids: the one or two after each in its sequence that have a
# window (those without one, such as the facts /remember stores, are left so).
LATER_TURNS = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})<-[r1:PRECEDED_BY]-(n1:Memory)
WHERE r1.session = true AND n1.user_id = $user_id
OPTIONAL MATCH (n1)<-[r2:PRECEDED_BY]-(n2:Memory)
WHERE r2.session = true AND n2.user_id = $user_id
RETURN m.id, n1.id, n1.window_members IS NOT NULL, n2.id, n2.window_members IS NOT NULL
"""
SET_MEMBERS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = $user_id
SET m.window_members = row.members
"""
# The memories of the user whose window embeds the text of one of $ids.
HOLDING = """
MATCH (m:Memory) WHERE m.user_id = $user_id AND size(coalesce(m.window_members, [])) > 0
  AND any(x IN m.window_members WHERE x IN $ids)
RETURN m.id
"""
FORGET_MEMBERS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id
REMOVE m.window_members
"""
# For recall: the members of the windows of $ids the scope can see, and which members still exist
# (each looked up by id: `p.id IN c.window_members` would scan every memory for each window).
MEMBERS = f"""
UNWIND $ids AS id
MATCH (c:Memory {{id: id}}) WHERE {scope_predicate("c")}
  AND size(coalesce(c.window_members, [])) > 0
UNWIND c.window_members AS member
OPTIONAL MATCH (p:Memory {{id: member}}) WHERE {scope_predicate("p")}
RETURN c.id, c.window_members, collect(p.id)
"""


@dataclass(frozen=True)
class Turn:
    id: str
    content: str
    timestamp: str | None


@dataclass(frozen=True)
class WindowTurns:
    """A memory and the turns before it (earliest first), as the graph holds them now."""

    centre: Turn
    before: tuple[Turn, ...]
    recorded: bool  # the memory has a window recorded (window_members)


async def window_turns(graph: GraphStore, user_id: str, ids: Sequence[str]) -> list[WindowTurns]:
    """Each of `ids` the user has, with the (up to TURNS_BEFORE) turns before it."""
    rows = await graph.ro_rows(WINDOW_TURNS, {"ids": list(ids), "user_id": user_id})
    found: dict[str, WindowTurns] = {}
    for row in rows:
        centre = Turn(row[0], row[1], row[2])
        before: list[Turn] = []
        if row[3] is not None:
            before.insert(0, Turn(row[3], row[4], row[5]))
            if row[6] is not None:
                before.insert(0, Turn(row[6], row[7], row[8]))
        found.setdefault(centre.id, WindowTurns(centre, tuple(before), bool(row[9])))
    return list(found.values())


@dataclass(frozen=True)
class Later:
    windowed: set[str]  # the turns with a window one or two after one of the ids
    followed: set[str]  # the ids that have a turn after them


async def later_turns(graph: GraphStore, user_id: str, ids: Sequence[str]) -> Later:
    """The turns with a window (one or two after one of `ids`), which holds one of them, and
    which of `ids` a turn follows."""
    rows = await graph.ro_rows(LATER_TURNS, {"ids": list(ids), "user_id": user_id})
    later = Later(set(), set())
    for memory_id, first, first_has, second, second_has in rows:
        later.followed.add(memory_id)
        pairs = ((first, first_has), (second, second_has))
        later.windowed.update(i for i, has in pairs if has and i not in ids)
    return later


async def set_members(graph: GraphStore, user_id: str, members: dict[str, list[str]]) -> None:
    """Records the turns each memory's window embeds, earliest first, its own last."""
    if members:
        rows = [{"id": i, "members": m} for i, m in members.items()]
        await graph.query(SET_MEMBERS, {"rows": rows, "user_id": user_id})


async def holding(graph: GraphStore, user_id: str, ids: Sequence[str]) -> list[str]:
    """The user's memories whose window embeds the text of one of `ids`."""
    rows = await graph.ro_rows(HOLDING, {"ids": list(ids), "user_id": user_id})
    return [row[0] for row in rows]


async def forget_members(graph: GraphStore, user_id: str, ids: Sequence[str]) -> None:
    """Removes the record of the windows of `ids` (their vectors are cleared)."""
    if ids:
        await graph.query(FORGET_MEMBERS, {"ids": list(ids), "user_id": user_id})


async def current_members(
    graph: GraphStore, scope: Scope, ids: Sequence[str]
) -> dict[str, list[str]]:
    """For the memories of `ids` the scope can see that have a window: the other turns it
    embeds, earliest first, if every one of them still exists (else the window is stale and
    left out)."""
    rows = await graph.ro_rows(MEMBERS, {"ids": list(ids), **scope_params(scope)})
    return {
        row[0]: [i for i in row[1] if i != row[0]] for row in rows if set(row[1]) <= set(row[2])
    }
