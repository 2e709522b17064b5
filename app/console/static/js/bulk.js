// One action on many memories, each through the public API (PATCH or DELETE /memory/{id}),
// a few at a time. A tag is added to the tags a memory has, with expected_version, so an edit
// made meanwhile is not overwritten.

import { eachOf, memoryPath, request } from "./api.js";

const WIDTH = 4;

const PATCHES = {
  archive: { archived: true },
  restore: { archived: false },
  pin: { pinned: true },
  unpin: { pinned: false },
};

const WORDS = {
  archive: ["Archive", "Archived"],
  restore: ["Restore", "Restored"],
  pin: ["Pin", "Pinned"],
  unpin: ["Unpin", "Unpinned"],
  delete: ["Delete", "Deleted"],
  tag: ["Tag", "Tagged"],
};

export function describe(action, tag, done = false) {
  const word = WORDS[action][done ? 1 : 0];
  return action === "tag" ? `${word} “${tag}” on` : word;
}

async function addTag(id, tag) {
  const { memory } = await request("GET", memoryPath(id));
  if ((memory.tags || []).some((held) => held.toLowerCase() === tag.toLowerCase())) return;
  await request("PATCH", memoryPath(id), { tags: [...memory.tags, tag], expected_version: memory.version });
}

function work(action, tag) {
  if (action === "delete") return (id) => request("DELETE", memoryPath(id));
  if (action === "tag") return (id) => addTag(id, tag);
  return (id) => request("PATCH", memoryPath(id), PATCHES[action]);
}

export async function applyToMany(action, ids, tag) {
  const outcomes = await eachOf(ids, WIDTH, work(action, tag));
  const failed = outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.error.message);
  return { done: ids.length - failed.length, failed };
}
