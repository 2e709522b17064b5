import assert from "node:assert/strict";
import { test } from "node:test";

import { EngramConnectionError, type Fetch } from "engram-client";

import { alice, uniqueTag } from "./env.js";

/**
 * A network that delivers the first request to Engram and then loses its answer (as a reset
 * connection or a time-out does): Engram has done the work, the client does not know.
 */
function losingFirstAnswer(): { fetch: Fetch; sent: Headers[] } {
  const sent: Headers[] = [];
  const fetch: Fetch = async (input, init) => {
    sent.push(new Headers(init.headers));
    const response = await globalThis.fetch(input, init);
    if (sent.length === 1) {
      await response.arrayBuffer();
      throw new TypeError("fetch failed: connection reset");
    }
    return response;
  };
  return { fetch, sent };
}

test("a store whose answer was lost is retried with its Idempotency-Key and stored once", async () => {
  const network = losingFirstAnswer();
  const client = alice({ fetch: network.fetch });
  const tag = uniqueTag("retry");
  const stored = await client.memories.store({ content: "The spare key is under the blue pot", tags: [tag] });

  assert.equal(network.sent.length, 2);
  const keys = network.sent.map((headers) => headers.get("Idempotency-Key"));
  assert.ok(keys[0]);
  assert.equal(keys[0], keys[1]);
  const listed = await alice().memories.list({ tags: [tag] });
  assert.deepEqual(
    listed.memories.map((m) => m.id),
    [stored.memory_id],
  );
});

test("a batch and a remember are retried the same way", async () => {
  const tag = uniqueTag("retry-batch");
  const batchNetwork = losingFirstAnswer();
  const batch = await alice({ fetch: batchNetwork.fetch }).memories.storeBatch([
    { content: "Retry fact one", tags: [tag] },
    { content: "Retry fact two", tags: [tag] },
  ]);
  assert.equal(batchNetwork.sent.length, 2);
  assert.equal((await alice().memories.list({ tags: [tag] })).count, batch.stored);

  const rememberNetwork = losingFirstAnswer();
  const accepted = await alice({ fetch: rememberNetwork.fetch }).remember({
    session_id: uniqueTag("retry-session"),
    messages: [{ role: "user", content: "I moved to Lisbon last spring." }],
  });
  assert.equal(rememberNetwork.sent.length, 2);
  assert.ok(accepted.job_id);
});

test("one key given by the caller makes two calls one", async () => {
  const client = alice();
  const idempotencyKey = `caller-${uniqueTag("key")}`;
  const first = await client.memories.store({ content: "Order 1182 shipped on Monday" }, { idempotencyKey });
  const again = await client.memories.store({ content: "Order 1182 shipped on Monday" }, { idempotencyKey });
  assert.equal(again.memory_id, first.memory_id);
});

test("an update whose answer was lost is not repeated: it has no Idempotency-Key", async () => {
  const stored = await alice().memories.store({ content: "The meeting room is 3B" });
  const network = losingFirstAnswer();
  const client = alice({ fetch: network.fetch, maxRetries: 3 });
  await assert.rejects(
    client.memories.update(stored.memory_id, { content: "The meeting room is 4C" }),
    EngramConnectionError,
  );
  assert.equal(network.sent.length, 1);
  assert.equal(network.sent[0]?.get("Idempotency-Key"), null);
  assert.equal((await alice().memories.get(stored.memory_id)).memory.version, 2);
});

test("reads are retried after a lost answer", async () => {
  const stored = await alice().memories.store({ content: "The wifi password is on the fridge" });
  const network = losingFirstAnswer();
  const found = await alice({ fetch: network.fetch }).memories.get(stored.memory_id);
  assert.equal(found.memory.id, stored.memory_id);
  assert.equal(network.sent.length, 2);
});

test("an unreachable Engram is an EngramConnectionError after the retries", async () => {
  let calls = 0;
  const refused: Fetch = async () => {
    calls += 1;
    throw new TypeError("fetch failed: ECONNREFUSED");
  };
  const client = alice({ fetch: refused, maxRetries: 1 });
  const error = await client.memories.get("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
  assert.ok(error instanceof EngramConnectionError);
  assert.equal(error.code, 0);
  assert.equal(calls, 2);
});

test("a call the caller aborts is not retried and rejects with the abort's reason", async () => {
  let calls = 0;
  const counting: Fetch = async (input, init) => {
    calls += 1;
    return globalThis.fetch(input, init);
  };
  const client = alice({ fetch: counting, maxRetries: 3 });
  const error = await client.memories
    .store({ content: "Never stored" }, { signal: AbortSignal.abort() })
    .catch((e: unknown) => e);
  assert.ok(!(error instanceof EngramConnectionError));
  assert.equal((error as Error).name, "AbortError");
  assert.ok(calls <= 1);
});
