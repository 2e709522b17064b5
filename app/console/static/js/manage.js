// Making memories: create one (POST /memory); export all of yours (GET /me/export, JSON Lines)
// and import such a file, or a JSON list of memories, as new memories (POST /memory/batch).

import { download, request } from "./api.js";
import { $, plural, reportError, setStatus } from "./dom.js";
import { openMemory } from "./cards.js";

const BATCH = 100; // memories per POST /memory/batch (the API takes up to 500)
const MAX_FILE = 20 * 1024 * 1024;
// The fields an imported memory keeps; ids, versions and scores are the importing server's own.
const KEPT = ["content", "type", "confidence", "importance", "tags", "labels", "metadata", "role", "pinned", "protected", "timestamp", "t_valid", "t_invalid"];

async function create(event, after) {
  event.preventDefault();
  const body = {
    content: $("create-content").value,
    tags: $("create-tags").value.split(",").map((tag) => tag.trim()).filter(Boolean),
    importance: Number($("create-importance").value),
    pinned: $("create-pinned").checked,
  };
  if ($("create-type").value) body.type = $("create-type").value;
  try {
    const created = await request("POST", "/memory", body);
    $("create-form").reset();
    setStatus(`Created ${created.type} memory ${created.memory_id}`);
    document.dispatchEvent(new CustomEvent("console:memories-changed"));
    await after();
    openMemory(created.memory_id);
  } catch (error) {
    reportError(error);
  }
}

async function exportAll() {
  try {
    const blob = await download("/me/export");
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `engram-export-${new Date().toISOString().slice(0, 10)}.jsonl`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    setStatus(`Exported ${plural((await blob.text()).split("\n").filter((line) => line.includes('"memory"')).length, "memory", "memories")}`);
  } catch (error) {
    reportError(error);
  }
}

// The memories a file holds: JSON Lines of GET /me/export (or bare memory objects), or a list.
export function memoriesIn(text) {
  const trimmed = text.trim();
  const items = trimmed.startsWith("[") ? JSON.parse(trimmed) : trimmed.split("\n").filter((line) => line.trim()).map((line, at) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`Line ${at + 1} is not JSON`);
    }
  });
  return items.map((item) => (item && item.memory) || item).filter((item) => item && typeof item.content === "string").map((memory) =>
    Object.fromEntries(KEPT.filter((name) => memory[name] !== undefined && memory[name] !== null).map((name) => [name, memory[name]])));
}

async function importFile(event, after) {
  event.preventDefault();
  const file = $("import-file").files[0];
  const result = $("import-result");
  if (!file) return;
  if (file.size > MAX_FILE) return reportError(new Error(`The file is over ${MAX_FILE / 1048576} MB`));
  try {
    const memories = memoriesIn(await file.text());
    if (!memories.length) throw new Error("No memories in this file");
    let stored = 0;
    for (let at = 0; at < memories.length; at += BATCH) {
      const answer = await request("POST", "/memory/batch", { memories: memories.slice(at, at + BATCH) });
      stored += answer.stored;
    }
    result.textContent = `Imported ${plural(stored, "memory", "memories")} from ${file.name}`;
    setStatus(result.textContent);
    document.dispatchEvent(new CustomEvent("console:memories-changed"));
    await after();
  } catch (error) {
    result.textContent = `Import failed: ${error.message}`;
    reportError(error);
  }
}

export function setUpCreate(after) {
  $("create-form").addEventListener("submit", (event) => create(event, after));
}

export function setUpTransfer(after) {
  $("export").addEventListener("click", exportAll);
  $("import-form").addEventListener("submit", (event) => importFile(event, after));
}
