// A stored API key belongs to the server it was entered for. Whoever can write settings could
// otherwise point the key's base URL at themselves and receive the key with the next request.
import { type SettingDef, settingKeys, settingsCatalog } from "./catalog.ts";

/** The secrets sent to the URL setting `key` (llm_api_key for llm_base_url). */
export function secretsBoundTo(key: string): string[] {
  return settingKeys.filter((secret) => (settingsCatalog[secret] as SettingDef).boundTo === key);
}

/** The origin a URL setting's value sends to; null when there is none (unset, or not a URL). */
export function originOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}
