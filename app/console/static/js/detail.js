// One memory: its fields, edit / pin / archive / delete, its history (revisions, tombstone,
// audit events), its supersession chain and sources, its entities and the memories linked to it.

import { memoryPath, query, request } from "./api.js";
import { $, clear, el, facts, number, reportError, setStatus, when } from "./dom.js";
import { openEntity, openMemory, refreshCards } from "./cards.js";

const link = (id) => el("button", { type: "button", className: "link", text: id, onclick: () => openMemory(id) });
const links = (ids) => (ids && ids.length ? el("span", {}, ids.map(link)) : null);

function chain(memory) {
  const source = memory.source || {};
  return facts([
    ["superseded by", memory.superseded_by ? link(memory.superseded_by) : null],
    ["derived from", links(memory.derived_from)],
    ["summarised into", memory.consolidated_into ? link(memory.consolidated_into) : null],
    ["valid from", memory.t_valid ? when(memory.t_valid) : null],
    ["valid until", memory.t_invalid ? when(memory.t_invalid) : null],
    ["session", memory.session_id],
    ["speaker", memory.speaker],
    ["source turns", links(source.turn_ids)],
    ["message ids", (source.message_ids || []).join(", ")],
    ["created by", source.created_by],
  ]);
}

function fields(memory) {
  return facts([
    ["type", `${memory.type} (confidence ${number(memory.confidence, 2)})`],
    ["layer", memory.layer],
    ["version", memory.version],
    ["importance", number(memory.importance, 2)],
    ["agent", memory.agent_id],
    ["timestamp", when(memory.timestamp)],
    ["created", when(memory.created_at)],
    ["updated", when(memory.updated_at)],
    ["recalled", `${memory.access_count} time(s), last ${when(memory.last_accessed)}`],
    ["relevance", memory.relevance_score === null ? null : number(memory.relevance_score, 3)],
    ["expires", memory.expires_at ? when(memory.expires_at) : null],
  ]);
}

function entityList(memory) {
  const byCategory = (memory.metadata && memory.metadata.entities) || {};
  const items = Object.entries(byCategory).flatMap(([category, names]) =>
    (Array.isArray(names) ? names : []).map((name) =>
      el("li", {}, el("button", { type: "button", className: "link", text: name, onclick: () => openEntity(name) }), el("span", { className: "muted", text: ` ${category}` })),
    ),
  );
  return items.length ? el("ul", { className: "plain entities" }, items) : el("p", { className: "muted", text: "No entities (yet)." });
}

async function change(memory, patch, done) {
  try {
    await request("PATCH", memoryPath(memory.id), { ...patch, expected_version: memory.version });
    await showMemory(memory.id);
    document.dispatchEvent(new CustomEvent("console:memories-changed"));
    setStatus(done);
  } catch (error) {
    reportError(error);
  }
}

function editForm(memory) {
  const content = el("textarea", { id: "edit-content", rows: 4, maxlength: 100000 });
  content.value = memory.content;
  const tags = el("input", { id: "edit-tags", type: "text", maxlength: 2000, value: (memory.tags || []).join(", ") });
  const importance = el("input", { id: "edit-importance", type: "number", min: 0, max: 1, step: 0.05, value: memory.importance });
  const save = (event) => {
    event.preventDefault();
    // Only what the user changed is sent: a PATCH of the tags replaces them all, the entity tags
    // enrichment added among them.
    const patch = {};
    const newTags = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
    if (content.value !== memory.content) patch.content = content.value;
    if (newTags.join("\n") !== (memory.tags || []).join("\n")) patch.tags = newTags;
    if (Number(importance.value) !== memory.importance) patch.importance = Number(importance.value);
    if (!Object.keys(patch).length) return setStatus("Nothing changed");
    change(memory, patch, "Saved: the previous state is kept as a revision");
  };
  return el("form", { id: "edit-form", className: "edit", onsubmit: save },
    el("label", {}, "content", content), el("label", {}, "tags", tags), el("label", {}, "importance", importance),
    el("button", { type: "submit", text: "Save" }));
}

async function remove(memory) {
  try {
    await request("DELETE", memoryPath(memory.id));
    document.querySelectorAll(`article.memory[data-id="${CSS.escape(memory.id)}"]`).forEach((card) => card.remove());
    document.dispatchEvent(new CustomEvent("console:memories-changed"));
    await showMemory(memory.id);
    setStatus("Deleted: hidden from every read; its tombstone and last revision remain");
  } catch (error) {
    reportError(error);
  }
}

function actions(memory) {
  const confirmDelete = el("button", { type: "button", id: "confirm-delete", className: "danger", hidden: true, text: "Really delete", onclick: () => remove(memory) });
  return el("p", { className: "actions" },
    el("button", { type: "button", id: "pin", text: memory.pinned ? "Unpin" : "Pin", onclick: () => change(memory, { pinned: !memory.pinned }, memory.pinned ? "Unpinned" : "Pinned") }),
    el("button", { type: "button", id: "archive", text: memory.archived ? "Restore" : "Archive", onclick: () => change(memory, { archived: !memory.archived }, memory.archived ? "Restored" : "Archived") }),
    el("button", { type: "button", id: "delete", className: "danger", text: "Delete", onclick: () => { confirmDelete.hidden = false; } }),
    confirmDelete);
}

function history(found) {
  const revisions = found.revisions.map((revision) =>
    el("li", {}, el("p", { className: "meta", text: `version ${revision.version} · replaced ${when(revision.replaced_at)} by ${revision.replaced_by || "?"}` }), el("p", { className: "content", text: revision.content || "" })),
  );
  const events = found.events.map((event) =>
    el("li", { text: `${when(event.at)} · ${event.action} → v${event.version} by ${event.actor}${event.fields ? ` (${event.fields.join(", ")})` : ""}` }),
  );
  const tombstone = found.tombstone;
  return el("section", { id: "history" },
    el("h3", { text: "History" }),
    tombstone ? el("p", { className: "error", text: `Deleted ${when(tombstone.deleted_at)} by ${tombstone.deleted_by || tombstone.actor || "?"}` }) : null,
    el("h4", { text: `Revisions (${revisions.length})` }),
    revisions.length ? el("ol", { className: "revisions" }, revisions) : el("p", { className: "muted", text: "No earlier versions." }),
    el("h4", { text: "Audit events" }),
    el("ol", { className: "events" }, events));
}

// The links that record one memory replacing another (a /remember fact's supersession).
const CHAIN = { relationship_types: "INVALIDATED_BY,EVOLVED_INTO,SUPERSEDES", max_depth: 3 };

function linked(id, params) {
  return request("GET", `/memories/${encodeURIComponent(id)}/related${query({ limit: 20, ...params })}`);
}

function relatedList(related, className = "linked") {
  if (!related || !related.related_memories.length) return el("p", { className: `muted ${className}`, text: "None." });
  return el("ul", { className: `plain ${className}` }, related.related_memories.map((m) =>
    el("li", {}, link(m.id), el("span", { className: "muted", text: ` ${m.type}` }), el("p", { className: "content", text: m.summary }))));
}

export async function showMemory(id) {
  const panel = $("detail");
  try {
    const found = await request("GET", `${memoryPath(id)}/history`);
    const memory = found.current;
    const [related, chained] = memory ? await Promise.all([linked(id, {}), linked(id, CHAIN)]) : [null, null];
    const parts = [
      el("p", { className: "actions" }, el("button", { type: "button", id: "close-detail", text: "Close", onclick: () => { panel.hidden = true; } })),
      el("h2", { text: found.deleted ? "Deleted memory" : "Memory" }),
      el("p", { className: "muted id", text: id }),
      ...(memory ? [el("p", { className: "content big", text: memory.content }), fields(memory), actions(memory), editForm(memory),
        el("h3", { text: "Supersession and sources" }), chain(memory),
        el("h4", { text: "Replaced or replacing (up to 3 links)" }), relatedList(chained, "chain"),
        el("h3", { text: "Entities" }), entityList(memory),
        el("h3", { text: "Linked memories" }), relatedList(related)] : []),
      history(found),
    ];
    clear(panel).append(...parts);
    panel.hidden = false;
    if (memory) refreshCards(memory);
    if (window.matchMedia("(max-width: 900px)").matches) panel.scrollIntoView({ block: "start" });
  } catch (error) {
    reportError(error);
  }
}
