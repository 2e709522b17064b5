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
import { tool } from "ai";
import { z } from "zod";
import { uuid4 } from "./uuid.js";
function engramTool(definition) {
    // The SDK types `tool()` with conditional types that a generic definition cannot meet; its
    // answer is the definition itself, typed here from the schema and `execute`.
    return tool(definition);
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
function compact(item) {
    const { content, type, tags, importance, timestamp } = item.memory;
    return { id: item.id, score: item.score, content, type, tags, importance, timestamp };
}
/** `recall`: memories that answer a query, best first. */
export function recallTool(client, options = {}) {
    return engramTool({
        description: "Finds memories by meaning and keywords, best first.",
        inputSchema: recallInput,
        execute: async (input, { abortSignal }) => {
            const found = await client.recall({ ...definedOnly(input), ...sessionOf(options) }, { signal: abortSignal });
            const results = found.results.map(compact);
            return { query: input.query, count: results.length, results };
        },
    });
}
/** `context`: a prompt-ready block of what is known (core memories, then what the query recalls). */
export function contextTool(client, options = {}) {
    return engramTool({
        description: "A prompt-ready block of what is known about the user: core memories, then what the query recalls.",
        inputSchema: contextInput,
        execute: async (input, { abortSignal }) => {
            const answer = await client.context({ ...definedOnly(input), ...sessionOf(options) }, { signal: abortSignal });
            return { context: answer.context, memory_ids: answer.memory_ids, truncated: answer.truncated };
        },
    });
}
/** `store`: one memory, kept as given (no extraction). */
export function storeTool(client) {
    return engramTool({
        description: "Stores one memory as given: one self-contained statement worth keeping.",
        inputSchema: storeInput,
        execute: async (input, { abortSignal }) => {
            const stored = await client.memories.store(definedOnly(input), { signal: abortSignal });
            return { memory_id: stored.memory_id, type: stored.type, importance: stored.importance };
        },
    });
}
/** `remember`: conversation turns from which Engram extracts durable facts, in the background. */
export function rememberTool(client, options = {}) {
    const sessionId = options.sessionId ?? uuid4();
    return engramTool({
        description: "Extracts durable facts from conversation turns and stores them (in the background; " +
            "returns a job id).",
        inputSchema: rememberInput,
        execute: async (input, { abortSignal }) => {
            const accepted = await client.remember({ ...definedOnly(input), session_id: sessionId }, { signal: abortSignal });
            return { status: accepted.status ?? "accepted", job_id: accepted.job_id, messages: accepted.messages };
        },
    });
}
/** `profile`: what is known about the user now. */
export function profileTool(client) {
    return engramTool({
        description: "What is known about the user now: current facts by attribute, and a reflection.",
        inputSchema: z.object({}),
        execute: async (_input, { abortSignal }) => {
            const profile = await client.profile({ signal: abortSignal });
            return { attributes: profile.attributes, reflection: profile.reflection?.content ?? null };
        },
    });
}
/** Every Engram tool, named as Engram's MCP tools are; one `sessionId` for the conversation. */
export function engramTools(client, options = {}) {
    const session = { sessionId: options.sessionId ?? uuid4() };
    return {
        recall: recallTool(client, session),
        context: contextTool(client, session),
        store: storeTool(client),
        remember: rememberTool(client, session),
        profile: profileTool(client),
    };
}
function sessionOf(options) {
    return options.sessionId === undefined ? {} : { session_id: options.sessionId };
}
/** The input without the keys the model left out (so the API's defaults apply). */
function definedOnly(input) {
    return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}
