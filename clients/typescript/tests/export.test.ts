import assert from "node:assert/strict";
import { test } from "node:test";

import { alice, uniqueTag } from "./env.js";

test("export streams every memory of the user, of every agent, as parsed lines", async () => {
  const client = alice();
  const tag = uniqueTag("export");
  const shared = await client.memories.store({ content: "Exported shared memory", tags: [tag] });
  const agents = await client.withAgent("exporter").memories.store({ content: "Exported agent memory", tags: [tag] });

  const ids = new Set<string>();
  for await (const line of client.withAgent("exporter").export()) {
    assert.equal(line.format, "engram-export");
    const id = line.memory?.["id"];
    if (typeof id === "string") ids.add(id);
  }
  assert.ok(ids.has(shared.memory_id));
  assert.ok(ids.has(agents.memory_id));
});

test("stopping early cancels the download", async () => {
  const client = alice();
  await client.memories.store({ content: "One more line to export" });
  await client.memories.store({ content: "And another line to export" });
  let lines = 0;
  for await (const _line of client.export()) {
    lines += 1;
    break;
  }
  assert.equal(lines, 1);
  const stream = await client.exportStream();
  const text = await new Response(stream).text();
  assert.ok(text.trim().split("\n").length >= 2);
});
