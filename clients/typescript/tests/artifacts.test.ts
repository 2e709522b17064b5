import assert from "node:assert/strict";
import { test } from "node:test";

import { UnsupportedMediaTypeError } from "engram-client";

import { alice } from "./env.js";

test("a text artifact is saved, listed, read in pages, downloaded and deleted", async () => {
  const client = alice();
  const { memory_id } = await client.memories.store({ content: "Notes from the planning meeting" });
  const text = "Agenda: budget. ".repeat(40);
  const saved = await client.artifacts.save(memory_id, { filename: "notes.txt", content: text });
  assert.equal(saved.artifact.filename, "notes.txt");
  assert.equal(saved.artifact.size, text.length);

  const listed = await client.artifacts.list(memory_id);
  assert.deepEqual(
    listed.artifacts.map((a) => a.id),
    [saved.artifact.id],
  );

  const page = await client.artifacts.read(memory_id, saved.artifact.id, { offset: 0, limit: 100 });
  assert.equal(page.content, text.slice(0, 100));
  assert.equal(page.next_offset, 100);
  assert.equal(page.total_chars, text.length);

  const bytes = await client.artifacts.download(memory_id, saved.artifact.id);
  assert.equal(new TextDecoder().decode(bytes), text);

  const link = await client.artifacts.url(memory_id, saved.artifact.id, { expires_in: 120 });
  const anonymous = await fetch(link.url);
  assert.equal(anonymous.status, 200);
  assert.equal(await anonymous.text(), text);

  await client.artifacts.delete(memory_id, saved.artifact.id);
  assert.equal((await client.artifacts.list(memory_id)).count, 0);
});

test("bytes are uploaded as multipart and come back unchanged", async () => {
  const client = alice();
  const { memory_id } = await client.memories.store({ content: "The floor plan of the flat" });
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
  const saved = await client.artifacts.upload(memory_id, bytes, {
    filename: "plan.bin",
    contentType: "application/octet-stream",
  });
  assert.equal(saved.artifact.content_type, "application/octet-stream");
  assert.equal(saved.artifact.size, bytes.length);
  assert.deepEqual(await client.artifacts.download(memory_id, saved.artifact.id), bytes);

  const refused = await client.artifacts
    .upload(memory_id, new Blob(["PK"]), { filename: "archive.zip", contentType: "application/zip" })
    .catch((e: unknown) => e);
  assert.ok(refused instanceof UnsupportedMediaTypeError);
  assert.equal(refused.code, 415);
});
