// Places the API's validation messages at the fields they concern: a 400 lists `{path, message}`
// issues in `details`, a 409 conflict names its `field`.
import { ApiError } from "./api.ts";

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/** The message for each of `fields` that `error` names; empty when it names none of them. */
export function fieldErrors(error: unknown, fields: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  if (!(error instanceof ApiError)) return found;
  const { details } = error;
  if (Array.isArray(details)) {
    for (const issue of details as unknown[]) {
      if (typeof issue !== "object" || issue === null) continue;
      const { path, message } = issue as { path?: unknown; message?: unknown };
      if (typeof path === "string" && typeof message === "string" && fields.includes(path))
        found[path] ??= sentence(message);
    }
  } else if (typeof details === "object" && details !== null) {
    const field = (details as { field?: unknown }).field;
    if (typeof field === "string" && fields.includes(field)) found[field] = error.message;
  }
  return found;
}
