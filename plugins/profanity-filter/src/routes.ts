import type { PluginMiddleware, PluginRequestContext } from "svc-sdk";
import { normaliseWord } from "./matcher.ts";
import { maxAlternatives, maxEntries, maxLength, type ReplacementList } from "./store.ts";

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const fail = (c: PluginRequestContext, error: RequestError) =>
  c.json({ error: { code: error.code, message: error.message } }, error.status);

async function body(c: PluginRequestContext): Promise<Record<string, unknown>> {
  let json: unknown;
  try {
    json = JSON.parse(await c.req.text());
  } catch {
    throw new RequestError(400, "invalid_json", "The body must be JSON.");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new RequestError(400, "invalid_request", "The body must be a JSON object.");
  }
  return json as Record<string, unknown>;
}

function readWord(value: unknown): string {
  const word = typeof value === "string" ? normaliseWord(value) : "";
  if (!word) throw new RequestError(400, "invalid_request", "word is required: a word or phrase.");
  if (word.length > maxLength)
    throw new RequestError(400, "invalid_request", `word is longer than ${maxLength} characters.`);
  return word;
}

/** `alternatives` as an array of strings, or one comma-separated string. */
function readAlternatives(value: unknown): string[] {
  const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [];
  const clean = list.filter((item): item is string => typeof item === "string").map((item) => item.trim());
  const kept = clean.filter((item) => item !== "");
  if (kept.length === 0)
    throw new RequestError(400, "invalid_request", "alternatives needs at least one word.");
  if (kept.length > maxAlternatives || kept.some((item) => item.length > maxLength)) {
    throw new RequestError(
      400,
      "invalid_request",
      `at most ${maxAlternatives} alternatives of ${maxLength} characters each.`,
    );
  }
  return kept;
}

/** GET/POST/PUT/DELETE `<base>/replacements` and POST `<base>/replacements/reset`. */
export function replacementRoutes(
  base: () => string,
  list: () => ReplacementList,
  preserveCase: boolean,
): PluginMiddleware {
  const listing = () => {
    const replacements = list().entries();
    return { preserveCase, count: replacements.length, replacements };
  };
  return async (c, next) => {
    const root = `${base()}/replacements`;
    const path = c.req.path.replace(/\/$/, "");
    if (path !== root && path !== `${root}/reset`) return next();
    try {
      const method = c.req.method;
      if (path === `${root}/reset`) {
        if (method !== "POST")
          throw new RequestError(405, "method_not_allowed", "Use POST to reset the list.");
        await list().reset();
        return c.json(listing());
      }
      if (method === "GET") return c.json(listing());
      if (method === "DELETE") {
        const word = readWord(c.req.query("word") ?? (await body(c)).word);
        if (!(await list().remove(word)))
          throw new RequestError(404, "not_found", `"${word}" is not in the list.`);
        return c.json({ deleted: word });
      }
      if (method !== "POST" && method !== "PUT") {
        throw new RequestError(405, "method_not_allowed", "Use GET, POST, PUT or DELETE.");
      }
      const input = await body(c);
      const word = readWord(input.word);
      const alternatives = readAlternatives(input.alternatives);
      const exists = list().has(word);
      if (method === "POST" && exists) {
        throw new RequestError(409, "conflict", `"${word}" is already in the list; use PUT to change it.`);
      }
      if (!exists && list().entries().length >= maxEntries) {
        throw new RequestError(413, "list_full", `The list holds at most ${maxEntries} words.`);
      }
      await list().put(word, alternatives);
      return c.json({ word, alternatives }, exists ? 200 : 201);
    } catch (error) {
      if (error instanceof RequestError) return fail(c, error);
      const code = (error as { code?: unknown }).code;
      if (code === "value_too_large" || code === "storage_full") {
        return fail(c, new RequestError(413, "list_too_large", "The list is too large to store."));
      }
      throw error;
    }
  };
}
