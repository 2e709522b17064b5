// The console's only way to the server: Engram's public HTTP API, same origin, with the key the
// user typed. The key lives in this tab's sessionStorage and nowhere else.

const KEY = "engram.console.key";
const AGENT = "engram.console.agent";
const MODE = "engram.console.mode";

export class ApiError extends Error {
  constructor(status, kind, message) {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

export const session = {
  key: () => sessionStorage.getItem(KEY),
  agent: () => sessionStorage.getItem(AGENT) || "",
  // "user" (a user's key) or "operator" (the admin key)
  mode: () => sessionStorage.getItem(MODE) || "user",
  save(key, agent, mode = "user") {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(MODE, mode);
    if (agent) sessionStorage.setItem(AGENT, agent);
    else sessionStorage.removeItem(AGENT);
  },
  clear() {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(MODE);
    sessionStorage.removeItem(AGENT);
  },
};

function headers(key, agent, hasBody) {
  const sent = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (agent) sent["X-Agent-Id"] = agent;
  if (hasBody) sent["Content-Type"] = "application/json";
  return sent;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not the error envelope: fall back to the status line
  }
  const message = (body && body.message) || `${response.status} ${response.statusText}`;
  return new ApiError(response.status, (body && body.error) || "error", message);
}

// One API call; `credentials` overrides the stored key (used to check a key before keeping it).
export async function request(method, path, body, credentials) {
  const key = credentials ? credentials.key : session.key();
  const agent = credentials ? credentials.agent : session.agent();
  const response = await fetch(path, {
    method,
    headers: headers(key, agent, body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  if (response.status === 401 && !credentials) {
    // The kept key stopped working (revoked, or the server's keys changed): ask for it again.
    document.dispatchEvent(new CustomEvent("console:key-refused"));
  }
  if (!response.ok) throw await failure(response);
  return response.json();
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export const memoryPath = (id) => `/memory/${encodeURIComponent(id)}`;

// A JSON Lines body (GET /me/export) as a Blob, with the stored key.
export async function download(path) {
  const response = await fetch(path, { headers: headers(session.key(), session.agent(), false), credentials: "omit", cache: "no-store" });
  if (!response.ok) throw await failure(response);
  return response.blob();
}

// Runs `work` on every item, `width` at a time; the outcomes in the items' order.
export async function eachOf(items, width, work) {
  const outcomes = new Array(items.length);
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const at = next++;
      try {
        outcomes[at] = { ok: true, value: await work(items[at]) };
      } catch (error) {
        outcomes[at] = { ok: false, error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return outcomes;
}
