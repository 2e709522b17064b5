import assert from "node:assert/strict";
import { test } from "node:test";

import { Engram, JobTimeoutError, NotFoundError } from "engram-client";

import { alice, aliceKey, idleUrl, uniqueTag } from "./env.js";

test("remember answers at once; with wait it returns the finished job", async () => {
  const client = alice();
  const session = uniqueTag("session");
  const quick = await client.remember({
    session_id: session,
    messages: [{ role: "user", content: "My sister Maya lives in Porto." }],
  });
  assert.equal(quick.status, "accepted");
  assert.ok(quick.job_id);
  assert.equal(quick.job, undefined);

  const waited = await client.remember(
    { session_id: session, messages: [{ role: "user", content: "I work as a nurse at the city hospital." }] },
    { wait: { timeoutMs: 120_000 } },
  );
  assert.equal(waited.job?.state, "done");
  assert.equal(waited.job?.job_id, waited.job_id);
  assert.ok(waited.job?.result);

  const polled = await client.rememberJob(waited.job_id!);
  assert.equal(polled.state, "done");
});

test("a memoryless remember queues nothing, and wait returns at once", async () => {
  const answer = await alice().remember(
    {
      session_id: uniqueTag("private"),
      messages: [{ role: "user", content: "Do not keep this." }],
      memoryless: true,
    },
    { wait: true },
  );
  assert.equal(answer.status, "memoryless");
  assert.equal(answer.job_id, null);
  assert.equal(answer.job, undefined);
});

test("a job still queued when the wait ends is a JobTimeoutError carrying its state", async () => {
  const client = new Engram({ baseUrl: idleUrl, apiKey: aliceKey });
  const error = await client
    .remember(
      { session_id: uniqueTag("idle"), messages: [{ role: "user", content: "I play the cello." }] },
      { wait: { timeoutMs: 300, intervalMs: 100 } },
    )
    .catch((e: unknown) => e);
  assert.ok(error instanceof JobTimeoutError);
  assert.equal(error.error, "job_timeout");
  assert.equal((error.job as { state: string }).state, "queued");
});

test("waiting for a job that is not yours is a NotFoundError", async () => {
  await assert.rejects(alice().waitForJob("remember:nobody:0000"), NotFoundError);
});
