// The console's entry point: sign-in (the key is checked against the API before it is kept),
// tabs, and the wiring between the lists and the detail panel.

import { request, session } from "./api.js";
import { $, clear, setStatus } from "./dom.js";
import { refreshBrowse, setUpBrowse } from "./browse.js";
import { setUpEntities, showEntity } from "./entities.js";
import { setUpSearch } from "./search.js";
import { showMemory } from "./detail.js";

function showSignedIn(signedIn) {
  $("sign-in").hidden = signedIn;
  $("console").hidden = !signedIn;
  $("sign-out").hidden = !signedIn;
  $("whoami").textContent = signedIn ? `signed in${session.agent() ? ` as agent ${session.agent()}` : ""}` : "";
}

async function signIn(event) {
  event.preventDefault();
  const credentials = { key: $("key").value.trim(), agent: $("agent").value.trim() };
  const error = $("sign-in-error");
  error.textContent = "";
  try {
    await request("GET", "/memory?limit=1", undefined, credentials);
  } catch (failure) {
    error.textContent = failure.status === 401 || failure.status === 403
      ? `Sign-in failed: ${failure.message}`
      : `Sign-in failed (${failure.status || "network"}): ${failure.message}`;
    return;
  }
  session.save(credentials.key, credentials.agent);
  $("key").value = "";
  showSignedIn(true);
  setStatus("Signed in");
}

function signOut() {
  session.clear();
  clear($("search-results"));
  clear($("browse-results"));
  clear($("entity-results"));
  $("query").value = "";
  $("detail").hidden = true;
  selectTab("search");
  showSignedIn(false);
  setStatus("Signed out");
}

function selectTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute("aria-selected", String(selected));
    $(`tab-${tab.dataset.tab}`).hidden = !selected;
  }
  if (name === "browse" && !$("browse-results").childElementCount) refreshBrowse();
}

function start() {
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", signOut);
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => selectTab(tab.dataset.tab));
  }
  setUpSearch();
  setUpBrowse();
  setUpEntities();
  document.addEventListener("console:open-memory", (event) => showMemory(event.detail.id));
  document.addEventListener("console:open-entity", (event) => {
    selectTab("entities");
    showEntity(event.detail.slug);
  });
  document.addEventListener("console:key-refused", () => {
    signOut();
    $("sign-in-error").textContent = "The key was refused; sign in again.";
  });
  showSignedIn(Boolean(session.key()));
}

start();
