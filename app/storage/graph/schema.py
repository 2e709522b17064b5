"""Schema by migrations: numbered, idempotent modules in `migrations/`, applied at start-up.

Each migration module has `async def up(graph: GraphStore) -> None`. Applied migrations are
recorded in the graph as `(:Migration {id, applied_at})`; every migration is also safe to run
again, so two replicas starting at once do no harm.
"""

import importlib
import logging
import pkgutil
from types import ModuleType

import migrations
from app.models import to_iso, utc_now
from app.storage.graph.store import GraphStore

log = logging.getLogger(__name__)

APPLIED = "MATCH (x:Migration) RETURN x.id"
RECORD = "MERGE (x:Migration {id: $id}) ON CREATE SET x.applied_at = $now"


def discover() -> list[tuple[str, ModuleType]]:
    """Migration modules in name order (0001_…, 0002_…)."""
    names = sorted(m.name for m in pkgutil.iter_modules(migrations.__path__) if m.name[0].isdigit())
    return [(name, importlib.import_module(f"migrations.{name}")) for name in names]


async def migrate(graph: GraphStore) -> list[str]:
    """Applies pending migrations in order; returns the ids applied now."""
    # A write query: on a brand-new graph a read-only query fails with "empty key".
    applied = {row[0] for row in await graph.query(APPLIED)}
    done = []
    for name, module in discover():
        if name in applied:
            continue
        log.info("applying migration %s", name)
        await module.up(graph)
        await graph.query(RECORD, {"id": name, "now": to_iso(utc_now())})
        done.append(name)
    return done


async def ensure_range_index(graph: GraphStore, label: str, prop: str) -> None:
    """Creates a range index unless it exists."""
    if not await _has_index(graph, label, prop, "RANGE"):
        await graph.query(f"CREATE INDEX FOR (n:{_name(label)}) ON (n.{_name(prop)})")


async def ensure_fulltext_index(graph: GraphStore, label: str, prop: str) -> None:
    """Creates a full-text index unless it exists."""
    if not await _has_index(graph, label, prop, "FULLTEXT"):
        await graph.query(
            "CALL db.idx.fulltext.createNodeIndex($label, $prop)", {"label": label, "prop": prop}
        )


async def _has_index(graph: GraphStore, label: str, prop: str, kind: str) -> bool:
    for index in await graph.indexes():
        if index["label"] == label and kind in (index["types"].get(prop) or []):
            return True
    return False


def _name(identifier: str) -> str:
    """Labels and properties cannot be Cypher parameters: allow plain identifiers only."""
    if not identifier.isidentifier():
        raise ValueError(f"not a plain identifier: {identifier!r}")
    return identifier
