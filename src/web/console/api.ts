// The console's HTTP client: every screen talks to the documented API through these, so nothing
// the console does is impossible with curl, and every answer is typed by the API reference.
import type { paths } from "./api-paths";

/** An error answer from svc: its status, stable code, sentence and details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly retryAfter?: number,
    /** The answer's X-Request-Id, which svc's log names too. */
    readonly requestId?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: unknown };
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as ErrorEnvelope;
  const retry = Number(response.headers.get("retry-after"));
  return new ApiError(
    response.status,
    body.error?.code ?? "http_error",
    body.error?.message ?? `svc answered ${response.status} ${response.statusText}`,
    body.error?.details,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
    response.headers.get("x-request-id") ?? undefined,
  );
}

// The session's check (the login's answer): kept in this page's own storage, which a page on
// another port of the host can neither read nor set, and sent beside the cookie, so a session
// cookie planted by such a page is refused instead of used.
const checkStorage = "svc.sessionCheck";

function storedCheck(): string | null {
  try {
    return localStorage.getItem(checkStorage);
  } catch {
    return null;
  }
}

/** Keeps the check of the session svc just made (login, keys turned on). */
export function rememberSessionCheck(check: string | undefined): void {
  if (check === undefined) return;
  try {
    localStorage.setItem(checkStorage, check);
  } catch {
    // Storage refused (a private window's quota): requests go without, and svc asks to log in.
  }
}

/** `fetch` with the session's check beside the cookie: the bridge's requests for a plugin page. */
export function sessionFetch(path: string, init: RequestInit): Promise<Response> {
  const check = storedCheck();
  if (check === null) return fetch(path, init);
  const headers = new Headers(init.headers);
  headers.set("x-svc-session-check", check);
  return fetch(path, { ...init, headers });
}

/** A WebSocket's URL to svc, with the session's check (a browser cannot give a socket headers). */
export function socketUrl(path: string): URL {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const check = storedCheck();
  if (check !== null) url.searchParams.set("session_check", check);
  return url;
}

/** The warning shown when keys came on: admin keys that anyone could have made while they were off. */
export const madeWhileOffWarning = (names: readonly string[]): string =>
  `Made while keys were off, when anyone on your network could: ${names.join(", ")}. Revoke any you did not make (Access).`;

const unauthorized = new Set<() => void>();

/** Called when svc answers 401: the session ended (logout, a revoked key), or keys were turned on. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
}

/** Sends a request; an error answer becomes an `ApiError`, a network failure one coded `offline`. */
async function request(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  const check = storedCheck();
  if (check !== null)
    init = {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), "x-svc-session-check": check },
    };
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "offline", "The request got no answer: a network error, or svc is not running.");
  }
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith("/api/auth/"))
      for (const listener of unauthorized) listener();
    throw await failure(response);
  }
  return response;
}

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** The documented paths (`/api/history/{id}`) that answer `M`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never;
}[keyof paths];

type Operation<M extends Method, P extends keyof paths> = paths[P] extends Record<M, infer O> ? O : never;

type JsonOf<R> = [R] extends [{ content: never }]
  ? undefined
  : R extends { content: { "application/json": infer Body } }
    ? Body
    : undefined;

/** A call's answer when it succeeds, as the API reference declares it (undefined for 204). */
export type Answer<M extends Method, P extends keyof paths> =
  Operation<M, P> extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202 | 204>]> : never;

type JsonBody<O> = O extends { requestBody: { content: { "application/json": infer Body } } } ? Body : never;
type Values<T> = { [K in keyof T]?: string | number | boolean | null };

/** What a call sends besides its path: the path's parameters, its query, and a JSON or raw body. */
type CallOptions<O> = {
  query?: O extends { parameters: { query?: infer Q } } ? Values<Q> : never;
  body?: JsonBody<O>;
  /** A body sent as it is (audio, a file) instead of JSON; `headers` names its type. */
  raw?: BodyInit;
  headers?: Record<string, string>;
};
type Args<O> = O extends { parameters: { path: infer Params } }
  ? [options: CallOptions<O> & { params: { [K in keyof Params]: string | number } }]
  : [options?: CallOptions<O>];

/** The options a call to `path` takes: required when the path has parameters. */
export type CallArgs<M extends Method, P extends keyof paths> = Args<Operation<M, P>>;

/** The URL of a call: `{name}` replaced by its parameter, then the query string. */
export function urlOf(path: string, options: Pick<SentOptions, "params" | "query"> = {}): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = options.params?.[name];
    if (value === undefined) throw new Error(`${path} needs its ${name} parameter`);
    return encodeURIComponent(String(value));
  });
  return `${filled}${options.query ? query(options.query) : ""}`;
}

interface SentOptions {
  body?: unknown;
  raw?: BodyInit;
  headers?: Record<string, string>;
  params?: Record<string, string | number>;
  query?: Parameters<typeof query>[0];
}

async function call(method: Method, path: string, options: SentOptions = {}): Promise<unknown> {
  const { body, raw, headers } = options;
  const init: RequestInit = { method: method.toUpperCase(), headers: { ...headers } };
  if (raw !== undefined) init.body = raw;
  else if (body !== undefined) {
    init.headers = { "content-type": "application/json", ...headers };
    init.body = JSON.stringify(body);
  }
  const response = await request(urlOf(path, options), init);
  return response.status === 204 ? undefined : await response.json();
}

const caller =
  <M extends Method>(method: M) =>
  <P extends PathOf<M>>(path: P, ...[options]: Args<Operation<M, P>>): Promise<Answer<M, P>> =>
    call(method, path, options as SentOptions) as Promise<Answer<M, P>>;

/**
 * The documented API, typed by its reference (api-paths.d.ts, generated from the OpenAPI document):
 * `api.get("/api/history/{id}", { params: { id } })` answers what that route declares.
 */
export const api = {
  get: caller("get"),
  post: caller("post"),
  put: caller("put"),
  patch: caller("patch"),
  delete: caller("delete"),
};

/** A query string from the defined, non-empty values. */
function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
