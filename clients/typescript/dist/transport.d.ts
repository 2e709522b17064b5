/**
 * One HTTP exchange with Engram over `fetch`: the key and agent headers, query strings,
 * time-outs, typed errors, and retries that cannot write twice.
 *
 * A request is retried (after a refused connection, a time-out, a 429, a 502–504 or a 503 that
 * names a `Retry-After`) only when repeating it is safe: it reads (GET), or it carries an
 * `Idempotency-Key`, which the client sets on every write that takes one, kept across the
 * retries, so Engram answers a repeat with the first answer and writes nothing.
 */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;
export interface TransportOptions {
    /** Where Engram answers, e.g. `http://127.0.0.1:8001`. */
    baseUrl: string;
    /** A user's key, sent as `Authorization: Bearer <key>`. */
    apiKey?: string | undefined;
    /** The agent scope (`X-Agent-Id`) of every call that does not name its own. */
    agentId?: string | undefined;
    /** Retries after a failure that is safe to repeat (default 2). */
    maxRetries?: number | undefined;
    /** Per attempt, until the answer (its headers, for a stream) is in (default 30 000). */
    timeoutMs?: number | undefined;
    /** Another `fetch` (a proxy's, a test's); the global one by default. */
    fetch?: Fetch | undefined;
    /** Sent with every request. */
    headers?: Record<string, string> | undefined;
}
/** What any call takes besides its own parameters. */
export interface RequestOptions {
    /** This call's agent scope; `null` for none (the user's shared memories). */
    agentId?: string | null | undefined;
    /** Cancels the call, retries included. */
    signal?: AbortSignal | undefined;
    /** For the writes that take one; a fresh UUID by default, kept across retries. */
    idempotencyKey?: string | undefined;
}
type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];
export type Query = Record<string, QueryValue>;
export interface Call {
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    path: string;
    query?: Query | undefined;
    json?: unknown;
    form?: FormData | undefined;
    /** The route takes an Idempotency-Key. */
    idempotent?: boolean;
    /** Send no key (a signed download link carries its own authority). */
    anonymous?: boolean;
}
export declare class Transport {
    readonly options: TransportOptions;
    private readonly baseUrl;
    private readonly fetch;
    private readonly maxRetries;
    private readonly timeoutMs;
    constructor(options: TransportOptions);
    /** The answer's JSON body, typed by the caller from the OpenAPI document. */
    json<T>(call: Call, options?: RequestOptions): Promise<T>;
    /** The answer itself, its body unread (streams, files). */
    raw(call: Call, options?: RequestOptions, accept?: string): Promise<Response>;
    url(path: string, query?: Query): string;
    private send;
    private headers;
    /** One try, aborted after `timeoutMs` (until the answer's headers) or by the caller. */
    private attempt;
}
export declare function sleep(ms: number, signal?: AbortSignal): Promise<void>;
export {};
