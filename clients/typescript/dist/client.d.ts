/**
 * The Engram client: memories, recall, /remember, context, profile, artifacts and export, for
 * Node (≥ 18) and browsers, over `fetch` alone.
 */
import { type RequestOptions, Transport, type TransportOptions } from "./transport.js";
import type { ArtifactCreate, ArtifactDeleteResponse, ArtifactListResponse, ArtifactReadParams, ArtifactResponse, ArtifactText, ArtifactUrlResponse, BatchResponse, ContextRequest, ContextResponse, CoreParams, CoreResponse, DeleteResponse, ExportLine, ListParams, ListResponse, Memory, MemoryChanges, MemoryResponse, NewMemory, ProfileResponse, RecallParams, RecallResponse, RememberAccepted, RememberJob, RememberRequest, StartupParams, StartupResponse, StoreResponse, UpdateResponse } from "./types.js";
export type EngramOptions = TransportOptions;
/** How `remember` waits for its job: until it is done, dead or aborted, or `timeoutMs` passed. */
export interface WaitOptions {
    /** Give up after this long (default 60 000); the job carries on in the service. */
    timeoutMs?: number;
    /** The first pause between polls (default 200), doubling up to 2 000. */
    intervalMs?: number;
}
export interface RememberOptions extends RequestOptions {
    /** Wait for the extraction job and return its final state as `job`. */
    wait?: boolean | WaitOptions;
}
/** /remember's answer, with the finished job when the call waited for it. */
export type Remembered = RememberAccepted & {
    job?: RememberJob;
};
export declare class Engram {
    readonly memories: Memories;
    readonly artifacts: Artifacts;
    private readonly http;
    constructor(options: EngramOptions);
    /** The same client in another agent scope (`null`: none, the user's shared memories). */
    withAgent(agentId: string | null): Engram;
    /** POST /recall: the memories that answer `query`, best first, with every filter recall has. */
    recall(params: RecallParams, options?: RequestOptions): Promise<RecallResponse>;
    /**
     * POST /remember: conversation turns, from which the service extracts durable facts in a
     * background job. With `wait`, polls the job until it ends and returns it as `job`; throws
     * JobFailedError if it died, JobTimeoutError if it is still running at the time-out.
     */
    remember(request: RememberRequest, options?: RememberOptions): Promise<Remembered>;
    /** GET /remember/jobs/{job_id}: the state of one of your /remember jobs. */
    rememberJob(jobId: string, options?: RequestOptions): Promise<RememberJob>;
    /** Polls a /remember job until it is done (or throws when it died or the wait ran out). */
    waitForJob(jobId: string, wait?: WaitOptions, options?: RequestOptions): Promise<RememberJob>;
    /** POST /recall/context: a `<memories>` block for a prompt, pinned memories first. */
    context(request: ContextRequest, options?: RequestOptions): Promise<ContextResponse>;
    /** GET /startup-recall: lessons and system rules for the start of a session. */
    startupRecall(params?: StartupParams, options?: RequestOptions): Promise<StartupResponse>;
    /** GET /core: pinned sections, important and recent memories. */
    core(params?: CoreParams, options?: RequestOptions): Promise<CoreResponse>;
    /** GET /profile: the user's reflection and the attributes read from what they said. */
    profile(options?: RequestOptions): Promise<ProfileResponse>;
    /**
     * GET /me/export: every memory of the user, of every agent, one JSON Lines line at a time as
     * it streams in (memories with revisions, links and entities; artifacts in base64).
     */
    export(options?: Omit<RequestOptions, "agentId">): AsyncGenerator<ExportLine>;
    /** GET /me/export as the raw byte stream (to write to a file as it comes). */
    exportStream(options?: Omit<RequestOptions, "agentId">): Promise<ReadableStream<Uint8Array>>;
}
export declare class Memories {
    private readonly http;
    constructor(http: Transport);
    /** POST /memory, with an Idempotency-Key (retried without ever storing twice). */
    store(memory: NewMemory, options?: RequestOptions): Promise<StoreResponse>;
    /** POST /memory/batch: 1–500 memories, validated all-or-nothing, one write. */
    storeBatch(memories: NewMemory[], options?: RequestOptions): Promise<BatchResponse>;
    /** GET /memory/{id}. */
    get(memoryId: string, options?: RequestOptions): Promise<MemoryResponse>;
    /** PATCH /memory/{id}; `expected_version` makes a stale update a ConflictError. */
    update(memoryId: string, changes: MemoryChanges, options?: RequestOptions): Promise<UpdateResponse>;
    /** DELETE /memory/{id}; `erase: true` removes the content everywhere instead of a tombstone. */
    delete(memoryId: string, params?: {
        erase?: boolean;
    }, options?: RequestOptions): Promise<DeleteResponse>;
    /** GET /memory: one page; pass its `next_cursor` as `cursor` for the next. */
    list(params?: ListParams, options?: RequestOptions): Promise<ListResponse>;
    /** Every memory `list` would page through, following the cursor until it is null. */
    iterate(params?: ListParams, options?: RequestOptions): AsyncGenerator<Memory>;
}
/** What `artifacts.upload` sends as multipart: a file's bytes. */
export interface Upload {
    filename: string;
    /** Declared type; otherwise the filename's extension decides. */
    contentType?: string;
}
export declare class Artifacts {
    private readonly http;
    constructor(http: Transport);
    /** POST /memory/{id}/artifacts as JSON: `content` for text, `content_base64` for bytes. */
    save(memoryId: string, artifact: ArtifactCreate, options?: RequestOptions): Promise<ArtifactResponse>;
    /** POST /memory/{id}/artifacts as multipart: a file's bytes (a Blob, or bytes in memory). */
    upload(memoryId: string, file: Blob | Uint8Array, upload: Upload, options?: RequestOptions): Promise<ArtifactResponse>;
    /** GET /memory/{id}/artifacts: the memory's files, oldest first. */
    list(memoryId: string, options?: RequestOptions): Promise<ArtifactListResponse>;
    /** GET /memory/{id}/artifacts/{aid}: a page of a text artifact (`offset`, `limit` in characters). */
    read(memoryId: string, artifactId: string, params?: Omit<ArtifactReadParams, "encoding">, options?: RequestOptions): Promise<ArtifactText>;
    /** The file itself, any type, through a short-lived signed link. */
    download(memoryId: string, artifactId: string, options?: RequestOptions): Promise<Uint8Array>;
    /** POST /memory/{id}/artifacts/{aid}/url: a signed link that works without a key until it expires. */
    url(memoryId: string, artifactId: string, params?: {
        expires_in?: number;
    }, options?: RequestOptions): Promise<ArtifactUrlResponse>;
    /** DELETE /memory/{id}/artifacts/{aid}. */
    delete(memoryId: string, artifactId: string, options?: RequestOptions): Promise<ArtifactDeleteResponse>;
    private base;
}
