// Browse: GET /memory with its filters and total, a page at a time (cursor paging); select
// memories by hand or every one the filters match, and archive, restore, pin, unpin, tag or
// delete them in one action after a confirmation that says how many.

import { query, request } from "./api.js";
import { $, clear, el, plural, reportError, setStatus } from "./dom.js";
import { emptyNote, memoryCard } from "./cards.js";
import { applyToMany, describe } from "./bulk.js";
import { setUpCreate, setUpTransfer } from "./manage.js";

const PAGE = 20;
const MATCHING_CAP = 1000; // memories "select all matching" gathers at most

let filters = null;
let cursor = null;
const selected = new Set();
let pending = null; // the bulk action waiting for its confirmation

function readFilters() {
  return {
    state: $("browse-state").value,
    text: $("browse-text").value.trim(),
    agent: $("browse-agent").value.trim(),
    type: $("browse-type").value.trim(),
    tags: $("browse-tags").value.trim(),
    sort: $("browse-sort").value,
    order: $("browse-order").value,
  };
}

function showSelection() {
  $("selected-count").textContent = `${selected.size} selected`;
  for (const button of document.querySelectorAll(".bulk-action")) button.disabled = selected.size === 0;
  const boxes = [...document.querySelectorAll("#browse-results input.select")];
  $("select-page").checked = boxes.length > 0 && boxes.every((box) => box.checked);
}

function selectable(memory) {
  const box = el("input", { type: "checkbox", className: "select", "aria-label": `Select ${memory.content.slice(0, 60)}` });
  box.checked = selected.has(memory.id);
  box.addEventListener("change", () => {
    if (box.checked) selected.add(memory.id);
    else selected.delete(memory.id);
    showSelection();
  });
  const card = memoryCard(memory);
  card.prepend(box);
  return card;
}

async function loadPage() {
  const more = $("browse-more");
  more.hidden = true;
  try {
    const page = await request("GET", `/memory${query({ ...filters, cursor, limit: PAGE, include_total: cursor ? "" : "true" })}`);
    const target = $("browse-results");
    if (!page.memories.length && !cursor) target.append(emptyNote("No memories match these filters."));
    target.append(...page.memories.map(selectable));
    if (!cursor) $("browse-total").textContent = `${plural(page.total, "memory", "memories")} match`;
    cursor = page.next_cursor;
    more.hidden = !cursor;
    const listed = target.querySelectorAll("article").length;
    setStatus(`${listed} memories listed${cursor ? ", more to load" : ""}`);
    showSelection();
  } catch (error) {
    reportError(error);
  }
}

export function refreshBrowse() {
  filters = readFilters();
  cursor = null;
  clear($("browse-results"));
  showSelection();
  return loadPage();
}

async function selectMatching() {
  let after = null;
  try {
    do {
      const page = await request("GET", `/memory${query({ ...filters, cursor: after, limit: 200 })}`);
      for (const memory of page.memories) selected.add(memory.id);
      after = page.next_cursor;
    } while (after && selected.size < MATCHING_CAP);
  } catch (error) {
    reportError(error);
  }
  for (const box of document.querySelectorAll("#browse-results input.select")) box.checked = true;
  showSelection();
  setStatus(`${plural(selected.size, "memory", "memories")} selected${after ? ` (the first ${MATCHING_CAP})` : ""}`);
}

function selectPage() {
  const on = $("select-page").checked;
  for (const box of document.querySelectorAll("#browse-results input.select")) {
    box.checked = on;
    const id = box.closest("article").dataset.id;
    if (on) selected.add(id);
    else selected.delete(id);
  }
  showSelection();
}

function ask(action) {
  const tag = $("bulk-tag").value.trim();
  if (action === "tag" && !tag) return setStatus("Type the tag to add first", true);
  pending = { action, tag, ids: [...selected] };
  $("bulk-question").textContent = `${describe(action, tag)} ${plural(pending.ids.length, "memory", "memories")}?`;
  $("bulk-confirm").hidden = false;
  $("bulk-yes").focus();
}

async function confirmed() {
  const { action, tag, ids } = pending;
  pending = null;
  $("bulk-confirm").hidden = true;
  setStatus(`${describe(action, tag)} ${plural(ids.length, "memory", "memories")}…`);
  const report = await applyToMany(action, ids, tag);
  selected.clear();
  await refreshBrowse();
  document.dispatchEvent(new CustomEvent("console:memories-changed"));
  const failed = report.failed.length ? `; ${report.failed.length} failed: ${report.failed[0]}` : "";
  setStatus(`${describe(action, tag, true)} ${plural(report.done, "memory", "memories")}${failed}`, Boolean(report.failed.length));
}

// Signing out forgets the selection: the next key's user must not act on these ids.
export function forgetSelection() {
  selected.clear();
  pending = null;
  $("bulk-confirm").hidden = true;
  showSelection();
}

export function setUpBrowse() {
  $("browse-form").addEventListener("submit", (event) => {
    event.preventDefault();
    selected.clear();
    refreshBrowse();
  });
  $("browse-more").addEventListener("click", loadPage);
  $("select-page").addEventListener("change", selectPage);
  $("select-matching").addEventListener("click", selectMatching);
  for (const button of document.querySelectorAll(".bulk-action")) button.addEventListener("click", () => ask(button.dataset.action));
  $("bulk-yes").addEventListener("click", confirmed);
  $("bulk-no").addEventListener("click", () => {
    pending = null;
    $("bulk-confirm").hidden = true;
    setStatus("Nothing changed");
  });
  setUpCreate(refreshBrowse);
  setUpTransfer(refreshBrowse);
}
