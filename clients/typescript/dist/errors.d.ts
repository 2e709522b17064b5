/**
 * Engram's error envelope as exceptions: `{"status": "error", "code", "error", "message"}`.
 *
 * Every answer that is not a success throws an `EngramError` subclass chosen by its HTTP
 * status; `code` (the HTTP status), `error` (the kind, e.g. `not_found`) and `message` are the
 * envelope's own fields, as the Python client names them.
 */
export interface EngramErrorOptions {
    code?: number;
    error?: string;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
    cause?: unknown;
}
/** Any error answered by Engram, or met on the way to it. */
export declare class EngramError extends Error {
    /** The HTTP status (the envelope's `code`); 0 when no answer came. */
    readonly code: number;
    /** The kind, as the envelope's `error`: bad_request, not_found, rate_limited… */
    readonly error: string;
    /** `X-Request-Id` of the answer, to find it in Engram's log. */
    readonly requestId: string | undefined;
    /** Seconds from the `Retry-After` header, when the answer had one. */
    readonly retryAfter: number | undefined;
    constructor(message: string, options?: EngramErrorOptions);
    toString(): string;
}
/** 400: the input is invalid; the message names the field. */
export declare class BadRequestError extends EngramError {
}
/** 401: no key, or a key Engram does not know. */
export declare class AuthenticationError extends EngramError {
}
/** 403: the key may not do this (an agent-bound key on /me, a user key on /admin…). */
export declare class PermissionDeniedError extends EngramError {
}
/** 404: no such memory, job or artifact in the caller's scope. */
export declare class NotFoundError extends EngramError {
}
/** 409: a stale `expected_version`, or an Idempotency-Key reused for another request. */
export declare class ConflictError extends EngramError {
}
/** 413: over a size limit, which the message names. */
export declare class PayloadTooLargeError extends EngramError {
}
/** 415: an artifact type off the allow-list. */
export declare class UnsupportedMediaTypeError extends EngramError {
}
/** 429: too many requests; `retryAfter` seconds, from the Retry-After header. */
export declare class RateLimitError extends EngramError {
}
/** 503: a store is down or the feature is switched off. */
export declare class ServiceUnavailableError extends EngramError {
}
/** Any other 5xx. */
export declare class ServerError extends EngramError {
}
/** Engram could not be reached, or the connection broke (or timed out) before an answer. */
export declare class EngramConnectionError extends EngramError {
}
/** A /remember job ended without finishing (dead or aborted); `job` is its last state. */
export declare class JobFailedError extends EngramError {
    readonly job: unknown;
    constructor(message: string, job: unknown);
}
/** `remember(…, { wait: true })` gave up waiting; the job carries on in the service. */
export declare class JobTimeoutError extends EngramError {
    readonly job: unknown;
    constructor(message: string, job: unknown);
}
/** Seconds of a `Retry-After` header; an HTTP date (which Engram does not send) is ignored. */
export declare function retryAfterSeconds(response: Response): number | undefined;
/** The exception for a failed answer, from its envelope (or its status when there is none). */
export declare function errorFrom(response: Response): Promise<EngramError>;
