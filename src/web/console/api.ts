// The console's HTTP client: every screen talks to the documented API through these, so nothing
// the console does is impossible with curl.

/** An error answer from svc: its status, stable code, sentence and details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly retryAfter?: number,
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
  );
}

/** Sends a request; an error answer becomes an `ApiError`, a network failure a sentence. */
export async function request(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "offline", "svc cannot be reached: is the server running?");
  }
  if (!response.ok) throw await failure(response);
  return response;
}

/** GET (or any method) answering JSON. */
export async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await request(path, init);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A JSON body with its content type (svc's JSON routes take only application/json). */
export function json(method: string, body?: unknown): RequestInit {
  return body === undefined
    ? { method }
    : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** A query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** A page of a list route. */
export interface ListPage<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** What to tell a person about a failure: the API's sentence, or the error's. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
