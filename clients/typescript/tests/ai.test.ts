/**
 * The Vercel AI SDK tools against a live Engram, with no model: called directly as the SDK calls
 * them (`execute(input, options)`), and run by the SDK's own `generateText` with a scripted
 * stand-in for the model (the SDK's MockLanguageModelV3) that asks for a tool call.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { generateText, stepCountIs, type ToolExecutionOptions } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { engramTools, recallInput, storeInput } from "engram-client/ai";

import { alice, uniqueTag } from "./env.js";

const call: ToolExecutionOptions = { toolCallId: "call-1", messages: [] };

test("store, then recall and context find what was stored", async () => {
  const tools = engramTools(alice(), { sessionId: uniqueTag("chat") });
  const tag = uniqueTag("ai");
  const stored = await tools.store.execute(
    storeInput.parse({ content: "Alice's favourite tea is genmaicha", tags: [tag], type: "Preference" }),
    call,
  );
  assert.ok(stored.memory_id);
  assert.equal(stored.type, "Preference");

  const found = await tools.recall.execute(recallInput.parse({ query: "favourite tea", tags: [tag], limit: 3 }), call);
  assert.equal(found.results[0]?.id, stored.memory_id);
  assert.equal(found.results[0]?.content, "Alice's favourite tea is genmaicha");

  const context = await tools.context.execute({ query: "which tea does Alice like" }, call);
  assert.ok(context.memory_ids.includes(stored.memory_id));
  assert.match(context.context, /genmaicha/);
});

test("remember files the turns under the tools' session and returns the job", async () => {
  const client = alice();
  const tools = engramTools(client, { sessionId: uniqueTag("chat") });
  const accepted = await tools.remember.execute(
    { messages: [{ role: "user", content: "I have a cat called Miso." }] },
    call,
  );
  assert.equal(accepted.status, "accepted");
  assert.ok(accepted.job_id);
  const job = await client.waitForJob(accepted.job_id, { timeoutMs: 120_000 });
  assert.equal(job.state, "done");
});

test("profile answers, and the schemas refuse what the API would", async () => {
  const tools = engramTools(alice());
  const profile = await tools.profile.execute({}, call);
  assert.equal(typeof profile.attributes, "object");
  assert.equal(recallInput.safeParse({ query: "" }).success, false);
  assert.equal(storeInput.safeParse({ content: "x".repeat(2001) }).success, false);
});

test("generateText runs the recall tool the model asked for, through the SDK", async () => {
  const client = alice();
  const tag = uniqueTag("sdk");
  const stored = await client.memories.store({ content: "The team standup is at 9:15", tags: [tag] });
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          {
            type: "tool-call",
            toolCallId: "call-standup",
            toolName: "recall",
            input: JSON.stringify({ query: "team standup time", tags: [tag] }),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "The standup is at 9:15." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });

  const result = await generateText({
    model,
    tools: engramTools(client),
    stopWhen: stepCountIs(3),
    prompt: "When is the standup?",
  });

  const [toolResult] = result.steps[0]?.toolResults ?? [];
  assert.equal(toolResult?.toolName, "recall");
  const output = toolResult?.output as { results: { id: string }[] };
  assert.equal(output.results[0]?.id, stored.memory_id);
  assert.equal(result.text, "The standup is at 9:15.");
  // The model's second turn was given the tool's answer.
  assert.match(JSON.stringify(model.doGenerateCalls[1]?.prompt), /9:15/);
});
