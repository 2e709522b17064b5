import assert from "node:assert/strict";
import { test } from "node:test";

import { alice, uniqueTag } from "./env.js";

test("recall finds a memory by meaning and keywords, with its filters", async () => {
  const client = alice();
  const tag = uniqueTag("recall");
  const stored = await client.memories.store({ content: "The garage door code is 7781", tags: [tag], type: "Fact" });
  await client.memories.store({ content: "Lunch on Fridays is at the noodle bar", tags: [tag] });

  const found = await client.recall({ query: "garage door code", tags: [tag], limit: 1, expand_relations: false });
  assert.equal(found.results.length, 1);
  assert.equal(found.results[0]?.id, stored.memory_id);
  assert.equal(found.results[0]?.memory.content, "The garage door code is 7781");

  const elsewhere = await client.recall({ query: "garage door code", tags: [uniqueTag("nowhere")] });
  assert.equal(elsewhere.results.length, 0);
  const byType = await client.recall({ query: "garage door code", tags: [tag], type: ["Event"] });
  assert.ok(byType.results.every((item) => item.memory.type === "Event"));
});

test("context is a prompt-ready block naming the memories it holds", async () => {
  const client = alice();
  const tag = uniqueTag("context");
  const stored = await client.memories.store({ content: "Alice is allergic to peanuts", tags: [tag], pinned: true });
  const answer = await client.context({ query: "what is Alice allergic to", max_tokens: 500 });
  assert.match(answer.context, /<memories>/);
  assert.ok(answer.memory_ids.includes(stored.memory_id));
  assert.match(answer.context, /peanuts/);
});

test("startup recall, core and profile answer in their shapes", async () => {
  const client = alice();
  const startup = await client.startupRecall({ session_id: uniqueTag("session") });
  assert.equal(typeof startup.summary, "string");
  assert.ok(Array.isArray(startup.critical_lessons));
  const core = await client.core();
  assert.equal(typeof core.count, "number");
  assert.ok(Array.isArray(core.important));
  const profile = await client.profile();
  assert.equal(typeof profile.count, "number");
  assert.equal(typeof profile.attributes, "object");
});
