import assert from "node:assert/strict";
import { test } from "node:test";

import { BadRequestError, ConflictError, Engram, NotFoundError } from "engram-client";

import { alice, baseUrl, bob, uniqueTag } from "./env.js";

test("a memory is stored, read, updated and deleted with the API's own shapes", async () => {
  const client = alice();
  const tag = uniqueTag("crud");
  const stored = await client.memories.store({ content: "Alice keeps her bike in the shed", tags: [tag] });
  assert.equal(stored.version, 1);

  const { memory } = await client.memories.get(stored.memory_id);
  assert.equal(memory.content, "Alice keeps her bike in the shed");
  assert.deepEqual(memory.tags, [tag]);

  const changed = await client.memories.update(stored.memory_id, { tags: [tag, "bike"], expected_version: 1 });
  assert.equal(changed.version, 2);
  assert.deepEqual(changed.memory.tags, [tag, "bike"]);

  const deleted = await client.memories.delete(stored.memory_id);
  assert.equal(deleted.memory_id, stored.memory_id);
  await assert.rejects(client.memories.get(stored.memory_id), NotFoundError);
});

test("errors carry the envelope's code, kind and message", async () => {
  const client = alice();
  const error = await client.memories.get("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
  assert.ok(error instanceof NotFoundError);
  assert.equal(error.code, 404);
  assert.equal(error.error, "not_found");
  assert.ok(error.message.length > 0);
  assert.ok(error.requestId, "X-Request-Id is kept");

  const bad = await client.memories.store({ content: "" }).catch((e: unknown) => e);
  assert.ok(bad instanceof BadRequestError);
  assert.equal(bad.code, 400);
  assert.match(bad.message, /content/);
});

test("a stale expected_version is a ConflictError", async () => {
  const client = alice();
  const stored = await client.memories.store({ content: "The boat is moored at pier 4" });
  await client.memories.update(stored.memory_id, { content: "The boat is moored at pier 5" });
  const error = await client.memories
    .update(stored.memory_id, { content: "The boat is at pier 6", expected_version: 1 })
    .catch((e: unknown) => e);
  assert.ok(error instanceof ConflictError);
  assert.equal(error.error, "conflict");
});

test("another user's memory is a 404, and a key is needed at all", async () => {
  const stored = await alice().memories.store({ content: "Alice's locker code is 4411" });
  await assert.rejects(bob().memories.get(stored.memory_id), NotFoundError);
  const anonymous = new Engram({ baseUrl });
  await assert.rejects(anonymous.memories.get(stored.memory_id), (e: unknown) => {
    assert.ok(e instanceof Error && "code" in e);
    assert.equal(e.code, 401);
    return true;
  });
});

test("a batch is stored in one call, and list pages through it with the cursor", async () => {
  const client = alice();
  const tag = uniqueTag("batch");
  const batch = await client.memories.storeBatch(
    Array.from({ length: 5 }, (_, i) => ({ content: `Batch fact number ${i}`, tags: [tag] })),
  );
  assert.equal(batch.stored, 5);

  const first = await client.memories.list({ tags: [tag], limit: 2 });
  assert.equal(first.memories.length, 2);
  assert.ok(first.next_cursor);
  const second = await client.memories.list({ tags: [tag], limit: 2, cursor: first.next_cursor });
  assert.equal(second.memories.length, 2);

  const all = [];
  for await (const memory of client.memories.iterate({ tags: [tag], limit: 2, order: "asc" })) all.push(memory);
  assert.deepEqual(new Set(all.map((m) => m.id)), new Set(batch.memory_ids));
  assert.equal(all.length, 5);
});

test("the agent scope: a memory stored as an agent is that agent's", async () => {
  const shared = alice();
  const agent = shared.withAgent("planner");
  const tag = uniqueTag("agent");
  const stored = await agent.memories.store({ content: "The planner prefers short steps", tags: [tag] });
  assert.equal((await agent.memories.get(stored.memory_id)).memory.agent_id, "planner");
  await assert.rejects(shared.memories.get(stored.memory_id), NotFoundError);
  const asCall = await shared.memories.get(stored.memory_id, { agentId: "planner" });
  assert.equal(asCall.memory.id, stored.memory_id);
});
