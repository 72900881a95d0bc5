// Under /v1 errors take OpenAI's shape, so its clients raise their typed errors with our message:
// {"error": {"message", "type", "param", "code"}}. /api keeps svc's own envelope.

const typeFor = (status: number): string =>
  status === 401
    ? "authentication_error"
    : status === 403
      ? "permission_error"
      : status === 429
        ? "rate_limit_error"
        : status >= 500
          ? "server_error"
          : "invalid_request_error";

interface SvcError {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/** The same answer (status and headers kept) with its svc error body rewritten in OpenAI's shape. */
export async function toOpenAiError(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const text = await response.text();
  let parsed: SvcError;
  try {
    parsed = JSON.parse(text) as SvcError;
  } catch {
    parsed = {};
  }
  const details = parsed.error?.details;
  const param =
    details && typeof details === "object" && "param" in details && typeof details.param === "string"
      ? details.param
      : null;
  const body = JSON.stringify({
    error: {
      message: typeof parsed.error?.message === "string" ? parsed.error.message : response.statusText || text,
      type: typeFor(response.status),
      param,
      code: typeof parsed.error?.code === "string" ? parsed.error.code : null,
    },
  });
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "application/json");
  headers.delete("Content-Length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
