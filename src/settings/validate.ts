import { AppError, badRequest, payloadTooLarge } from "../errors.ts";
import { parseReported } from "../validation.ts";
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
      throw badRequest("invalid_setting", `Invalid value for setting "${key}": ${result.lines.join("; ")}.`, {
        key,
        issues: result.details,
        accepted: def.description,
      });
    }
    parsed = result.output;
  }
  const json = JSON.stringify(parsed);
  if (json === undefined) {
    throw badRequest("invalid_setting", `Setting "${key}" needs a JSON value.`, { key });
  }
  const limit = def ? maxKnownValueBytes : maxCustomValueBytes;
  if (Buffer.byteLength(json) > limit) {
    throw payloadTooLarge(`The value of setting "${key}" is larger than ${limit} bytes of JSON.`, {
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
