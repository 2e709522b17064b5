/** The Engram under test: tests/clients/test_typescript_client.py starts it and sets these. */

import { Engram, type EngramOptions } from "engram-client";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through tests/clients/test_typescript_client.py`);
  return value;
}

export const baseUrl = required("ENGRAM_URL");
/** An Engram without a worker: its /remember jobs stay queued. */
export const idleUrl = required("ENGRAM_IDLE_URL");
export const aliceKey = required("ENGRAM_API_KEY");
export const bobKey = required("ENGRAM_OTHER_API_KEY");

export function alice(options: Partial<EngramOptions> = {}): Engram {
  return new Engram({ baseUrl, apiKey: aliceKey, ...options });
}

export function bob(): Engram {
  return new Engram({ baseUrl, apiKey: bobKey });
}

/** A tag no other test uses, to find this test's memories alone. */
export function uniqueTag(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2, 10)}`;
}
