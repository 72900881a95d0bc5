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

const hiddenUserinfo = "***";

/**
 * A URL setting's value as the API shows it: a user name or password in it (`https://user:pass@…`)
 * is write-only like the API keys, shown as `https://***@host/…`.
 */
export function maskUserinfo(value: unknown): unknown {
  if (typeof value !== "string" || !value.includes("@")) return value;
  try {
    const url = new URL(value);
    if (url.username === "" && url.password === "") return value;
    return `${url.protocol}//${hiddenUserinfo}@${url.host}${url.pathname}${url.search}${url.hash}`;
  } catch {
    return value;
  }
}

/**
 * A URL written back as it was shown (`***` for its userinfo) keeps the user name and password
 * stored before, when it still names the same origin: saving a form does not erase a password.
 */
export function keepUserinfo(value: unknown, stored: unknown): unknown {
  if (typeof value !== "string" || typeof stored !== "string" || !value.includes(`//${hiddenUserinfo}@`))
    return value;
  try {
    const next = new URL(value.replace(`//${hiddenUserinfo}@`, "//"));
    const before = new URL(stored);
    if (next.origin !== before.origin) return value;
    next.username = before.username;
    next.password = before.password;
    return next.href;
  } catch {
    return value;
  }
}
