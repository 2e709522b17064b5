// Search: POST /recall, each result with its score and every component of it.

import { request } from "./api.js";
import { $, clear, el, number, reportError, setStatus } from "./dom.js";
import { emptyNote, memoryCard } from "./cards.js";

function componentsTable(components) {
  const rows = Object.entries(components || {}).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  return el(
    "table",
    { className: "components" },
    el("caption", { text: "score components" }),
    el("tbody", {}, rows.map(([name, value]) => el("tr", {}, el("th", { scope: "row", text: name }), el("td", { text: number(value, 4) })))),
  );
}

function sourceTurns(turns) {
  if (!turns || !turns.length) return null;
  return el(
    "details",
    { className: "turns" },
    el("summary", { text: `${turns.length} source turn(s)` }),
    el("ol", {}, turns.map((turn) => el("li", {}, el("span", { className: "muted", text: `${turn.speaker || turn.role || ""} ` }), turn.content || ""))),
  );
}

function resultCard(result) {
  const score = el(
    "p",
    { className: "score" },
    el("strong", { text: `score ${number(result.final_score, 4)}` }),
    el("span", { className: "muted", text: ` match ${number(result.match_score, 4)} · ${result.match_type}` }),
    result.state_replaces ? el("span", { className: "muted", text: " · replaces a superseded memory" }) : null,
  );
  return memoryCard(result.memory, score, componentsTable(result.score_components), sourceTurns(result.source_turns));
}

async function search(event) {
  event.preventDefault();
  const target = clear($("search-results"));
  const body = {
    query: $("query").value,
    limit: Number($("search-limit").value) || 10,
    include_source_turns: $("source-turns").checked,
  };
  setStatus("Searching…");
  try {
    const answer = await request("POST", "/recall", body);
    setStatus(`${answer.count} result(s) in ${number(answer.query_time_ms, 1)} ms`);
    if (!answer.results.length) target.append(emptyNote("Nothing stored matches this query."));
    target.append(...answer.results.map(resultCard));
  } catch (error) {
    reportError(error);
  }
}

export function setUpSearch() {
  $("search-form").addEventListener("submit", search);
}
