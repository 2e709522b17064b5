/**
 * One HTTP exchange with Engram over `fetch`: the key and agent headers, query strings,
 * time-outs, typed errors, and retries that cannot write twice.
 *
 * A request is retried (after a refused connection, a time-out, a 429, a 502–504 or a 503 that
 * names a `Retry-After`) only when repeating it is safe: it reads (GET), or it carries an
 * `Idempotency-Key`, which the client sets on every write that takes one, kept across the
 * retries, so Engram answers a repeat with the first answer and writes nothing.
 */

import { EngramConnectionError, EngramError, errorFrom, retryAfterSeconds } from "./errors.js";
import { uuid4 } from "./uuid.js";

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

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: Fetch;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The answer's JSON body, typed by the caller from the OpenAPI document. */
  async json<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(call, options, "application/json");
    return (await response.json()) as T;
  }

  /** The answer itself, its body unread (streams, files). */
  async raw(call: Call, options: RequestOptions = {}, accept = "*/*"): Promise<Response> {
    return this.send(call, options, accept);
  }

  url(path: string, query?: Query): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    const text = search.toString();
    const url = path.startsWith("http://") || path.startsWith("https://") ? path : this.baseUrl + path;
    return text ? `${url}${url.includes("?") ? "&" : "?"}${text}` : url;
  }

  private async send(call: Call, options: RequestOptions, accept: string): Promise<Response> {
    const headers = this.headers(call, options, accept);
    const retryable = call.method === "GET" || headers.has("Idempotency-Key");
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.attempt(call, headers, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (!retryable || attempt >= this.maxRetries) throw connectionError(call, error);
        await sleep(backoffMs(attempt), options.signal);
        continue;
      }
      if (response.ok) return response;
      const delay = retryDelayMs(response, attempt);
      if (!retryable || attempt >= this.maxRetries || delay === undefined) {
        throw await errorFrom(response);
      }
      await response.body?.cancel();
      await sleep(delay, options.signal);
    }
  }

  private headers(call: Call, options: RequestOptions, accept: string): Headers {
    const headers = new Headers(this.options.headers);
    headers.set("Accept", accept);
    if (this.options.apiKey && !call.anonymous) {
      headers.set("Authorization", `Bearer ${this.options.apiKey}`);
    }
    const agent = options.agentId === undefined ? this.options.agentId : options.agentId;
    if (agent && !call.anonymous) headers.set("X-Agent-Id", agent);
    if (call.idempotent) headers.set("Idempotency-Key", options.idempotencyKey ?? uuid4());
    if (call.json !== undefined) headers.set("Content-Type", "application/json");
    return headers;
  }

  /** One try, aborted after `timeoutMs` (until the answer's headers) or by the caller. */
  private async attempt(call: Call, headers: Headers, signal: AbortSignal | undefined): Promise<Response> {
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    if (signal?.aborted) abort();
    signal?.addEventListener("abort", abort, { once: true });
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    try {
      const body = call.json !== undefined ? JSON.stringify(call.json) : call.form;
      return await this.fetch(this.url(call.path, call.query), {
        method: call.method,
        headers,
        signal: controller.signal,
        ...(body === undefined ? {} : { body }),
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    }
  }
}

/** How long to wait before retrying this answer, or undefined when retrying will not help. */
function retryDelayMs(response: Response, attempt: number): number | undefined {
  if (!RETRY_STATUSES.has(response.status)) return undefined;
  const retryAfter = retryAfterSeconds(response);
  // A 503 without Retry-After is a feature switched off (`unavailable`): it will stay so.
  if (response.status === 503 && retryAfter === undefined) return undefined;
  if (retryAfter === undefined) return backoffMs(attempt);
  const delay = retryAfter * 1000;
  return delay <= MAX_RETRY_AFTER_MS ? delay : undefined;
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function connectionError(call: Call, cause: unknown): EngramError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new EngramConnectionError(`${call.method} ${call.path}: ${reason}`, { cause });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
