// Entities: GET /entities, and one entity's memories (GET /entity/{slug}).

import { query, request } from "./api.js";
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

export async function showEntity(slug) {
  const target = clear($("entity-results"));
  try {
    const { entity } = await request("GET", `/entity/${encodeURIComponent(slug)}`);
    const ids = entity.memory_ids || [];
    target.append(
      el("h3", { text: `${entity.name} (${entity.category})` }),
      el("p", { className: "muted", text: `also seen as: ${(entity.aliases || []).join(", ") || "—"}` }),
      el("ul", { className: "plain" }, ids.map((id) => el("li", {}, el("button", { type: "button", className: "link", text: id, onclick: () => openMemory(id) })))),
    );
    setStatus(`${ids.length} memor${ids.length === 1 ? "y mentions" : "ies mention"} ${entity.name}`);
  } catch (error) {
    reportError(error);
  }
}

export function setUpEntities() {
  $("entities-form").addEventListener("submit", listEntities);
}
