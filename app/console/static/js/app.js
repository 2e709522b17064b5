// The console's entry point: sign-in (the key is checked against the API before it is kept),
// tabs, and the wiring between the views and the detail panel. A user's key opens the user's
// views; the admin key opens the operator's (read-only) view of the users.

import { ApiError, request, session } from "./api.js";
import { $, clear, setStatus } from "./dom.js";
import { forgetSelection, refreshBrowse, setUpBrowse } from "./browse.js";
import { setUpEntities, showEntity } from "./entities.js";
import { setUpSearch } from "./search.js";
import { showMemory } from "./detail.js";
import { refreshOverview, setUpOverview } from "./overview.js";
import { refreshTimeline, setUpTimeline } from "./timeline.js";
import { refreshConversations } from "./conversations.js";
import { drawGraph, setUpGraph } from "./graph.js";
import { refreshUsers } from "./operator.js";

const RESULTS = ["overview", "search-results", "browse-results", "entity-results", "timeline", "session-list", "session", "profile", "core", "graph-nodes", "users", "user-view", "browse-total"];
// What a view fetches the first time it is shown (and again on its own Refresh).
const FIRST_LOOK = {
  overview: () => refreshOverview(),
  browse: () => refreshBrowse(),
  timeline: () => refreshTimeline(),
  conversations: () => refreshConversations(),
  graph: () => drawGraph(),
  users: () => refreshUsers(),
};
const shown = new Set();

function showSignedIn(signedIn) {
  const mode = session.mode();
  $("sign-in").hidden = signedIn;
  $("console").hidden = !signedIn;
  $("sign-out").hidden = !signedIn;
  for (const tab of document.querySelectorAll("[role=tab]")) tab.hidden = signedIn && tab.dataset.for !== mode;
  const who = mode === "operator" ? "signed in as the operator (read-only)" : `signed in${session.agent() ? ` as agent ${session.agent()}` : ""}`;
  $("whoami").textContent = signedIn ? who : "";
  if (signedIn) selectTab(mode === "operator" ? "users" : "overview");
}

// A user's key lists memories; the admin key is refused there (403) and lists users instead.
async function modeOf(credentials) {
  try {
    await request("GET", "/memory?limit=1", undefined, credentials);
    return "user";
  } catch (failure) {
    if (!(failure instanceof ApiError) || failure.status !== 403) throw failure;
    await request("GET", "/admin/users", undefined, credentials).catch(() => { throw failure; });
    return "operator";
  }
}

async function signIn(event) {
  event.preventDefault();
  const credentials = { key: $("key").value.trim(), agent: $("agent").value.trim() };
  const error = $("sign-in-error");
  error.textContent = "";
  let mode;
  try {
    mode = await modeOf(credentials);
  } catch (failure) {
    error.textContent = failure.status === 401 || failure.status === 403
      ? `Sign-in failed: ${failure.message}`
      : `Sign-in failed (${failure.status || "network"}): ${failure.message}`;
    return;
  }
  session.save(credentials.key, credentials.agent, mode);
  $("key").value = "";
  showSignedIn(true);
  setStatus(mode === "operator" ? "Signed in as the operator" : "Signed in");
}

function signOut() {
  session.clear();
  for (const id of RESULTS) clear($(id));
  forgetSelection();
  shown.clear();
  $("query").value = "";
  $("detail").hidden = true;
  showSignedIn(false);
  setStatus("Signed out");
}

function selectTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`tab-${tab.dataset.tab}`).hidden = !selected;
  }
  if (!shown.has(name) && FIRST_LOOK[name]) {
    shown.add(name);
    FIRST_LOOK[name]();
  }
}

// Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab moves into the view.
function tabKeys(event) {
  const tabs = [...document.querySelectorAll("[role=tab]")].filter((tab) => !tab.hidden);
  const at = tabs.indexOf(document.activeElement);
  if (at < 0 || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
  event.preventDefault();
  const next = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: tabs.length - 1 }[event.key];
  const tab = tabs[(next + tabs.length) % tabs.length];
  tab.focus();
  selectTab(tab.dataset.tab);
}

function start() {
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", signOut);
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => selectTab(tab.dataset.tab));
  }
  document.querySelector("[role=tablist]").addEventListener("keydown", tabKeys);
  setUpOverview();
  setUpSearch();
  setUpBrowse();
  setUpTimeline();
  setUpGraph();
  setUpEntities();
  document.addEventListener("console:open-memory", (event) => showMemory(event.detail.id));
  document.addEventListener("console:open-entity", (event) => {
    selectTab("entities");
    showEntity(event.detail.slug);
  });
  // An edit elsewhere makes the counts, the timeline and the picture stale: fetch them again
  // when next shown.
  document.addEventListener("console:memories-changed", () => {
    for (const name of ["overview", "timeline", "conversations", "graph"]) shown.delete(name);
  });
  document.addEventListener("console:key-refused", () => {
    signOut();
    $("sign-in-error").textContent = "The key was refused; sign in again.";
  });
  showSignedIn(Boolean(session.key()));
}

start();
