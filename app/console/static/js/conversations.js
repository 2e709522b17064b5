// Conversations: the sessions your memories came from (GET /me/sessions); one session's turns in
// order (GET /sessions/{id}/messages) with, under each, the facts drawn from it (GET
// /memory?session=…, matched by their source turn ids); your profile and reflection (GET
// /profile); your core and pinned memories (GET /core).

import { query, request } from "./api.js";
import { $, clear, el, plural, reportError, setStatus, when } from "./dom.js";
import { emptyNote, memoryCard, openMemory } from "./cards.js";

async function allMessages(sessionId) {
  const messages = [];
  let cursor = null;
  do {
    const page = await request("GET", `/sessions/${encodeURIComponent(sessionId)}/messages${query({ limit: 200, cursor })}`);
    messages.push(...page.messages);
    cursor = page.next_cursor;
  } while (cursor && messages.length < 1000);
  return messages;
}

function factsByTurn(facts) {
  const byTurn = new Map();
  for (const fact of facts) {
    for (const turn of (fact.source && fact.source.turn_ids) || []) {
      if (!byTurn.has(turn)) byTurn.set(turn, []);
      byTurn.get(turn).push(fact);
    }
  }
  return byTurn;
}

function factList(facts) {
  return el("ul", { className: "plain facts-drawn" }, facts.map((fact) =>
    el("li", { "data-id": fact.id },
      el("button", { type: "button", className: "link", text: fact.content, onclick: () => openMemory(fact.id) }),
      el("span", { className: "muted", text: ` ${fact.type}${fact.t_invalid ? " · replaced" : ""}` }))));
}

export async function showSession(sessionId) {
  const target = clear($("session"));
  try {
    const [messages, facts] = await Promise.all([
      allMessages(sessionId),
      request("GET", `/memory${query({ session: sessionId, state: "all", limit: 200, sort: "timestamp", order: "asc" })}`),
    ]);
    const drawn = facts.memories.filter((memory) => memory.layer !== "transcript");
    const byTurn = factsByTurn(drawn);
    const placed = new Set();
    const turns = messages.map((message) => {
      const from = byTurn.get(message.id) || [];
      from.forEach((fact) => placed.add(fact.id));
      return el("li", { className: `turn ${message.role}`, "data-id": message.id },
        el("p", { className: "meta" }, el("strong", { text: message.name || message.role }), el("span", { text: when(message.timestamp) })),
        el("p", { className: "content", text: message.content }),
        from.length ? factList(from) : null);
    });
    const rest = drawn.filter((fact) => !placed.has(fact.id));
    target.append(el("h3", { text: `Session ${sessionId}` }), el("ol", { className: "turns-list" }, turns));
    if (rest.length) target.append(el("h4", { text: "Also from this session" }), factList(rest));
    setStatus(`${plural(messages.length, "turn")}, ${plural(drawn.length, "fact")} drawn from them`);
  } catch (error) {
    reportError(error);
  }
}

async function listSessions() {
  const target = clear($("session-list"));
  const { sessions } = await request("GET", "/me/sessions");
  if (!sessions.length) target.append(el("li", {}, emptyNote("No conversations yet: they come from POST /remember.")));
  for (const found of sessions) {
    target.append(el("li", { "data-session": found.session_id },
      el("button", { type: "button", className: "link", text: found.session_id, onclick: () => showSession(found.session_id) }),
      el("span", { className: "muted", text: ` ${plural(found.turns, "turn")} · ${plural(found.facts, "fact")} · ${when(found.last)}` })));
  }
  return sessions;
}

async function showProfile() {
  const target = clear($("profile"));
  const profile = await request("GET", "/profile");
  const attributes = Object.entries(profile.attributes);
  target.append(
    profile.reflection ? memoryCard(profile.reflection) : emptyNote("No reflection yet."),
    attributes.length
      ? el("dl", { className: "facts profile" }, attributes.flatMap(([name, facts]) => [el("dt", { text: name }), el("dd", {}, facts.map((fact) => el("button", { type: "button", className: "link", text: fact.content, onclick: () => openMemory(fact.id) })))]))
      : emptyNote("No profile facts yet."),
  );
}

async function showCore() {
  const target = clear($("core"));
  const core = await request("GET", "/core");
  const sections = Object.entries(core.sections).filter(([, memories]) => memories.length);
  if (!sections.length) target.append(emptyNote("Nothing pinned."));
  for (const [name, memories] of sections) target.append(el("h4", { text: name }), el("div", { className: "results" }, memories.map((memory) => memoryCard(memory))));
}

export async function refreshConversations() {
  try {
    const [sessions] = await Promise.all([listSessions(), showProfile(), showCore()]);
    if (sessions.length) await showSession(sessions[0].session_id);
  } catch (error) {
    reportError(error);
  }
}
