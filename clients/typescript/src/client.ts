/**
 * The Engram client: memories, recall, /remember, context, profile, artifacts and export, for
 * Node (≥ 18) and browsers, over `fetch` alone.
 */

import { JobFailedError, JobTimeoutError } from "./errors.js";
import { jsonLines } from "./ndjson.js";
import { type RequestOptions, Transport, type TransportOptions, sleep } from "./transport.js";
import type {
  ArtifactCreate,
  ArtifactDeleteResponse,
  ArtifactListResponse,
  ArtifactReadParams,
  ArtifactResponse,
  ArtifactText,
  ArtifactUrlResponse,
  BatchResponse,
  ContextRequest,
  ContextResponse,
  CoreParams,
  CoreResponse,
  DeleteResponse,
  ExportLine,
  ListParams,
  ListResponse,
  Memory,
  MemoryChanges,
  MemoryResponse,
  NewMemory,
  ProfileResponse,
  RecallParams,
  RecallResponse,
  RememberAccepted,
  RememberJob,
  RememberRequest,
  StartupParams,
  StartupResponse,
  StoreResponse,
  UpdateResponse,
} from "./types.js";

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
export type Remembered = RememberAccepted & { job?: RememberJob };

const FINISHED = new Set(["done", "dead", "aborted"]);

const segment = (value: string) => encodeURIComponent(value);

export class Engram {
  readonly memories: Memories;
  readonly artifacts: Artifacts;
  private readonly http: Transport;

  constructor(options: EngramOptions) {
    this.http = new Transport(options);
    this.memories = new Memories(this.http);
    this.artifacts = new Artifacts(this.http);
  }

  /** The same client in another agent scope (`null`: none, the user's shared memories). */
  withAgent(agentId: string | null): Engram {
    const { agentId: _previous, ...rest } = this.http.options;
    return new Engram(agentId === null ? rest : { ...rest, agentId });
  }

  /** POST /recall: the memories that answer `query`, best first, with every filter recall has. */
  recall(params: RecallParams, options?: RequestOptions): Promise<RecallResponse> {
    return this.http.json({ method: "POST", path: "/recall", json: params }, options);
  }

  /**
   * POST /remember: conversation turns, from which the service extracts durable facts in a
   * background job. With `wait`, polls the job until it ends and returns it as `job`; throws
   * JobFailedError if it died, JobTimeoutError if it is still running at the time-out.
   */
  async remember(request: RememberRequest, options: RememberOptions = {}): Promise<Remembered> {
    const { wait, ...requestOptions } = options;
    const accepted = await this.http.json<RememberAccepted>(
      { method: "POST", path: "/remember", json: request, idempotent: true },
      requestOptions,
    );
    if (!wait || accepted.job_id === null) return accepted;
    const job = await this.waitForJob(accepted.job_id, wait === true ? {} : wait, requestOptions);
    return { ...accepted, job };
  }

  /** GET /remember/jobs/{job_id}: the state of one of your /remember jobs. */
  rememberJob(jobId: string, options?: RequestOptions): Promise<RememberJob> {
    return this.http.json({ method: "GET", path: `/remember/jobs/${segment(jobId)}` }, options);
  }

  /** Polls a /remember job until it is done (or throws when it died or the wait ran out). */
  async waitForJob(jobId: string, wait: WaitOptions = {}, options: RequestOptions = {}): Promise<RememberJob> {
    const deadline = Date.now() + (wait.timeoutMs ?? 60_000);
    let pause = wait.intervalMs ?? 200;
    for (;;) {
      const job = await this.rememberJob(jobId, options);
      if (job.state === "done") return job;
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
  context(request: ContextRequest, options?: RequestOptions): Promise<ContextResponse> {
    return this.http.json({ method: "POST", path: "/recall/context", json: request }, options);
  }

  /** GET /startup-recall: lessons and system rules for the start of a session. */
  startupRecall(params: StartupParams = {}, options?: RequestOptions): Promise<StartupResponse> {
    return this.http.json({ method: "GET", path: "/startup-recall", query: params }, options);
  }

  /** GET /core: pinned sections, important and recent memories. */
  core(params: CoreParams = {}, options?: RequestOptions): Promise<CoreResponse> {
    return this.http.json({ method: "GET", path: "/core", query: params }, options);
  }

  /** GET /profile: the user's reflection and the attributes read from what they said. */
  profile(options?: RequestOptions): Promise<ProfileResponse> {
    return this.http.json({ method: "GET", path: "/profile" }, options);
  }

  /**
   * GET /me/export: every memory of the user, of every agent, one JSON Lines line at a time as
   * it streams in (memories with revisions, links and entities; artifacts in base64).
   */
  async *export(options: Omit<RequestOptions, "agentId"> = {}): AsyncGenerator<ExportLine> {
    const body = await this.exportStream(options);
    yield* jsonLines<ExportLine>(body);
  }

  /** GET /me/export as the raw byte stream (to write to a file as it comes). */
  async exportStream(options: Omit<RequestOptions, "agentId"> = {}): Promise<ReadableStream<Uint8Array>> {
    // /me covers the whole user: a request with X-Agent-Id is refused, whatever the client's scope.
    const response = await this.http.raw(
      { method: "GET", path: "/me/export" },
      { ...options, agentId: null },
      "application/x-ndjson",
    );
    if (response.body === null) throw new Error("GET /me/export answered without a body");
    return response.body;
  }
}

export class Memories {
  constructor(private readonly http: Transport) {}

  /** POST /memory, with an Idempotency-Key (retried without ever storing twice). */
  store(memory: NewMemory, options?: RequestOptions): Promise<StoreResponse> {
    return this.http.json({ method: "POST", path: "/memory", json: memory, idempotent: true }, options);
  }

  /** POST /memory/batch: 1–500 memories, validated all-or-nothing, one write. */
  storeBatch(memories: NewMemory[], options?: RequestOptions): Promise<BatchResponse> {
    return this.http.json(
      { method: "POST", path: "/memory/batch", json: { memories }, idempotent: true },
      options,
    );
  }

  /** GET /memory/{id}. */
  get(memoryId: string, options?: RequestOptions): Promise<MemoryResponse> {
    return this.http.json({ method: "GET", path: `/memory/${segment(memoryId)}` }, options);
  }

  /** PATCH /memory/{id}; `expected_version` makes a stale update a ConflictError. */
  update(memoryId: string, changes: MemoryChanges, options?: RequestOptions): Promise<UpdateResponse> {
    return this.http.json({ method: "PATCH", path: `/memory/${segment(memoryId)}`, json: changes }, options);
  }

  /** DELETE /memory/{id}; `erase: true` removes the content everywhere instead of a tombstone. */
  delete(memoryId: string, params: { erase?: boolean } = {}, options?: RequestOptions): Promise<DeleteResponse> {
    return this.http.json(
      { method: "DELETE", path: `/memory/${segment(memoryId)}`, query: { erase: params.erase } },
      options,
    );
  }

  /** GET /memory: one page; pass its `next_cursor` as `cursor` for the next. */
  list(params: ListParams = {}, options?: RequestOptions): Promise<ListResponse> {
    return this.http.json({ method: "GET", path: "/memory", query: params }, options);
  }

  /** Every memory `list` would page through, following the cursor until it is null. */
  async *iterate(params: ListParams = {}, options?: RequestOptions): AsyncGenerator<Memory> {
    let cursor = params.cursor ?? null;
    do {
      const page = await this.list({ ...params, cursor }, options);
      yield* page.memories;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }
}

/** What `artifacts.upload` sends as multipart: a file's bytes. */
export interface Upload {
  filename: string;
  /** Declared type; otherwise the filename's extension decides. */
  contentType?: string;
}

export class Artifacts {
  constructor(private readonly http: Transport) {}

  /** POST /memory/{id}/artifacts as JSON: `content` for text, `content_base64` for bytes. */
  save(memoryId: string, artifact: ArtifactCreate, options?: RequestOptions): Promise<ArtifactResponse> {
    return this.http.json({ method: "POST", path: this.base(memoryId), json: artifact }, options);
  }

  /** POST /memory/{id}/artifacts as multipart: a file's bytes (a Blob, or bytes in memory). */
  upload(
    memoryId: string,
    file: Blob | Uint8Array,
    upload: Upload,
    options?: RequestOptions,
  ): Promise<ArtifactResponse> {
    const form = new FormData();
    const type = upload.contentType ?? "";
    const blob = file instanceof Blob ? file : new Blob([copyOf(file)], { type });
    form.append("file", blob, upload.filename);
    form.append("filename", upload.filename);
    if (upload.contentType) form.append("content_type", upload.contentType);
    return this.http.json({ method: "POST", path: this.base(memoryId), form }, options);
  }

  /** GET /memory/{id}/artifacts: the memory's files, oldest first. */
  list(memoryId: string, options?: RequestOptions): Promise<ArtifactListResponse> {
    return this.http.json({ method: "GET", path: this.base(memoryId) }, options);
  }

  /** GET /memory/{id}/artifacts/{aid}: a page of a text artifact (`offset`, `limit` in characters). */
  read(
    memoryId: string,
    artifactId: string,
    params: Omit<ArtifactReadParams, "encoding"> = {},
    options?: RequestOptions,
  ): Promise<ArtifactText> {
    return this.http.json(
      { method: "GET", path: `${this.base(memoryId)}/${segment(artifactId)}`, query: params },
      options,
    );
  }

  /** The file itself, any type, through a short-lived signed link. */
  async download(memoryId: string, artifactId: string, options?: RequestOptions): Promise<Uint8Array> {
    const { url } = await this.url(memoryId, artifactId, { expires_in: 60 }, options);
    const response = await this.http.raw({ method: "GET", path: url, anonymous: true }, options);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** POST /memory/{id}/artifacts/{aid}/url: a signed link that works without a key until it expires. */
  url(
    memoryId: string,
    artifactId: string,
    params: { expires_in?: number } = {},
    options?: RequestOptions,
  ): Promise<ArtifactUrlResponse> {
    return this.http.json(
      { method: "POST", path: `${this.base(memoryId)}/${segment(artifactId)}/url`, json: params },
      options,
    );
  }

  /** DELETE /memory/{id}/artifacts/{aid}. */
  delete(memoryId: string, artifactId: string, options?: RequestOptions): Promise<ArtifactDeleteResponse> {
    return this.http.json(
      { method: "DELETE", path: `${this.base(memoryId)}/${segment(artifactId)}` },
      options,
    );
  }

  private base(memoryId: string): string {
    return `/memory/${segment(memoryId)}/artifacts`;
  }
}

/** The bytes in an ArrayBuffer of their own (a Uint8Array may view a shared or larger one). */
function copyOf(bytes: Uint8Array): ArrayBuffer {
  const buffer = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  return buffer;
}
