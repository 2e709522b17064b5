"""LangGraph's long-term memory store on Engram: `EngramStore`, a `langgraph.store.base.BaseStore`
(sync and async). `pip install "engram-client[langgraph]"`.

How a LangGraph item maps onto Engram (docs/clients/langgraph.md):

* **An item is one memory.** Its whole `value` is kept in `metadata["langgraph"]`; its text —
  the fields `index` names, else every top-level string of the value — is the memory's
  content, which Engram embeds and searches (semantic `search(query=...)` is Engram's recall).
* **Namespace and key are labels**: `lg_ns` holds the namespace as a path (`/users/alice`,
  each part percent-encoded), `lg_prefix` every prefix of it (`/`, `/users`, `/users/alice`),
  `lg_key` the key. A namespace prefix is then one exact label filter, applied by Engram.
* **Filters**: top-level scalar fields of the value are also labels (`v_<field>`, up to 16), so
  an equality filter narrows the search in Engram; every filter (`$eq`, `$ne`, `$gt`, `$gte`,
  `$lt`, `$lte`) is then checked on the values returned.
* **Users** are Engram's: a store acts as the user of its API key, and sees only that user's
  memories (give each end-user a key of their own, and each a store).
* **Agents**: with `agent_index=i`, the namespace's part `i` is the Engram agent the item
  belongs to, as a sub-agent of the client's own (`langgraph:<part>` for a client of agent
  `langgraph`); Engram then keeps each agent's items from the others, and the parent agent's
  searches see them all.
"""

import json
import math
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any
from urllib.parse import quote, unquote

from engram_client._extras import needs

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as missing:  # the extra is not installed
    raise needs("langgraph", __name__) from missing

from engram_client.async_client import AsyncEngram
from engram_client.client import Engram
from engram_client.models import Memory

LABEL_NS, LABEL_PREFIX, LABEL_KEY = "lg_ns", "lg_prefix", "lg_key"
FIELD_LABELS = 16  # Engram keeps 20 labels; three are the store's own
MAX_CONTENT = 2000
RECALL_MAX = 100
OPERATORS = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}

Namespace = tuple[str, ...]


def path(namespace: Namespace) -> str:
    """`("users", "a/b")` → `/users/a%2Fb`: no part can pose as two, nor hold a comma."""
    return "/" + "/".join(quote(part, safe="") for part in namespace)


def namespace_of(text: str) -> Namespace:
    return tuple(unquote(part) for part in text.split("/")[1:]) if text != "/" else ()


def prefixes(namespace: Namespace) -> list[str]:
    return [path(namespace[:depth]) for depth in range(len(namespace) + 1)]


def is_scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= 500
    return isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value))


def field_labels(value: Mapping[str, Any]) -> dict[str, Any]:
    fields = [(name, item) for name, item in value.items() if name.isidentifier()]
    return {f"v_{name}": item for name, item in fields if is_scalar(item)}


def text_of(value: Mapping[str, Any], index: list[str] | None) -> str:
    """What Engram embeds: the fields named by `index` (top-level names), else every string."""
    names = index if index is not None else [n for n, v in value.items() if isinstance(v, str)]
    parts = [v if isinstance(v, str) else json.dumps(v) for n in names if (v := value.get(n))]
    return ("\n".join(parts) or json.dumps(value, default=str))[:MAX_CONTENT]


def memory_fields(op: PutOp) -> dict[str, Any]:
    value = dict(op.value or {})
    index = op.index if isinstance(op.index, list) else None
    labels = {
        LABEL_NS: path(op.namespace),
        LABEL_PREFIX: prefixes(op.namespace),
        LABEL_KEY: quote(op.key, safe=""),
    }
    labels |= dict(list(field_labels(value).items())[:FIELD_LABELS])
    content = quote(op.key, safe="") if op.index is False else text_of(value, index)
    metadata = {"langgraph": {"namespace": list(op.namespace), "key": op.key, "value": value}}
    return {"content": content, "labels": labels, "metadata": metadata}


def item_of(memory: Memory, score: float | None = None) -> SearchItem:
    kept = memory.metadata.get("langgraph", {})
    return SearchItem(
        namespace=tuple(kept.get("namespace", ())),
        key=str(kept.get("key", "")),
        value=dict(kept.get("value", {})),
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        score=score,
    )


def plain(item: SearchItem) -> Item:
    return Item(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
    )


def condition_holds(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping) and wanted and all(k in OPERATORS for k in wanted):
        try:
            return all(OPERATORS[op](actual, bound) for op, bound in wanted.items())
        except TypeError:
            return False
    return bool(actual == wanted)


def passes(item: SearchItem, prefix: Namespace, filter: Mapping[str, Any] | None) -> bool:
    if item.namespace[: len(prefix)] != prefix:
        return False
    return all(condition_holds(item.value.get(k), w) for k, w in (filter or {}).items())


def search_labels(op: SearchOp) -> dict[str, Any]:
    """The labels Engram filters on: the prefix, and the filter's plain equalities."""
    labels: dict[str, Any] = {LABEL_PREFIX: path(op.namespace_prefix)}
    for name, wanted in (op.filter or {}).items():
        if isinstance(wanted, Mapping) and set(wanted) == {"$eq"}:
            wanted = wanted["$eq"]
        if name.isidentifier() and is_scalar(wanted):
            labels[f"v_{name}"] = wanted
    return labels


def part_matches(pattern: tuple[str, ...], parts: Namespace) -> bool:
    head = parts[: len(pattern)]
    return len(head) == len(pattern) and all(
        p in ("*", v) for p, v in zip(pattern, head, strict=True)
    )


def namespace_matches(namespace: Namespace, conditions: Iterable[MatchCondition]) -> bool:
    for condition in conditions:
        pattern = tuple(condition.path)
        if condition.match_type == "prefix" and not part_matches(pattern, namespace):
            return False
        if condition.match_type == "suffix" and not part_matches(pattern[::-1], namespace[::-1]):
            return False
    return True


def listed_prefix(op: ListNamespacesOp) -> Namespace:
    """The fixed start of the namespaces asked for, which Engram can filter on."""
    for condition in op.match_conditions or ():
        if condition.match_type == "prefix":
            fixed = []
            for part in condition.path:
                if part == "*":
                    break
                fixed.append(part)
            return tuple(fixed)
    return ()


def namespaces_page(found: Iterable[Namespace], op: ListNamespacesOp) -> list[Namespace]:
    kept = {
        ns[: op.max_depth] if op.max_depth is not None else ns
        for ns in found
        if namespace_matches(ns, op.match_conditions or ())
    }
    return sorted(kept)[op.offset : op.offset + op.limit]


class EngramStore(BaseStore):
    """A LangGraph `BaseStore` whose items are Engram memories (see the module's docstring).

    `client` serves the sync methods, `aclient` the async ones; give either or both.
    `agent_index`: which namespace part, if any, names the item's Engram agent."""

    def __init__(
        self,
        client: Engram | None = None,
        aclient: AsyncEngram | None = None,
        *,
        agent_index: int | None = None,
    ) -> None:
        if client is None and aclient is None:
            raise ValueError("EngramStore needs an Engram client, an AsyncEngram, or both")
        self.client, self.aclient, self.agent_index = client, aclient, agent_index

    # Scope

    def agent_for(self, namespace: Namespace, base: str | None) -> str | None:
        """The Engram agent of a namespace: part `agent_index` under the client's own agent."""
        if self.agent_index is None or len(namespace) <= self.agent_index:
            return base
        part = namespace[self.agent_index]
        return f"{base}:{part}" if base else part

    def sync_client(self, namespace: Namespace) -> Engram:
        if self.client is None:
            raise RuntimeError("This EngramStore was made with an AsyncEngram only: use a*()")
        agent = self.agent_for(namespace, self.client.agent_id)
        return self.client if agent == self.client.agent_id else self.client.for_agent(agent)

    def async_client(self, namespace: Namespace) -> AsyncEngram:
        if self.aclient is None:
            raise RuntimeError("This EngramStore was made with an Engram client only")
        agent = self.agent_for(namespace, self.aclient.agent_id)
        return self.aclient if agent == self.aclient.agent_id else self.aclient.for_agent(agent)

    # Sync

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self.run(op) for op in ops]

    def run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self.find(op.namespace, op.key)
            return plain(item_of(found)) if found else None
        if isinstance(op, PutOp):
            self.put_one(op)
            return None
        if isinstance(op, SearchOp):
            return self.search_items(op)
        if isinstance(op, ListNamespacesOp):
            return self.namespaces(op)
        raise ValueError(f"Unknown operation: {type(op).__name__}")

    def find(self, namespace: Namespace, key: str) -> Memory | None:
        labels = {LABEL_NS: path(namespace), LABEL_KEY: quote(key, safe="")}
        page = self.sync_client(namespace).list_memories(limit=1, labels=labels)
        return page.memories[0] if page.memories else None

    def put_one(self, op: PutOp) -> None:
        client, existing = self.sync_client(op.namespace), self.find(op.namespace, op.key)
        if op.value is None:
            if existing:
                client.delete(existing.id)
            return
        fields = memory_fields(op)
        if existing:
            client.update(existing.id, **fields)
        else:
            client.store(type="Context", ttl_days=None, protected=True, **fields)

    def search_items(self, op: SearchOp) -> list[SearchItem]:
        client = self.sync_client(op.namespace_prefix)
        if op.query:
            found = client.recall(op.query, **recall_params(op)).results
            return page_of([item_of(hit.memory, hit.score) for hit in found], op)
        memories = client.iter_memories(labels=search_labels(op), sort="updated_at")
        return page_of((item_of(memory) for memory in memories), op)

    def namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        prefix = listed_prefix(op)
        memories = self.sync_client(prefix).iter_memories(labels={LABEL_PREFIX: path(prefix)})
        return namespaces_page((item_of(m).namespace for m in memories), op)

    # Async

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await self.arun(op) for op in ops]

    async def arun(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = await self.afind(op.namespace, op.key)
            return plain(item_of(found)) if found else None
        if isinstance(op, PutOp):
            await self.aput_one(op)
            return None
        if isinstance(op, SearchOp):
            return await self.asearch_items(op)
        if isinstance(op, ListNamespacesOp):
            return await self.anamespaces(op)
        raise ValueError(f"Unknown operation: {type(op).__name__}")

    async def afind(self, namespace: Namespace, key: str) -> Memory | None:
        labels = {LABEL_NS: path(namespace), LABEL_KEY: quote(key, safe="")}
        page = await self.async_client(namespace).list_memories(limit=1, labels=labels)
        return page.memories[0] if page.memories else None

    async def aput_one(self, op: PutOp) -> None:
        client, existing = self.async_client(op.namespace), await self.afind(op.namespace, op.key)
        if op.value is None:
            if existing:
                await client.delete(existing.id)
            return
        fields = memory_fields(op)
        if existing:
            await client.update(existing.id, **fields)
        else:
            await client.store(type="Context", ttl_days=None, protected=True, **fields)

    async def asearch_items(self, op: SearchOp) -> list[SearchItem]:
        client = self.async_client(op.namespace_prefix)
        if op.query:
            found = (await client.recall(op.query, **recall_params(op))).results
            return page_of([item_of(hit.memory, hit.score) for hit in found], op)
        memories = client.iter_memories(labels=search_labels(op), sort="updated_at")
        return await apage_of(items_of(memories), op)

    async def anamespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        prefix = listed_prefix(op)
        memories = self.async_client(prefix).iter_memories(labels={LABEL_PREFIX: path(prefix)})
        return namespaces_page([item.namespace async for item in items_of(memories)], op)


def recall_params(op: SearchOp) -> dict[str, Any]:
    return {
        "labels": search_labels(op),
        "limit": min(RECALL_MAX, (op.offset + op.limit) * 2),
    }


def page_of(items: Iterable[SearchItem], op: SearchOp) -> list[SearchItem]:
    """The op's page of the items that pass its prefix and filter (read lazily)."""
    kept: list[SearchItem] = []
    for item in items:
        if passes(item, op.namespace_prefix, op.filter):
            kept.append(item)
            if len(kept) >= op.offset + op.limit:
                break
    return kept[op.offset :]


async def apage_of(items: AsyncIterator[SearchItem], op: SearchOp) -> list[SearchItem]:
    kept: list[SearchItem] = []
    async for item in items:
        if passes(item, op.namespace_prefix, op.filter):
            kept.append(item)
            if len(kept) >= op.offset + op.limit:
                break
    return kept[op.offset :]


async def items_of(memories: AsyncIterator[Memory]) -> AsyncIterator[SearchItem]:
    async for memory in memories:
        yield item_of(memory)
