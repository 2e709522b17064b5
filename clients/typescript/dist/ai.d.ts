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
import { type Tool, type ToolExecutionOptions } from "ai";
import { z } from "zod";
import type { Engram } from "./client.js";
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
export declare const recallInput: z.ZodObject<{
    query: z.ZodString;
    limit: z.ZodOptional<z.ZodNumber>;
    tags: z.ZodOptional<z.ZodArray<z.ZodString>>;
    type: z.ZodOptional<z.ZodArray<z.ZodString>>;
    time_query: z.ZodOptional<z.ZodString>;
}, z.core.$strip>;
export declare const contextInput: z.ZodObject<{
    query: z.ZodString;
    max_tokens: z.ZodOptional<z.ZodNumber>;
}, z.core.$strip>;
export declare const storeInput: z.ZodObject<{
    content: z.ZodString;
    type: z.ZodOptional<z.ZodString>;
    tags: z.ZodOptional<z.ZodArray<z.ZodString>>;
    importance: z.ZodOptional<z.ZodNumber>;
    pinned: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strip>;
export declare const rememberInput: z.ZodObject<{
    messages: z.ZodArray<z.ZodObject<{
        role: z.ZodEnum<{
            user: "user";
            assistant: "assistant";
        }>;
        content: z.ZodString;
    }, z.core.$strip>>;
    role: z.ZodOptional<z.ZodEnum<{
        user: "user";
        assistant: "assistant";
    }>>;
}, z.core.$strip>;
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
/** `recall`: memories that answer a query, best first. */
export declare function recallTool(client: Engram, options?: EngramToolsOptions): ({
    execute(input: {
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, options: ToolExecutionOptions): Promise<RecallOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, RecallOutput>;
    outputSchema?: import("ai").FlexibleSchema<RecallOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
        output: NoInfer<RecallOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type?: undefined | "function";
}) | ({
    execute(input: {
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, options: ToolExecutionOptions): Promise<RecallOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, RecallOutput>;
    outputSchema?: import("ai").FlexibleSchema<RecallOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
        output: NoInfer<RecallOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "dynamic";
}) | ({
    execute(input: {
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, options: ToolExecutionOptions): Promise<RecallOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
        type?: string[] | undefined;
        time_query?: string | undefined;
    }, RecallOutput>;
    outputSchema?: import("ai").FlexibleSchema<RecallOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            limit?: number | undefined;
            tags?: string[] | undefined;
            type?: string[] | undefined;
            time_query?: string | undefined;
        };
        output: NoInfer<RecallOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "provider";
    id: `${string}.${string}`;
    args: Record<string, unknown>;
    supportsDeferredResults?: boolean;
});
/** `context`: a prompt-ready block of what is known (core memories, then what the query recalls). */
export declare function contextTool(client: Engram, options?: EngramToolsOptions): ({
    execute(input: {
        query: string;
        max_tokens?: number | undefined;
    }, options: ToolExecutionOptions): Promise<ContextOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            max_tokens?: number | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        max_tokens?: number | undefined;
    }, ContextOutput>;
    outputSchema?: import("ai").FlexibleSchema<ContextOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
        output: NoInfer<ContextOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type?: undefined | "function";
}) | ({
    execute(input: {
        query: string;
        max_tokens?: number | undefined;
    }, options: ToolExecutionOptions): Promise<ContextOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            max_tokens?: number | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        max_tokens?: number | undefined;
    }, ContextOutput>;
    outputSchema?: import("ai").FlexibleSchema<ContextOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
        output: NoInfer<ContextOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "dynamic";
}) | ({
    execute(input: {
        query: string;
        max_tokens?: number | undefined;
    }, options: ToolExecutionOptions): Promise<ContextOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            query: string;
            max_tokens?: number | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        query: string;
        max_tokens?: number | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        query: string;
        max_tokens?: number | undefined;
    }, ContextOutput>;
    outputSchema?: import("ai").FlexibleSchema<ContextOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            query: string;
            max_tokens?: number | undefined;
        };
        output: NoInfer<ContextOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "provider";
    id: `${string}.${string}`;
    args: Record<string, unknown>;
    supportsDeferredResults?: boolean;
});
/** `store`: one memory, kept as given (no extraction). */
export declare function storeTool(client: Engram): ({
    execute(input: {
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, options: ToolExecutionOptions): Promise<StoreOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, StoreOutput>;
    outputSchema?: import("ai").FlexibleSchema<StoreOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
        output: NoInfer<StoreOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type?: undefined | "function";
}) | ({
    execute(input: {
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, options: ToolExecutionOptions): Promise<StoreOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, StoreOutput>;
    outputSchema?: import("ai").FlexibleSchema<StoreOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
        output: NoInfer<StoreOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "dynamic";
}) | ({
    execute(input: {
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, options: ToolExecutionOptions): Promise<StoreOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        content: string;
        type?: string | undefined;
        tags?: string[] | undefined;
        importance?: number | undefined;
        pinned?: boolean | undefined;
    }, StoreOutput>;
    outputSchema?: import("ai").FlexibleSchema<StoreOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            content: string;
            type?: string | undefined;
            tags?: string[] | undefined;
            importance?: number | undefined;
            pinned?: boolean | undefined;
        };
        output: NoInfer<StoreOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "provider";
    id: `${string}.${string}`;
    args: Record<string, unknown>;
    supportsDeferredResults?: boolean;
});
/** `remember`: conversation turns from which Engram extracts durable facts, in the background. */
export declare function rememberTool(client: Engram, options?: EngramToolsOptions): ({
    execute(input: {
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, options: ToolExecutionOptions): Promise<RememberOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, RememberOutput>;
    outputSchema?: import("ai").FlexibleSchema<RememberOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
        output: NoInfer<RememberOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type?: undefined | "function";
}) | ({
    execute(input: {
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, options: ToolExecutionOptions): Promise<RememberOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, RememberOutput>;
    outputSchema?: import("ai").FlexibleSchema<RememberOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
        output: NoInfer<RememberOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "dynamic";
}) | ({
    execute(input: {
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, options: ToolExecutionOptions): Promise<RememberOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    inputExamples?: {
        input: NoInfer<{
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        }>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<{
        messages: {
            role: "user" | "assistant";
            content: string;
        }[];
        role?: "user" | "assistant" | undefined;
    }, RememberOutput>;
    outputSchema?: import("ai").FlexibleSchema<RememberOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: {
            messages: {
                role: "user" | "assistant";
                content: string;
            }[];
            role?: "user" | "assistant" | undefined;
        };
        output: NoInfer<RememberOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "provider";
    id: `${string}.${string}`;
    args: Record<string, unknown>;
    supportsDeferredResults?: boolean;
});
/** `profile`: what is known about the user now. */
export declare function profileTool(client: Engram): ({
    execute(input: Record<string, never>, options: ToolExecutionOptions): Promise<ProfileOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<Record<string, never>>;
    inputExamples?: {
        input: NoInfer<Record<string, never>>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<Record<string, never>>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: Record<string, never>;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<Record<string, never>, ProfileOutput>;
    outputSchema?: import("ai").FlexibleSchema<ProfileOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: Record<string, never>;
        output: NoInfer<ProfileOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type?: undefined | "function";
}) | ({
    execute(input: Record<string, never>, options: ToolExecutionOptions): Promise<ProfileOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<Record<string, never>>;
    inputExamples?: {
        input: NoInfer<Record<string, never>>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<Record<string, never>>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: Record<string, never>;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<Record<string, never>, ProfileOutput>;
    outputSchema?: import("ai").FlexibleSchema<ProfileOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: Record<string, never>;
        output: NoInfer<ProfileOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "dynamic";
}) | ({
    execute(input: Record<string, never>, options: ToolExecutionOptions): Promise<ProfileOutput>;
} & {
    description?: string;
    title?: string;
    providerOptions?: import("@ai-sdk/provider-utils").ProviderOptions;
    metadata?: import("@ai-sdk/provider").JSONObject;
    inputSchema: import("ai").FlexibleSchema<Record<string, never>>;
    inputExamples?: {
        input: NoInfer<Record<string, never>>;
    }[];
    needsApproval?: boolean | import("@ai-sdk/provider-utils").ToolNeedsApprovalFunction<Record<string, never>>;
    strict?: boolean;
    onInputStart?: (options: ToolExecutionOptions) => void | PromiseLike<void>;
    onInputDelta?: (options: {
        inputTextDelta: string;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
    onInputAvailable?: (options: {
        input: Record<string, never>;
    } & ToolExecutionOptions) => void | PromiseLike<void>;
} & {
    execute: import("ai").ToolExecuteFunction<Record<string, never>, ProfileOutput>;
    outputSchema?: import("ai").FlexibleSchema<ProfileOutput>;
} & {
    toModelOutput?: (options: {
        toolCallId: string;
        input: Record<string, never>;
        output: NoInfer<ProfileOutput>;
    }) => import("@ai-sdk/provider-utils").ToolResultOutput | PromiseLike<import("@ai-sdk/provider-utils").ToolResultOutput>;
} & {
    type: "provider";
    id: `${string}.${string}`;
    args: Record<string, unknown>;
    supportsDeferredResults?: boolean;
});
export type EngramTools = {
    recall: ReturnType<typeof recallTool>;
    context: ReturnType<typeof contextTool>;
    store: ReturnType<typeof storeTool>;
    remember: ReturnType<typeof rememberTool>;
    profile: ReturnType<typeof profileTool>;
};
/** Every Engram tool, named as Engram's MCP tools are; one `sessionId` for the conversation. */
export declare function engramTools(client: Engram, options?: EngramToolsOptions): EngramTools;
