import * as v from "valibot";

// Value schemas the settings catalog shares with the rooms that read those settings: the catalog
// sits below them, so the schemas live here and the dictation room imports them.

/**
 * A spoken-language value as svc accepts it everywhere (the `language` setting, the `x-language`
 * header, `POST /api/post-process`): "auto" or an ISO 639 code with an optional region, lower-cased.
 */
export const languageSchema = v.pipe(
  v.string('must be "auto" or an ISO 639 code such as "en" or "pt-br"'),
  v.trim(),
  v.toLowerCase(),
  v.transform((tag) => tag.replace("_", "-")),
  v.regex(
    /^(?:auto|[a-z]{2,3}(?:-[a-z0-9]{2,8})?)$/,
    'must be "auto" or an ISO 639 code such as "en" or "pt-br"',
  ),
);

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** Go's duration syntax, as Ollama takes it: "30s", "5m", "1h30m", "1.5h"; or a bare number of seconds. */
const durationPattern = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

/** How many milliseconds a keep_alive value stands for; Infinity for a negative one (never). */
export function keepAliveMs(value: string | number): number {
  if (typeof value === "number") return value < 0 ? Number.POSITIVE_INFINITY : value * 1000;
  const text = value.trim();
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return keepAliveMs(Number(text));
  if (text.startsWith("-")) return Number.POSITIVE_INFINITY;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(amount) * (units[unit ?? "s"] ?? 1000);
  }
  return ms;
}

export const keepAliveSchema = v.union(
  [
    v.pipe(v.number(), v.finite()),
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (text) => /^-?\d+(?:\.\d+)?$/.test(text) || durationPattern.test(text.replace(/^-/, "")),
        'must be a duration such as "30s", "5m" or "1h", a number of seconds, 0 or -1',
      ),
    ),
  ],
  'must be a duration such as "30s", "5m" or "1h", a number of seconds, 0 (after each dictation) or -1 (never)',
);

const modelNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A usable model name, whatever the engine: what an engine's model store and `stt_model` accept. */
export const isModelName = (id: string): boolean => modelNamePattern.test(id) && !id.endsWith(".bin");
