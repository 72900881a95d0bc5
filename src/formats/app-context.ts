import * as v from "valibot";
import { badRequest } from "../errors.ts";
import { describeIssues } from "../validation.ts";

/** The longest app name, window title and URL svc accepts, matches formats on and stores. */
export const appContextLimits = { app: 200, title: 1000, url: 4096 } as const;

const bounded = (field: keyof typeof appContextLimits) =>
  v.optional(
    v.pipe(
      v.string(),
      v.maxLength(appContextLimits[field], `${field} must be at most ${appContextLimits[field]} characters`),
    ),
  );

/** Where the user is dictating: the focused app, its window title, and the page URL in a browser. */
export const appContextSchema = v.object({
  app: bounded("app"),
  title: bounded("title"),
  url: bounded("url"),
});
export type AppContext = v.InferOutput<typeof appContextSchema>;

const invalid = (message: string, details?: unknown) =>
  badRequest(
    "invalid_app_context",
    `${message} Send x-app-context as JSON {"app","title","url"} or a bare app name, percent-encoded when not ASCII.`,
    details,
  );

/** Clients percent-encode the header (headers are Latin-1); a value that fails to decode is kept raw. */
function decodeHeader(raw: string): string {
  if (!/%[0-9A-Fa-f]{2}/.test(raw)) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Freestyle's clients spell two fields their own way (`appName`, `windowTitle`); svc's names win. */
function withSvcNames(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const { appName, windowTitle, ...rest } = value as Record<string, unknown>;
  return { app: appName, title: windowTitle, ...rest };
}

function fromObject(value: unknown): AppContext | null {
  if (Array.isArray(value)) throw invalid("The app context must be an object, not an array.");
  const result = v.safeParse(appContextSchema, withSvcNames(value));
  if (!result.success) throw invalid("The app context is not valid.", describeIssues(result.issues));
  const context: AppContext = {};
  for (const field of ["app", "title", "url"] as const) {
    const text = result.output[field]?.trim();
    if (text) context[field] = text;
  }
  return Object.keys(context).length > 0 ? context : null;
}

/**
 * Reads an app context from the `x-app-context` header (JSON object or bare app name, optionally
 * percent-encoded) or from an already-parsed object (a JSON body field). Absent or blank → null;
 * malformed → 400 `invalid_app_context`. Freestyle's `appName` and `windowTitle` stand for `app`
 * and `title` when those are absent; other fields (bundleId, …) are ignored.
 */
export function parseAppContext(raw: unknown): AppContext | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "string") return fromObject(raw);
  const text = decodeHeader(raw).trim();
  if (!text.startsWith("{")) return fromObject({ app: text });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid("The app context looks like JSON but does not parse.");
  }
  return fromObject(parsed);
}
