/**
 * Engram's error envelope as exceptions: `{"status": "error", "code", "error", "message"}`.
 *
 * Every answer that is not a success throws an `EngramError` subclass chosen by its HTTP
 * status; `code` (the HTTP status), `error` (the kind, e.g. `not_found`) and `message` are the
 * envelope's own fields, as the Python client names them.
 */
/** Any error answered by Engram, or met on the way to it. */
export class EngramError extends Error {
    /** The HTTP status (the envelope's `code`); 0 when no answer came. */
    code;
    /** The kind, as the envelope's `error`: bad_request, not_found, rate_limited… */
    error;
    /** `X-Request-Id` of the answer, to find it in Engram's log. */
    requestId;
    /** Seconds from the `Retry-After` header, when the answer had one. */
    retryAfter;
    constructor(message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.name = new.target.name;
        this.code = options.code ?? 0;
        this.error = options.error ?? "client_error";
        this.requestId = options.requestId;
        this.retryAfter = options.retryAfter;
    }
    toString() {
        return this.code ? `${this.name}: ${this.code} ${this.error}: ${this.message}` : super.toString();
    }
}
/** 400: the input is invalid; the message names the field. */
export class BadRequestError extends EngramError {
}
/** 401: no key, or a key Engram does not know. */
export class AuthenticationError extends EngramError {
}
/** 403: the key may not do this (an agent-bound key on /me, a user key on /admin…). */
export class PermissionDeniedError extends EngramError {
}
/** 404: no such memory, job or artifact in the caller's scope. */
export class NotFoundError extends EngramError {
}
/** 409: a stale `expected_version`, or an Idempotency-Key reused for another request. */
export class ConflictError extends EngramError {
}
/** 413: over a size limit, which the message names. */
export class PayloadTooLargeError extends EngramError {
}
/** 415: an artifact type off the allow-list. */
export class UnsupportedMediaTypeError extends EngramError {
}
/** 429: too many requests; `retryAfter` seconds, from the Retry-After header. */
export class RateLimitError extends EngramError {
}
/** 503: a store is down or the feature is switched off. */
export class ServiceUnavailableError extends EngramError {
}
/** Any other 5xx. */
export class ServerError extends EngramError {
}
/** Engram could not be reached, or the connection broke (or timed out) before an answer. */
export class EngramConnectionError extends EngramError {
}
/** A /remember job ended without finishing (dead or aborted); `job` is its last state. */
export class JobFailedError extends EngramError {
    job;
    constructor(message, job) {
        super(message, { error: "job_failed" });
        this.job = job;
    }
}
/** `remember(…, { wait: true })` gave up waiting; the job carries on in the service. */
export class JobTimeoutError extends EngramError {
    job;
    constructor(message, job) {
        super(message, { error: "job_timeout" });
        this.job = job;
    }
}
const BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
};
/** Seconds of a `Retry-After` header; an HTTP date (which Engram does not send) is ignored. */
export function retryAfterSeconds(response) {
    const value = response.headers.get("Retry-After");
    if (value === null || value.trim() === "")
        return undefined;
    const seconds = Number(value);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
/** The exception for a failed answer, from its envelope (or its status when there is none). */
export async function errorFrom(response) {
    const envelope = await envelopeOf(response);
    const status = response.status;
    const ErrorClass = BY_STATUS[status] ?? (status >= 500 ? ServerError : EngramError);
    return new ErrorClass(envelope.message ?? (response.statusText || "request failed"), {
        code: status,
        error: envelope.error ?? "http_error",
        requestId: response.headers.get("X-Request-Id") ?? undefined,
        retryAfter: retryAfterSeconds(response),
    });
}
async function envelopeOf(response) {
    let body;
    try {
        body = JSON.parse(await response.text());
    }
    catch {
        return {};
    }
    if (typeof body !== "object" || body === null)
        return {};
    const { message, error } = body;
    return {
        ...(typeof message === "string" ? { message } : {}),
        ...(typeof error === "string" ? { error } : {}),
    };
}
