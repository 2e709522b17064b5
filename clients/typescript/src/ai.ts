/**
 * Engram's memory as tools for the Vercel AI SDK (`ai`): pass them to `generateText` /
 * `streamText` and the model can recall, read context, store and remember on its own.
 *
 *     import { engramTools } from "engram-client/ai";
 *     const tools = engramTools(new Engram({ baseUrl, apiKey }), { sessionId: chat.id });
 *     await generateText({ model, tools, prompt });
 *
 * Each tool is the AI SDK's own `tool()` with a zod input schema; its `execute` calls Engram
 * and returns compact JSON (ids, content, scores) rather than whole records, to spare tokens.
 * Their names and arguments follow Engram's MCP tools (docs/integrations.md).
 */

import { type Tool, type ToolExecutionOptions, tool } from "ai";
import { z } from "zod";

import type { Engram } from "./client.js";
import type { RecallItem } from "./types.js";
import { uuid4 } from "./uuid.js";

export interface EngramToolsOptions {
  /**
   * The conversation `remember` files turns under, and `recall`/`context` favour; one per
   * chat. A random one per `engramTools` call by default.
   */
  sessionId?: string;
}

/**
 * An AI SDK tool whose `execute` is known to be there and to answer `OUTPUT` (the SDK's own
 * type allows a tool without one, or a stream), so that calling it directly is typed.
 */
export type EngramTool<INPUT, OUTPUT> = {
  execute(input: INPUT, options: ToolExecutionOptions): Promise<OUTPUT>;
} & Tool<INPUT, OUTPUT>;

function engramTool<Schema extends z.ZodType, OUTPUT>(definition: {
  description: string;
  inputSchema: Schema;
  execute(input: z.infer<Schema>, options: ToolExecutionOptions): Promise<OUTPUT>;
}): EngramTool<z.infer<Schema>, OUTPUT> {
  // The SDK types `tool()` with conditional types that a generic definition cannot meet; its
  // answer is the definition itself, typed here from the schema and `execute`.
  return tool(definition as unknown as Tool<z.infer<Schema>, OUTPUT>) as EngramTool<z.infer<Schema>, OUTPUT>;
}

const memoryType = z
  .string()
  .describe("Decision, Pattern, Preference, Style, Habit, Insight, Context, Fact or Event.");
const tags = z.array(z.string()).describe("Tags, e.g. project:engram.");
const speaker = z.enum(["user", "assistant"]);

export const recallInput = z.object({
  query: z.string().min(1).describe("What to look for, in plain words."),
  limit: z.number().int().min(1).max(100).optional().describe("Results wanted (default 5)."),
  tags: tags.optional().describe("Only memories with any of these tags."),
  type: z.array(memoryType).optional().describe("Only these memory types."),
  time_query: z.string().optional().describe("e.g. 'yesterday', 'last 3 days', 'in March 2023'."),
});

export const contextInput = z.object({
  query: z.string().describe("What the conversation is about; empty = core memories only."),
  max_tokens: z.number().int().min(50).max(32000).optional().describe("Budget (default 1000)."),
});

export const storeInput = z.object({
  content: z.string().min(1).max(2000).describe("The memory: one self-contained statement."),
  type: memoryType.optional(),
  tags: tags.optional(),
  importance: z.number().min(0).max(1).optional().describe("0–1; 0.5 is normal."),
  pinned: z.boolean().optional().describe("Always part of core memories (identity, standing rules)."),
});

export const rememberInput = z.object({
  messages: z
    .array(z.object({ role: speaker, content: z.string().min(1) }))
    .min(1)
    .describe("The turns, oldest first."),
  role: speaker.optional().describe("Keep only facts about the user or the assistant; absent = both."),
});

/** A recalled memory as the model sees it. */
export interface RecalledMemory {
  id: string;
  score: number;
  content: string;
  type: string;
  tags: string[];
  importance: number;
  timestamp: string;
}

export interface RecallOutput {
  query: string;
  count: number;
  results: RecalledMemory[];
}

export interface ContextOutput {
  context: string;
  memory_ids: string[];
  truncated: boolean;
}

export interface StoreOutput {
  memory_id: string;
  type: string;
  importance: number;
}

export interface RememberOutput {
  status: string;
  job_id: string | null;
  messages: number;
}

export interface ProfileOutput {
  attributes: Record<string, unknown>;
  reflection: string | null;
}

function compact(item: RecallItem): RecalledMemory {
  const { content, type, tags, importance, timestamp } = item.memory;
  return { id: item.id, score: item.score, content, type, tags, importance, timestamp };
}

/** `recall`: memories that answer a query, best first. */
export function recallTool(client: Engram, options: EngramToolsOptions = {}) {
  return engramTool({
    description: "Finds memories by meaning and keywords, best first.",
    inputSchema: recallInput,
    execute: async (input, { abortSignal }): Promise<RecallOutput> => {
      const found = await client.recall(
        { ...definedOnly(input), ...sessionOf(options) },
        { signal: abortSignal },
      );
      const results = found.results.map(compact);
      return { query: input.query, count: results.length, results };
    },
  });
}

/** `context`: a prompt-ready block of what is known (core memories, then what the query recalls). */
export function contextTool(client: Engram, options: EngramToolsOptions = {}) {
  return engramTool({
    description:
      "A prompt-ready block of what is known about the user: core memories, then what the query recalls.",
    inputSchema: contextInput,
    execute: async (input, { abortSignal }): Promise<ContextOutput> => {
      const answer = await client.context(
        { ...definedOnly(input), ...sessionOf(options) },
        { signal: abortSignal },
      );
      return { context: answer.context, memory_ids: answer.memory_ids, truncated: answer.truncated };
    },
  });
}

/** `store`: one memory, kept as given (no extraction). */
export function storeTool(client: Engram) {
  return engramTool({
    description: "Stores one memory as given: one self-contained statement worth keeping.",
    inputSchema: storeInput,
    execute: async (input, { abortSignal }): Promise<StoreOutput> => {
      const stored = await client.memories.store(definedOnly(input), { signal: abortSignal });
      return { memory_id: stored.memory_id, type: stored.type, importance: stored.importance };
    },
  });
}

/** `remember`: conversation turns from which Engram extracts durable facts, in the background. */
export function rememberTool(client: Engram, options: EngramToolsOptions = {}) {
  const sessionId = options.sessionId ?? uuid4();
  return engramTool({
    description:
      "Extracts durable facts from conversation turns and stores them (in the background; " +
      "returns a job id).",
    inputSchema: rememberInput,
    execute: async (input, { abortSignal }): Promise<RememberOutput> => {
      const accepted = await client.remember(
        { ...definedOnly(input), session_id: sessionId },
        { signal: abortSignal },
      );
      return { status: accepted.status ?? "accepted", job_id: accepted.job_id, messages: accepted.messages };
    },
  });
}

/** `profile`: what is known about the user now. */
export function profileTool(client: Engram) {
  return engramTool({
    description: "What is known about the user now: current facts by attribute, and a reflection.",
    inputSchema: z.object({}),
    execute: async (_input, { abortSignal }): Promise<ProfileOutput> => {
      const profile = await client.profile({ signal: abortSignal });
      return { attributes: profile.attributes, reflection: profile.reflection?.content ?? null };
    },
  });
}

// A type, not an interface: the SDK's ToolSet is an index signature, which only types meet.
export type EngramTools = {
  recall: ReturnType<typeof recallTool>;
  context: ReturnType<typeof contextTool>;
  store: ReturnType<typeof storeTool>;
  remember: ReturnType<typeof rememberTool>;
  profile: ReturnType<typeof profileTool>;
};

/** Every Engram tool, named as Engram's MCP tools are; one `sessionId` for the conversation. */
export function engramTools(client: Engram, options: EngramToolsOptions = {}): EngramTools {
  const session = { sessionId: options.sessionId ?? uuid4() };
  return {
    recall: recallTool(client, session),
    context: contextTool(client, session),
    store: storeTool(client),
    remember: rememberTool(client, session),
    profile: profileTool(client),
  };
}

function sessionOf(options: EngramToolsOptions): { session_id?: string } {
  return options.sessionId === undefined ? {} : { session_id: options.sessionId };
}

/** The input without the keys the model left out (so the API's defaults apply). */
function definedOnly<T extends object>(input: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
