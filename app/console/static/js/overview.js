// Overview: your memories counted (GET /me/stats: by type, layer, role, agent, tag; per day;
// storage) and what the background jobs are doing (GET /enrichment/status). The operator's
// look at one user draws the same figures from GET /admin/users/{id}/stats.

import { request } from "./api.js";
import { $, clear, el, number, reportError, setStatus, when } from "./dom.js";
import { dayChart } from "./chart.js";

function tile(label, value, id) {
  return el("div", { className: "tile", "data-figure": id }, el("span", { className: "figure", text: value }), el("span", { className: "muted", text: label }));
}

function facet(title, counts, name) {
  const rows = Object.entries(counts || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const max = Math.max(1, ...rows.map(([, count]) => count));
  return el("section", { className: "facet card", "data-facet": name },
    el("h3", { text: title }),
    rows.length
      ? el("table", { className: "counts" }, el("tbody", {}, rows.map(([value, count]) =>
        el("tr", {}, el("th", { scope: "row", text: value }), el("td", {}, el("meter", { min: 0, max, value: count, "aria-hidden": "true" })), el("td", { className: "n", text: count })))))
      : el("p", { className: "muted", text: "None." }));
}

function kib(chars) {
  return chars < 10240 ? `${chars} chars` : `${number(chars / 1024, 0)} KiB of text`;
}

export function statsView(stats, days) {
  const storage = stats.storage;
  return [
    el("div", { className: "tiles" },
      tile("memories", stats.total, "total"),
      tile("archived", stats.archived, "archived"),
      tile("pinned", stats.pinned, "pinned"),
      tile("revisions kept", storage.revisions, "revisions"),
      tile("deleted", storage.deleted, "deleted"),
      tile("entities", storage.entities, "entities"),
      tile("sessions", storage.sessions, "sessions"),
      tile("content", kib(storage.content_chars), "content"),
      tile("last write", when(stats.last_write), "last-write")),
    dayChart(stats.per_day, days),
    el("div", { className: "facets" },
      facet("By type", stats.by_type, "type"),
      facet("By layer", stats.by_layer, "layer"),
      facet("By role", stats.by_role, "role"),
      facet("By agent", stats.by_agent, "agent"),
      facet("By tag", stats.by_tag, "tag")),
  ];
}

function jobsView(jobs) {
  const age = jobs.oldest_pending_age_s;
  return el("section", { id: "jobs", className: "card" },
    el("h3", { text: `Background jobs: ${jobs.status}` }),
    el("div", { className: "tiles" },
      tile("queued", jobs.queue_depth, "queued"),
      tile("running", jobs.inflight, "running"),
      tile("done", jobs.processed, "done"),
      tile("failed attempts", jobs.failed, "failed"),
      tile("dead", jobs.dead, "dead"),
      tile("oldest pending", age === null || age === undefined ? "—" : `${number(age, 1)} s`, "oldest")),
    el("p", { className: "muted", text: `Job slots in this process: ${jobs.workers}` }));
}

export async function refreshOverview() {
  const target = $("overview");
  const days = Number($("overview-days").value);
  try {
    const [stats, jobs] = await Promise.all([request("GET", `/me/stats?days=${days}`), request("GET", "/enrichment/status")]);
    clear(target).append(...statsView(stats, days), jobsView(jobs));
    setStatus(`${stats.total} memories in your scope`);
  } catch (error) {
    reportError(error);
  }
}

export function setUpOverview() {
  $("overview-refresh").addEventListener("click", refreshOverview);
  $("overview-days").addEventListener("change", refreshOverview);
}
