/**
 * The Engram client: memories, recall, /remember, context, profile, artifacts and export, for
 * Node (≥ 18) and browsers, over `fetch` alone.
 */
import { JobFailedError, JobTimeoutError } from "./errors.js";
import { jsonLines } from "./ndjson.js";
import { Transport, sleep } from "./transport.js";
const FINISHED = new Set(["done", "dead", "aborted"]);
const segment = (value) => encodeURIComponent(value);
export class Engram {
    memories;
    artifacts;
    http;
    constructor(options) {
        this.http = new Transport(options);
        this.memories = new Memories(this.http);
        this.artifacts = new Artifacts(this.http);
    }
    /** The same client in another agent scope (`null`: none, the user's shared memories). */
    withAgent(agentId) {
        const { agentId: _previous, ...rest } = this.http.options;
        return new Engram(agentId === null ? rest : { ...rest, agentId });
    }
    /** POST /recall: the memories that answer `query`, best first, with every filter recall has. */
    recall(params, options) {
        return this.http.json({ method: "POST", path: "/recall", json: params }, options);
    }
    /**
     * POST /remember: conversation turns, from which the service extracts durable facts in a
     * background job. With `wait`, polls the job until it ends and returns it as `job`; throws
     * JobFailedError if it died, JobTimeoutError if it is still running at the time-out.
     */
    async remember(request, options = {}) {
        const { wait, ...requestOptions } = options;
        const accepted = await this.http.json({ method: "POST", path: "/remember", json: request, idempotent: true }, requestOptions);
        if (!wait || accepted.job_id === null)
            return accepted;
        const job = await this.waitForJob(accepted.job_id, wait === true ? {} : wait, requestOptions);
        return { ...accepted, job };
    }
    /** GET /remember/jobs/{job_id}: the state of one of your /remember jobs. */
    rememberJob(jobId, options) {
        return this.http.json({ method: "GET", path: `/remember/jobs/${segment(jobId)}` }, options);
    }
    /** Polls a /remember job until it is done (or throws when it died or the wait ran out). */
    async waitForJob(jobId, wait = {}, options = {}) {
        const deadline = Date.now() + (wait.timeoutMs ?? 60_000);
        let pause = wait.intervalMs ?? 200;
        for (;;) {
            const job = await this.rememberJob(jobId, options);
            if (job.state === "done")
                return job;
            if (FINISHED.has(job.state)) {
                throw new JobFailedError(`remember job ${jobId} ended ${job.state}: ${job.error ?? "no error given"}`, job);
            }
            if (Date.now() + pause > deadline) {
                throw new JobTimeoutError(`remember job ${jobId} is still ${job.state}`, job);
            }
            await sleep(pause, options.signal);
            pause = Math.min(pause * 2, 2_000);
        }
    }
    /** POST /recall/context: a `<memories>` block for a prompt, pinned memories first. */
    context(request, options) {
        return this.http.json({ method: "POST", path: "/recall/context", json: request }, options);
    }
    /** GET /startup-recall: lessons and system rules for the start of a session. */
    startupRecall(params = {}, options) {
        return this.http.json({ method: "GET", path: "/startup-recall", query: params }, options);
    }
    /** GET /core: pinned sections, important and recent memories. */
    core(params = {}, options) {
        return this.http.json({ method: "GET", path: "/core", query: params }, options);
    }
    /** GET /profile: the user's reflection and the attributes read from what they said. */
    profile(options) {
        return this.http.json({ method: "GET", path: "/profile" }, options);
    }
    /**
     * GET /me/export: every memory of the user, of every agent, one JSON Lines line at a time as
     * it streams in (memories with revisions, links and entities; artifacts in base64).
     */
    async *export(options = {}) {
        const body = await this.exportStream(options);
        yield* jsonLines(body);
    }
    /** GET /me/export as the raw byte stream (to write to a file as it comes). */
    async exportStream(options = {}) {
        // /me covers the whole user: a request with X-Agent-Id is refused, whatever the client's scope.
        const response = await this.http.raw({ method: "GET", path: "/me/export" }, { ...options, agentId: null }, "application/x-ndjson");
        if (response.body === null)
            throw new Error("GET /me/export answered without a body");
        return response.body;
    }
}
export class Memories {
    http;
    constructor(http) {
        this.http = http;
    }
    /** POST /memory, with an Idempotency-Key (retried without ever storing twice). */
    store(memory, options) {
        return this.http.json({ method: "POST", path: "/memory", json: memory, idempotent: true }, options);
    }
    /** POST /memory/batch: 1–500 memories, validated all-or-nothing, one write. */
    storeBatch(memories, options) {
        return this.http.json({ method: "POST", path: "/memory/batch", json: { memories }, idempotent: true }, options);
    }
    /** GET /memory/{id}. */
    get(memoryId, options) {
        return this.http.json({ method: "GET", path: `/memory/${segment(memoryId)}` }, options);
    }
    /** PATCH /memory/{id}; `expected_version` makes a stale update a ConflictError. */
    update(memoryId, changes, options) {
        return this.http.json({ method: "PATCH", path: `/memory/${segment(memoryId)}`, json: changes }, options);
    }
    /** DELETE /memory/{id}; `erase: true` removes the content everywhere instead of a tombstone. */
    delete(memoryId, params = {}, options) {
        return this.http.json({ method: "DELETE", path: `/memory/${segment(memoryId)}`, query: { erase: params.erase } }, options);
    }
    /** GET /memory: one page; pass its `next_cursor` as `cursor` for the next. */
    list(params = {}, options) {
        return this.http.json({ method: "GET", path: "/memory", query: params }, options);
    }
    /** Every memory `list` would page through, following the cursor until it is null. */
    async *iterate(params = {}, options) {
        let cursor = params.cursor ?? null;
        do {
            const page = await this.list({ ...params, cursor }, options);
            yield* page.memories;
            cursor = page.next_cursor;
        } while (cursor !== null);
    }
}
export class Artifacts {
    http;
    constructor(http) {
        this.http = http;
    }
    /** POST /memory/{id}/artifacts as JSON: `content` for text, `content_base64` for bytes. */
    save(memoryId, artifact, options) {
        return this.http.json({ method: "POST", path: this.base(memoryId), json: artifact }, options);
    }
    /** POST /memory/{id}/artifacts as multipart: a file's bytes (a Blob, or bytes in memory). */
    upload(memoryId, file, upload, options) {
        const form = new FormData();
        const type = upload.contentType ?? "";
        const blob = file instanceof Blob ? file : new Blob([copyOf(file)], { type });
        form.append("file", blob, upload.filename);
        form.append("filename", upload.filename);
        if (upload.contentType)
            form.append("content_type", upload.contentType);
        return this.http.json({ method: "POST", path: this.base(memoryId), form }, options);
    }
    /** GET /memory/{id}/artifacts: the memory's files, oldest first. */
    list(memoryId, options) {
        return this.http.json({ method: "GET", path: this.base(memoryId) }, options);
    }
    /** GET /memory/{id}/artifacts/{aid}: a page of a text artifact (`offset`, `limit` in characters). */
    read(memoryId, artifactId, params = {}, options) {
        return this.http.json({ method: "GET", path: `${this.base(memoryId)}/${segment(artifactId)}`, query: params }, options);
    }
    /** The file itself, any type, through a short-lived signed link. */
    async download(memoryId, artifactId, options) {
        const { url } = await this.url(memoryId, artifactId, { expires_in: 60 }, options);
        const response = await this.http.raw({ method: "GET", path: url, anonymous: true }, options);
        return new Uint8Array(await response.arrayBuffer());
    }
    /** POST /memory/{id}/artifacts/{aid}/url: a signed link that works without a key until it expires. */
    url(memoryId, artifactId, params = {}, options) {
        return this.http.json({ method: "POST", path: `${this.base(memoryId)}/${segment(artifactId)}/url`, json: params }, options);
    }
    /** DELETE /memory/{id}/artifacts/{aid}. */
    delete(memoryId, artifactId, options) {
        return this.http.json({ method: "DELETE", path: `${this.base(memoryId)}/${segment(artifactId)}` }, options);
    }
    base(memoryId) {
        return `/memory/${segment(memoryId)}/artifacts`;
    }
}
/** The bytes in an ArrayBuffer of their own (a Uint8Array may view a shared or larger one). */
function copyOf(bytes) {
    const buffer = new ArrayBuffer(bytes.byteLength);
    new Uint8Array(buffer).set(bytes);
    return buffer;
}
