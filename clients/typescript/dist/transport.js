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
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;
export class Transport {
    options;
    baseUrl;
    fetch;
    maxRetries;
    timeoutMs;
    constructor(options) {
        this.options = options;
        this.baseUrl = options.baseUrl.replace(/\/+$/, "");
        this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
        this.maxRetries = Math.max(0, options.maxRetries ?? 2);
        this.timeoutMs = options.timeoutMs ?? 30_000;
    }
    /** The answer's JSON body, typed by the caller from the OpenAPI document. */
    async json(call, options = {}) {
        const response = await this.send(call, options, "application/json");
        return (await response.json());
    }
    /** The answer itself, its body unread (streams, files). */
    async raw(call, options = {}, accept = "*/*") {
        return this.send(call, options, accept);
    }
    url(path, query) {
        const search = new URLSearchParams();
        for (const [name, value] of Object.entries(query ?? {})) {
            if (value === undefined || value === null)
                continue;
            for (const item of Array.isArray(value) ? value : [value])
                search.append(name, String(item));
        }
        const text = search.toString();
        const url = path.startsWith("http://") || path.startsWith("https://") ? path : this.baseUrl + path;
        return text ? `${url}${url.includes("?") ? "&" : "?"}${text}` : url;
    }
    async send(call, options, accept) {
        const headers = this.headers(call, options, accept);
        const retryable = call.method === "GET" || headers.has("Idempotency-Key");
        for (let attempt = 0;; attempt++) {
            let response;
            try {
                response = await this.attempt(call, headers, options.signal);
            }
            catch (error) {
                if (options.signal?.aborted)
                    throw error;
                if (!retryable || attempt >= this.maxRetries)
                    throw connectionError(call, error);
                await sleep(backoffMs(attempt), options.signal);
                continue;
            }
            if (response.ok)
                return response;
            const delay = retryDelayMs(response, attempt);
            if (!retryable || attempt >= this.maxRetries || delay === undefined) {
                throw await errorFrom(response);
            }
            await response.body?.cancel();
            await sleep(delay, options.signal);
        }
    }
    headers(call, options, accept) {
        const headers = new Headers(this.options.headers);
        headers.set("Accept", accept);
        if (this.options.apiKey && !call.anonymous) {
            headers.set("Authorization", `Bearer ${this.options.apiKey}`);
        }
        const agent = options.agentId === undefined ? this.options.agentId : options.agentId;
        if (agent && !call.anonymous)
            headers.set("X-Agent-Id", agent);
        if (call.idempotent)
            headers.set("Idempotency-Key", options.idempotencyKey ?? uuid4());
        if (call.json !== undefined)
            headers.set("Content-Type", "application/json");
        return headers;
    }
    /** One try, aborted after `timeoutMs` (until the answer's headers) or by the caller. */
    async attempt(call, headers, signal) {
        const controller = new AbortController();
        const abort = () => controller.abort(signal?.reason);
        if (signal?.aborted)
            abort();
        signal?.addEventListener("abort", abort, { once: true });
        const timer = setTimeout(() => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
        try {
            const body = call.json !== undefined ? JSON.stringify(call.json) : call.form;
            return await this.fetch(this.url(call.path, call.query), {
                method: call.method,
                headers,
                signal: controller.signal,
                ...(body === undefined ? {} : { body }),
            });
        }
        finally {
            clearTimeout(timer);
            signal?.removeEventListener("abort", abort);
        }
    }
}
/** How long to wait before retrying this answer, or undefined when retrying will not help. */
function retryDelayMs(response, attempt) {
    if (!RETRY_STATUSES.has(response.status))
        return undefined;
    const retryAfter = retryAfterSeconds(response);
    // A 503 without Retry-After is a feature switched off (`unavailable`): it will stay so.
    if (response.status === 503 && retryAfter === undefined)
        return undefined;
    if (retryAfter === undefined)
        return backoffMs(attempt);
    const delay = retryAfter * 1000;
    return delay <= MAX_RETRY_AFTER_MS ? delay : undefined;
}
function backoffMs(attempt) {
    const ceiling = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
}
function connectionError(call, cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new EngramConnectionError(`${call.method} ${call.path}: ${reason}`, { cause });
}
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
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
