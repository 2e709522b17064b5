// Entities: GET /entities, and one entity's memories (GET /entity/{slug}).

import { eachOf, memoryPath, query, request } from "./api.js";
import { $, clear, el, reportError, setStatus } from "./dom.js";
import { emptyNote, openEntity, openMemory } from "./cards.js";

function entityRow(entity) {
  return el(
    "li",
    { className: "entity" },
    el("button", { type: "button", className: "link", text: entity.name, onclick: () => openEntity(entity.slug) }),
    el("span", { className: "muted", text: ` ${entity.category} · ${entity.reference_count} memor${entity.reference_count === 1 ? "y" : "ies"}` }),
  );
}

async function listEntities(event) {
  event.preventDefault();
  const target = clear($("entity-results"));
  try {
    const answer = await request("GET", `/entities${query({ category: $("entity-category").value })}`);
    setStatus(`${answer.count} entities`);
    if (!answer.entities.length) target.append(emptyNote("No entities yet: they appear once memories are enriched."));
    else target.append(el("ul", { className: "plain" }, answer.entities.map(entityRow)));
  } catch (error) {
    reportError(error);
  }
}

// The memories' texts (GET /memory/{id}, a few at a time), for the first SHOWN of them.
const SHOWN = 50;

async function texts(ids) {
  const outcomes = await eachOf(ids.slice(0, SHOWN), 4, (id) => request("GET", memoryPath(id)));
  return new Map(outcomes.filter((o) => o.ok).map((o) => [o.value.memory.id, o.value.memory.content]));
}

export async function showEntity(slug) {
  const target = clear($("entity-results"));
  try {
    const { entity } = await request("GET", `/entity/${encodeURIComponent(slug)}`);
    const ids = entity.memory_ids || [];
    const known = await texts(ids);
    target.append(
      el("h3", { text: `${entity.name} (${entity.category})` }),
      el("p", { className: "muted", text: `also seen as: ${(entity.aliases || []).join(", ") || "—"}` }),
      el("ul", { className: "plain mentions" }, ids.slice(0, SHOWN).map((id) => el("li", { "data-id": id }, el("button", { type: "button", className: "link", text: known.get(id) || id, onclick: () => openMemory(id) })))),
    );
    if (ids.length > SHOWN) target.append(el("p", { className: "muted", text: `and ${ids.length - SHOWN} more` }));
    setStatus(`${ids.length} memor${ids.length === 1 ? "y mentions" : "ies mention"} ${entity.name}`);
  } catch (error) {
    reportError(error);
  }
}

export function setUpEntities() {
  $("entities-form").addEventListener("submit", listEntities);
}
