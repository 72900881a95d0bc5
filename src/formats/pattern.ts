import { foldCase, squashSpaces } from "../fold.ts";
import type { AppContext } from "./app-context.ts";

/**
 * Format pattern syntax (the `appPattern` field). No regular expressions, so a pattern can never
 * be slow, and every entry is checked when it is saved.
 *
 * - Alternatives are separated by `|`; spaces around them are ignored; matching is case-insensitive.
 * - `slack`, `visual studio code` (or `app:slack`): the app name contains these words as whole
 *   words: `code` matches "Code", "Visual Studio Code" and "Code.exe", not "Xcode". Chinese and
 *   Japanese characters need no word boundary.
 * - `title:gmail`: the same against the window title.
 * - `url:github.com`, `url:docs.google.com/document`: the page URL's host is that host or a
 *   subdomain of it (`www.` ignored), and its path starts with the given path, segment by segment.
 * - `*`: any app context at all (a catch-all; give it a low priority).
 */
export interface CompiledPattern {
  any: boolean;
  apps: string[];
  titles: string[];
  urls: { host: string; path: string }[];
}

/** An app context folded once per match call, so each format compares plain strings. */
export interface MatchTarget {
  app: string;
  title: string;
  host: string;
  path: string;
}

export const maxPatternLength = 2000;
export const maxAlternatives = 100;

const hostOf = (hostname: string) => hostname.toLowerCase().replace(/^www\./, "");

function safeDecode(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

function parseUrl(text: string): { host: string; path: string } | null {
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  if (!url?.hostname) return null;
  return { host: hostOf(url.hostname), path: foldCase(safeDecode(url.pathname)).replace(/\/+$/, "") };
}

/** Parses `pattern`; `problems` lists every bad alternative (empty when the pattern is usable). */
export function compilePattern(pattern: string): { compiled: CompiledPattern; problems: string[] } {
  const compiled: CompiledPattern = { any: false, apps: [], titles: [], urls: [] };
  const problems: string[] = [];
  const alternatives = pattern
    .split("|")
    .map((part) => squashSpaces(part))
    .filter(Boolean);
  if (alternatives.length === 0)
    problems.push("the pattern has no alternatives; list app names separated by |");
  if (alternatives.length > maxAlternatives) problems.push(`at most ${maxAlternatives} alternatives`);
  for (const alternative of alternatives) {
    const [, prefix = "app", rest = alternative] = /^(app|title|url):\s*(.*)$/i.exec(alternative) ?? [];
    const text = foldCase(rest);
    if (alternative === "*") compiled.any = true;
    else if (!text) problems.push(`"${alternative}" has nothing after the prefix`);
    else if (prefix.toLowerCase() === "url") {
      // "*.example.com" reads naturally, and subdomains match anyway.
      const url = parseUrl(rest.replace(/^\*\./, ""));
      if (url) compiled.urls.push(url);
      else problems.push(`"${alternative}" is not a host name (e.g. url:mail.google.com)`);
    } else (prefix.toLowerCase() === "title" ? compiled.titles : compiled.apps).push(text);
  }
  return { compiled, problems };
}

export function toMatchTarget(context: AppContext): MatchTarget {
  const url = context.url ? parseUrl(context.url) : null;
  return {
    app: foldCase(squashSpaces(context.app ?? "")),
    title: foldCase(squashSpaces(context.title ?? "")),
    host: url?.host ?? "",
    path: url?.path ?? "",
  };
}

const wordChar = /[\p{L}\p{N}\p{M}]/u;
const spacelessScript = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const needsBoundary = (char: string | undefined) =>
  char !== undefined && wordChar.test(char) && !spacelessScript.test(char);

/** True when `needle` occurs in `haystack` not glued to letters or digits on either side. */
export function containsWord(haystack: string, needle: string): boolean {
  const checkStart = needsBoundary(needle[0]);
  const checkEnd = needsBoundary(needle[needle.length - 1]);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    const startOk = !checkStart || before === undefined || !wordChar.test(before);
    const endOk = !checkEnd || after === undefined || !wordChar.test(after);
    if (startOk && endOk) return true;
  }
  return false;
}

const hostMatches = (host: string, wanted: string) => host === wanted || host.endsWith(`.${wanted}`);
const pathMatches = (path: string, wanted: string) =>
  wanted === "" || path === wanted || path.startsWith(`${wanted}/`);

export function matchesPattern(pattern: CompiledPattern, target: MatchTarget): boolean {
  if (pattern.any) return target.app !== "" || target.title !== "" || target.host !== "";
  if (target.app && pattern.apps.some((app) => containsWord(target.app, app))) return true;
  if (target.title && pattern.titles.some((title) => containsWord(target.title, title))) return true;
  return (
    target.host !== "" &&
    pattern.urls.some((url) => hostMatches(target.host, url.host) && pathMatches(target.path, url.path))
  );
}
