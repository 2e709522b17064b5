// Browse: GET /memory with its filters, a page at a time (cursor paging).

import { query, request } from "./api.js";
import { $, clear, reportError, setStatus } from "./dom.js";
import { emptyNote, memoryCard } from "./cards.js";

let filters = null;
let cursor = null;

function readFilters() {
  return {
    state: $("browse-state").value,
    type: $("browse-type").value.trim(),
    tags: $("browse-tags").value.trim(),
    sort: $("browse-sort").value,
    order: $("browse-order").value,
    limit: 20,
  };
}

async function loadPage() {
  const more = $("browse-more");
  more.hidden = true;
  try {
    const page = await request("GET", `/memory${query({ ...filters, cursor })}`);
    const target = $("browse-results");
    if (!page.memories.length && !cursor) target.append(emptyNote("No memories match these filters."));
    target.append(...page.memories.map((memory) => memoryCard(memory)));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    setStatus(`${target.querySelectorAll("article").length} memories listed${cursor ? ", more to load" : ""}`);
  } catch (error) {
    reportError(error);
  }
}

export function refreshBrowse() {
  filters = readFilters();
  cursor = null;
  clear($("browse-results"));
  return loadPage();
}

export function setUpBrowse() {
  $("browse-form").addEventListener("submit", (event) => {
    event.preventDefault();
    refreshBrowse();
  });
  $("browse-more").addEventListener("click", loadPage);
}
