export { Artifacts, Engram, Memories } from "./client.js";
export type { EngramOptions, RememberOptions, Remembered, Upload, WaitOptions } from "./client.js";
export * from "./errors.js";
export type { Fetch, RequestOptions, TransportOptions } from "./transport.js";
export type * from "./types.js";
