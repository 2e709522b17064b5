// A memory as a card in a result list. Opening one asks the detail panel through an event, so
// the lists and the panel do not import each other.

import { el, number, tagList, when } from "./dom.js";

export function openMemory(id) {
  document.dispatchEvent(new CustomEvent("console:open-memory", { detail: { id } }));
}

export function openEntity(slug) {
  document.dispatchEvent(new CustomEvent("console:open-entity", { detail: { slug } }));
}

function badges(memory) {
  return [
    memory.pinned && el("span", { className: "badge", text: "pinned" }),
    memory.archived && el("span", { className: "badge", text: "archived" }),
    memory.t_invalid && el("span", { className: "badge", text: "ended" }),
    memory.layer === "transcript" && el("span", { className: "badge", text: "transcript turn" }),
  ];
}

function meta(memory) {
  return el(
    "p",
    { className: "meta" },
    el("span", { text: memory.type }),
    el("span", { text: `importance ${number(memory.importance, 2)}` }),
    el("span", { text: when(memory.timestamp) }),
    memory.agent_id ? el("span", { text: `agent ${memory.agent_id}` }) : null,
    badges(memory),
    tagList(memory.tags),
  );
}

export function memoryCard(memory, ...extra) {
  return el(
    "article",
    { className: "memory", "data-id": memory.id },
    el("p", { className: "content", text: memory.content }),
    meta(memory),
    extra,
    el("button", { type: "button", className: "open", text: "Open", "aria-label": `Open ${memory.content.slice(0, 60)}`, onclick: () => openMemory(memory.id) }),
  );
}

// Every list showing this memory shows its current state (after an edit, pin or archive).
export function refreshCards(memory) {
  for (const card of document.querySelectorAll(`article.memory[data-id="${CSS.escape(memory.id)}"]`)) {
    const content = card.querySelector(".content");
    if (content) content.textContent = memory.content;
    const old = card.querySelector(".meta");
    if (old) old.replaceWith(meta(memory));
  }
}

export function emptyNote(text) {
  return el("p", { className: "muted empty", text });
}
