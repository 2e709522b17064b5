// The operator's view (the admin key): the users (GET /admin/users: memory counts, last write,
// keys) and one user's memory, read-only (GET /admin/users/{id}/stats and …/memories). The API
// writes each look to the audit log; nothing here changes a memory.

import { query, request } from "./api.js";
import { $, clear, el, facts, number, plural, reportError, setStatus, tagList, when } from "./dom.js";
import { emptyNote } from "./cards.js";
import { statsView } from "./overview.js";

const DAYS = 30;
let viewing = null; // { userId, cursor, text }

const megabytes = (size) => `${number(size / 1048576, 1)} MB`;

function keyList(keys) {
  if (!keys.length) return el("span", { className: "muted", text: "none" });
  return el("ul", { className: "plain keys" }, keys.map((key) =>
    el("li", { className: "id", text: `${key.key_id} · ${key.source}${key.agent_prefix ? ` · agent ${key.agent_prefix}` : ""}${key.revoked_at ? " · revoked" : ""}` })));
}

function userRow(user) {
  return el("tr", { "data-user": user.user_id },
    el("th", { scope: "row" }, el("button", { type: "button", className: "link", text: user.user_id, onclick: () => showUser(user.user_id) })),
    el("td", { className: "n", text: user.memories }),
    el("td", { className: "n", text: user.archived }),
    el("td", { className: "n", text: user.pinned }),
    el("td", { text: when(user.last_write) }),
    el("td", {}, keyList(user.keys)));
}

export async function refreshUsers() {
  const target = clear($("users"));
  try {
    const { users, disk } = await request("GET", "/admin/users");
    const stores = Object.entries(disk);
    if (stores.length) target.append(el("div", { className: "tiles", id: "disk" }, stores.map(([name, size]) => el("div", { className: "tile", "data-figure": name }, el("span", { className: "figure", text: megabytes(size) }), el("span", { className: "muted", text: `${name} on disk` })))));
    target.append(el("div", { className: "scroll" }, el("table", { className: "users" },
      el("thead", {}, el("tr", {}, ["user", "memories", "archived", "pinned", "last write", "keys"].map((name) => el("th", { scope: "col", text: name })))),
      el("tbody", {}, users.map(userRow)))));
    setStatus(`${plural(users.length, "user")}`);
  } catch (error) {
    reportError(error);
  }
}

function readOnly(memory) {
  const panel = $("detail");
  clear(panel).append(
    el("p", { className: "actions" }, el("button", { type: "button", id: "close-detail", text: "Close", onclick: () => { panel.hidden = true; } })),
    el("h2", { text: `Memory of ${memory.user_id} (read-only)` }),
    el("p", { className: "muted id", text: memory.id }),
    el("p", { className: "content big", text: memory.content }),
    facts([
      ["type", `${memory.type} (confidence ${number(memory.confidence, 2)})`],
      ["layer", memory.layer], ["role", memory.role], ["agent", memory.agent_id],
      ["version", memory.version], ["importance", number(memory.importance, 2)],
      ["pinned", memory.pinned ? "yes" : null], ["archived", memory.archived ? "yes" : null],
      ["timestamp", when(memory.timestamp)], ["valid from", memory.t_valid ? when(memory.t_valid) : null],
      ["valid until", memory.t_invalid ? when(memory.t_invalid) : null],
      ["created", when(memory.created_at)], ["updated", when(memory.updated_at)],
      ["session", memory.session_id], ["tags", (memory.tags || []).join(", ")],
    ]));
  panel.hidden = false;
  if (window.matchMedia("(max-width: 900px)").matches) panel.scrollIntoView({ block: "start" });
}

function memoryRow(memory) {
  return el("article", { className: "memory readonly", "data-id": memory.id },
    el("p", { className: "content", text: memory.content }),
    el("p", { className: "meta" }, el("span", { text: memory.type }), el("span", { text: when(memory.timestamp) }),
      memory.agent_id ? el("span", { text: `agent ${memory.agent_id}` }) : null,
      memory.archived ? el("span", { className: "badge", text: "archived" }) : null,
      memory.pinned ? el("span", { className: "badge", text: "pinned" }) : null, tagList(memory.tags)),
    el("button", { type: "button", className: "open", text: "Show", "aria-label": `Show ${memory.content.slice(0, 60)}`, onclick: () => readOnly(memory) }));
}

async function loadMemories() {
  const list = $("user-memories");
  const more = $("user-more");
  const { userId, cursor, text } = viewing;
  more.hidden = true;
  const page = await request("GET", `/admin/users/${encodeURIComponent(userId)}/memories${query({ state: "all", limit: 50, text, cursor, include_total: cursor ? "" : "true" })}`);
  if (!cursor) $("user-total").textContent = `${plural(page.total, "memory", "memories")}`;
  if (!page.memories.length && !cursor) list.append(emptyNote("No memories."));
  list.append(...page.memories.map(memoryRow));
  viewing.cursor = page.next_cursor;
  more.hidden = !page.next_cursor;
}

async function showUser(userId) {
  const target = clear($("user-view"));
  viewing = { userId, cursor: null, text: "" };
  try {
    const stats = await request("GET", `/admin/users/${encodeURIComponent(userId)}/stats?days=${DAYS}`);
    const search = el("input", { id: "user-text", type: "search", maxlength: 200, placeholder: "words in it" });
    const filter = (event) => {
      event.preventDefault();
      viewing = { userId, cursor: null, text: search.value.trim() };
      clear($("user-memories"));
      loadMemories().catch(reportError);
    };
    target.append(
      el("h2", { id: "user-title", text: `${userId}'s memory (read-only)` }),
      ...statsView(stats, DAYS),
      el("h3", { text: "Memories" }),
      el("form", { className: "row", onsubmit: filter }, el("label", { className: "inline" }, "text", search), el("button", { type: "submit", text: "Filter" }), el("span", { id: "user-total", className: "muted" })),
      el("div", { id: "user-memories", className: "results" }),
      el("button", { type: "button", id: "user-more", text: "More", hidden: true, onclick: () => loadMemories().catch(reportError) }));
    await loadMemories();
    $("user-title").scrollIntoView({ block: "start" });
    setStatus(`Looking at ${userId}'s memory: the look is in the audit log`);
  } catch (error) {
    reportError(error);
  }
}
