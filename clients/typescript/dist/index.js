export { Artifacts, Engram, Memories } from "./client.js";
export * from "./errors.js";
