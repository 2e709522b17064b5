// Timeline: your memories on the axis of when they became true (t_valid, else their
// timestamp), newest first, grouped by day; a replaced value is linked to what replaced it
// (the INVALIDATED_BY, EVOLVED_INTO and SUPERSEDES links of GET /me/graph).

import { query, request } from "./api.js";
import { $, clear, el, plural, reportError, setStatus, tagList, when } from "./dom.js";
import { emptyNote, openMemory } from "./cards.js";

const LIMIT = 200;
// old → new for each link type that records a replacement
const REPLACING = { INVALIDATED_BY: false, EVOLVED_INTO: false, SUPERSEDES: true };

const validFrom = (memory) => memory.t_valid || memory.timestamp;

function replacements(edges) {
  const replacedBy = new Map();
  const replaces = new Map();
  for (const edge of edges) {
    if (!(edge.type in REPLACING)) continue;
    const [old, next] = REPLACING[edge.type] ? [edge.target, edge.source] : [edge.source, edge.target];
    replacedBy.set(old, next);
    replaces.set(next, old);
  }
  return { replacedBy, replaces };
}

function jump(id, label, known) {
  const go = () => {
    const target = document.querySelector(`#timeline li[data-id="${CSS.escape(id)}"]`);
    if (target) {
      target.scrollIntoView({ block: "center" });
      target.querySelector("button.open").focus();
    }
    openMemory(id);
  };
  return el("button", { type: "button", className: "link jump", text: `${label}${known.get(id) ? ` “${known.get(id)}”` : ` ${id}`}`, onclick: go });
}

function entry(memory, links, contents) {
  const next = links.replacedBy.get(memory.id) || memory.superseded_by;
  const previous = links.replaces.get(memory.id);
  const ended = Boolean(memory.t_invalid) || Boolean(next);
  return el("li", { className: `moment${ended ? " ended" : ""}`, "data-id": memory.id },
    el("p", { className: "meta" },
      el("time", { datetime: validFrom(memory), text: when(validFrom(memory)).slice(11, 16) || "" }),
      el("span", { className: "badge", text: memory.type }),
      memory.agent_id ? el("span", { text: `agent ${memory.agent_id}` }) : null,
      memory.t_invalid ? el("span", { text: `valid until ${when(memory.t_invalid)}` }) : null,
      tagList(memory.tags)),
    el("p", { className: "content", text: memory.content }),
    el("p", { className: "actions" },
      el("button", { type: "button", className: "open", text: "Open", "aria-label": `Open ${memory.content.slice(0, 60)}`, onclick: () => openMemory(memory.id) }),
      next ? jump(next, "replaced by →", contents) : null,
      previous ? jump(previous, "← replaces", contents) : null));
}

export async function refreshTimeline() {
  const target = clear($("timeline"));
  const filters = { state: "all", sort: "timestamp", order: "desc", limit: LIMIT, type: $("timeline-type").value.trim(), tags: $("timeline-tags").value.trim(), agent: $("timeline-agent").value.trim() };
  try {
    const [page, drawn] = await Promise.all([request("GET", `/memory${query(filters)}`), request("GET", "/me/graph?limit=300")]);
    const memories = page.memories.filter((memory) => memory.layer !== "transcript").sort((a, b) => validFrom(b).localeCompare(validFrom(a)));
    const contents = new Map(memories.map((memory) => [memory.id, memory.content.slice(0, 50)]));
    const links = replacements(drawn.edges);
    let day = null;
    for (const memory of memories) {
      const today = validFrom(memory).slice(0, 10);
      if (today !== day) {
        day = today;
        target.append(el("li", { className: "day" }, el("h3", { text: today })));
      }
      target.append(entry(memory, links, contents));
    }
    if (!memories.length) target.append(el("li", {}, emptyNote("No memories match these filters.")));
    setStatus(`${plural(memories.length, "memory", "memories")} on the timeline${page.next_cursor ? ` (the latest ${LIMIT})` : ""}`);
  } catch (error) {
    reportError(error);
  }
}

export function setUpTimeline() {
  $("timeline-form").addEventListener("submit", (event) => {
    event.preventDefault();
    refreshTimeline();
  });
}
