import { AppError, badRequest, payloadTooLarge } from "../errors.ts";
import { type FieldIssue, parseReported } from "../validation.ts";
import { isKnownSetting, retiredSettings, type SettingDef, settingsCatalog } from "./catalog.ts";

/** Client preferences (unknown keys) are opaque but bounded, so settings cannot become a blob store. */
export const customKeyPattern = /^[a-z0-9][a-z0-9_.:-]{0,99}$/;
export const maxCustomValueBytes = 16 * 1024;
export const maxKnownValueBytes = 256 * 1024;
export const maxCustomKeys = 200;
// `schema` is a route (GET /api/settings/schema), so it cannot also name a preference.
const reservedKeys = new Set(["schema"]);

export const settingDef = (key: string): SettingDef | undefined =>
  isKnownSetting(key) ? (settingsCatalog[key] as SettingDef) : undefined;

/** What a person calls `key`: its label, or for a client preference the key itself. */
export const settingLabel = (key: string): string => settingDef(key)?.label ?? `“${key}”`;

/** One problem in words: its unit after a bound, where in a list it is. */
function problem(issue: FieldIssue, unit: string | undefined): string {
  const bound = unit === undefined ? undefined : /at (?:least|most) (-?[\d.]+)$/.exec(issue.message)?.[1];
  const one = bound === "1" && unit !== undefined && /^[a-z]+s$/.test(unit);
  const text = bound === undefined ? issue.message : `${issue.message} ${one ? unit?.slice(0, -1) : unit}`;
  const entry = /^\d+/.exec(issue.path)?.[0];
  return entry === undefined ? text : `${text} (entry ${Number(entry) + 1})`;
}

/** The sentence a person reads for a refused value: "LLM timeout must be at least 500 ms." */
export function refusalSentence(key: string, issues: readonly FieldIssue[]): string {
  const label = settingLabel(key);
  const problems = issues.map((issue) => problem(issue, settingDef(key)?.unit));
  const text = problems.join("; ");
  const sentence = text.startsWith("must ") ? `${label} ${text}` : `${label}: ${text}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export function assertSettingKey(key: string): void {
  if (isKnownSetting(key)) return;
  const variable = Object.hasOwn(retiredSettings, key) ? retiredSettings[key] : undefined;
  if (variable !== undefined) {
    throw badRequest(
      "invalid_setting_key",
      `"${key}" is no longer a setting: it became the environment variable ${variable}, which the operator sets where svc starts (a client may not raise it over the API).`,
      { key, variable },
    );
  }
  if (!customKeyPattern.test(key) || reservedKeys.has(key)) {
    throw badRequest(
      "invalid_setting_key",
      `Setting key "${key.slice(0, 120)}" is not valid: use 1-100 characters of a-z, 0-9, "_", ".", ":" or "-", starting with a letter or digit ("schema" is reserved).`,
      { key },
    );
  }
}

/** Checks `value` for `key` and returns the JSON text to store. */
export function encodeSetting(key: string, value: unknown): { json: string; value: unknown } {
  assertSettingKey(key);
  const def = settingDef(key);
  let parsed = value;
  if (def) {
    const result = parseReported(def.schema, value);
    if (!result.success) {
      throw badRequest("invalid_setting", refusalSentence(key, result.details), {
        key,
        issues: result.details,
        accepted: def.description,
      });
    }
    parsed = result.output;
  }
  const json = JSON.stringify(parsed);
  if (json === undefined) {
    throw badRequest("invalid_setting", `${settingLabel(key)} needs a value.`, { key });
  }
  const limit = def ? maxKnownValueBytes : maxCustomValueBytes;
  if (Buffer.byteLength(json) > limit) {
    throw payloadTooLarge(`${settingLabel(key)} is too long: it may take at most ${limit / 1024} KiB.`, {
      key,
      limit,
    });
  }
  return { json, value: parsed };
}

export const tooManySettings = () =>
  new AppError(
    "too_many_settings",
    `At most ${maxCustomKeys} client preference keys may be stored; delete some before adding more.`,
    { details: { limit: maxCustomKeys } },
  );
