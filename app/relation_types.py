"""The relationship registry: the one source of truth for edge types (AutoMem's, automem.md §6).

authorable: clients may create them with /associate; system: made by enrichment/consolidation;
default_expand: what recall's expand_relations follows; props: extra properties copied from a
request. Every edge also carries `strength` (0–1) and `updated_at`.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class RelationType:
    name: str
    authorable: bool
    props: tuple[str, ...] = ()
    default_expand: bool = False
    public: bool = True


REGISTRY: dict[str, RelationType] = {
    t.name: t
    for t in (
        RelationType("RELATES_TO", True, default_expand=True),
        RelationType("LEADS_TO", True, default_expand=True),
        RelationType("OCCURRED_BEFORE", True, default_expand=True),
        RelationType("PREFERS_OVER", True, ("context", "reason"), default_expand=True),
        RelationType("EXEMPLIFIES", True, ("pattern_type", "confidence"), default_expand=True),
        RelationType("CONTRADICTS", True, ("resolution", "reason"), default_expand=True),
        RelationType("REINFORCES", True, ("observations",), default_expand=True),
        RelationType("INVALIDATED_BY", True, ("reason", "timestamp"), default_expand=True),
        RelationType("EVOLVED_INTO", True, ("confidence", "reason"), default_expand=True),
        RelationType("DERIVED_FROM", True, ("transformation", "confidence"), default_expand=True),
        RelationType("PART_OF", True, ("role", "context"), default_expand=True),
        RelationType("SIMILAR_TO", False, ("score",)),
        RelationType("PRECEDED_BY", False, ("count",)),
        RelationType(
            "DISCOVERED", False, ("kind", "confidence", "similarity", "origin"), public=False
        ),
        RelationType("MENTIONS", False),
        RelationType("SUPERSEDES", False),
        RelationType("SUMMARIZES", False),  # a cluster summary to each of its members
    )
}
AUTHORABLE = tuple(name for name, t in REGISTRY.items() if t.authorable)
DEFAULT_EXPAND = tuple(name for name, t in REGISTRY.items() if t.default_expand)
# Memory-to-memory types a client may filter on (MENTIONS links to entities, not memories).
FILTERABLE = tuple(name for name in REGISTRY if name != "MENTIONS")


def canonical(name: str) -> str | None:
    """The registry name for a client's spelling, or None."""
    key = name.strip().upper().replace("-", "_").replace(" ", "_")
    return key if key in REGISTRY else None
