// @bun
// src/index.ts
import { transform } from "svc-sdk";

// src/matcher.ts
var normaliseWord = (word) => word.trim().replace(/\s+/g, " ").toLowerCase();
var escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function matchCase(matched, replacement) {
  const hasLetters = matched.toLowerCase() !== matched.toUpperCase();
  if (hasLetters && matched === matched.toUpperCase() && matched.length > 1)
    return replacement.toUpperCase();
  const first = matched.charAt(0);
  if (first !== first.toLowerCase())
    return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  return replacement;
}
function compileMatcher(replacements) {
  const words = [...replacements.entries()].filter(([word, alternatives]) => word.length > 0 && alternatives.length > 0).map(([word]) => word).sort((a, b) => b.length - a.length);
  if (words.length === 0)
    return { apply: (text) => text };
  const alternation = words.map((word) => word.split(" ").map(escapeRegExp).join("\\s+")).join("|");
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternation})(?![\\p{L}\\p{N}_])`, "giu");
  return {
    apply(text, { preserveCase }) {
      const turns = new Map;
      return text.replace(pattern, (matched) => {
        const key = normaliseWord(matched);
        const alternatives = replacements.get(key);
        if (!alternatives || alternatives.length === 0)
          return matched;
        const turn = turns.get(key) ?? 0;
        turns.set(key, turn + 1);
        const replacement = alternatives[turn % alternatives.length] ?? matched;
        return preserveCase ? matchCase(matched, replacement) : replacement;
      });
    }
  };
}

// src/defaults.ts
var defaultReplacements = {
  "son of a bitch": ["son of a gun", "son of a biscuit"],
  "god damn it": ["gosh darn it"],
  goddamn: ["gosh darn"],
  "damn it": ["darn it", "dang it"],
  "piece of shit": ["piece of junk"],
  "what the fuck": ["what the heck"],
  "shut the fuck up": ["please be quiet"],
  fuck: ["fudge", "frick"],
  fucking: ["freaking", "flipping"],
  fucked: ["messed up", "frigged"],
  fucker: ["jerk"],
  motherfucker: ["mother trucker"],
  shit: ["shoot", "crap"],
  shitty: ["crummy", "lousy"],
  bullshit: ["nonsense", "baloney"],
  damn: ["darn", "dang"],
  damned: ["darned"],
  bitch: ["witch"],
  bitchy: ["grumpy"],
  asshole: ["jerk", "meanie"],
  arse: ["bum"],
  arsehole: ["jerk"],
  ass: ["butt"],
  bastard: ["rascal"],
  crap: ["junk"],
  dick: ["jerk"],
  dickhead: ["doofus"],
  piss: ["pee"],
  pissed: ["annoyed"],
  "pissed off": ["ticked off"],
  bloody: ["flipping"],
  bollocks: ["nonsense"],
  bugger: ["blighter"],
  wanker: ["prat"],
  hell: ["heck"]
};

// src/store.ts
var storageKey = "replacements";
var maxEntries = 2000;
var maxAlternatives = 20;
var maxLength = 100;
function cleanList(value) {
  const map = new Map;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return map;
  for (const [word, alternatives] of Object.entries(value)) {
    const key = normaliseWord(word);
    if (!key || key.length > maxLength || !Array.isArray(alternatives))
      continue;
    const clean = alternatives.filter((item) => typeof item === "string" && item.trim() !== "");
    if (clean.length > 0)
      map.set(key, clean.slice(0, maxAlternatives));
  }
  return map;
}
var copyDefaults = () => new Map(Object.entries(defaultReplacements).map(([word, alts]) => [word, [...alts]]));
async function loadList(storage, logger) {
  const stored = await storage.get(storageKey);
  const usable = typeof stored === "object" && stored !== null && !Array.isArray(stored);
  let map = usable ? cleanList(stored) : copyDefaults();
  let matcher = compileMatcher(map);
  const commit = async (next) => {
    await storage.set(storageKey, Object.fromEntries(next));
    map = next;
    matcher = compileMatcher(map);
  };
  if (!usable) {
    await commit(map);
    logger.info(`loaded the default list of ${map.size} words`);
  }
  return {
    entries: () => [...map.entries()].map(([word, alternatives]) => ({ word, alternatives: [...alternatives] })).sort((a, b) => a.word.localeCompare(b.word)),
    has: (word) => map.has(normaliseWord(word)),
    matcher: () => matcher,
    async put(word, alternatives) {
      await commit(new Map(map).set(normaliseWord(word), alternatives));
    },
    async remove(word) {
      const next = new Map(map);
      const removed = next.delete(normaliseWord(word));
      if (removed)
        await commit(next);
      return removed;
    },
    async reset() {
      await commit(copyDefaults());
    }
  };
}

// src/routes.ts
class RequestError extends Error {
  status;
  code;
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
var fail = (c, error) => c.json({ error: { code: error.code, message: error.message } }, error.status);
async function body(c) {
  let json;
  try {
    json = JSON.parse(await c.req.text());
  } catch {
    throw new RequestError(400, "invalid_json", "The body must be JSON.");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new RequestError(400, "invalid_request", "The body must be a JSON object.");
  }
  return json;
}
function readWord(value) {
  const word = typeof value === "string" ? normaliseWord(value) : "";
  if (!word)
    throw new RequestError(400, "invalid_request", "word is required: a word or phrase.");
  if (word.length > maxLength)
    throw new RequestError(400, "invalid_request", `word is longer than ${maxLength} characters.`);
  return word;
}
function readAlternatives(value) {
  const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [];
  const clean = list.filter((item) => typeof item === "string").map((item) => item.trim());
  const kept = clean.filter((item) => item !== "");
  if (kept.length === 0)
    throw new RequestError(400, "invalid_request", "alternatives needs at least one word.");
  if (kept.length > maxAlternatives || kept.some((item) => item.length > maxLength)) {
    throw new RequestError(400, "invalid_request", `at most ${maxAlternatives} alternatives of ${maxLength} characters each.`);
  }
  return kept;
}
function replacementRoutes(base, list, preserveCase) {
  const listing = () => {
    const replacements = list().entries();
    return { preserveCase, count: replacements.length, replacements };
  };
  return async (c, next) => {
    const root = `${base()}/replacements`;
    const path = c.req.path.replace(/\/$/, "");
    if (path !== root && path !== `${root}/reset`)
      return next();
    try {
      const method = c.req.method;
      if (path === `${root}/reset`) {
        if (method !== "POST")
          throw new RequestError(405, "method_not_allowed", "Use POST to reset the list.");
        await list().reset();
        return c.json(listing());
      }
      if (method === "GET")
        return c.json(listing());
      if (method === "DELETE") {
        const word = readWord(c.req.query("word") ?? (await body(c)).word);
        if (!await list().remove(word))
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
      if (error instanceof RequestError)
        return fail(c, error);
      const code = error.code;
      if (code === "value_too_large" || code === "storage_full") {
        return fail(c, new RequestError(413, "list_too_large", "The list is too large to store."));
      }
      throw error;
    }
  };
}

// src/index.ts
var profanityFilter = (options = {}) => {
  const preserveCase = options.preserveCase !== false;
  let base = "";
  let replacements;
  const list = () => {
    if (!replacements)
      throw new Error("the profanity filter has not been set up");
    return replacements;
  };
  return {
    name: "@svc/profanity-filter",
    async setup(ctx) {
      base = ctx.basePath;
      replacements = await loadList(ctx.storage, ctx.logger);
    },
    middleware: [replacementRoutes(() => base, list, preserveCase)],
    afterCleanup: transform((text) => replacements ? replacements.matcher().apply(text, { preserveCase }) : text)
  };
};
var src_default = profanityFilter;
export {
  src_default as default
};
