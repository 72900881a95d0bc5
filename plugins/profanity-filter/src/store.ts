import type { PluginLogger, PluginStorage } from "svc-sdk";
import { defaultReplacements } from "./defaults.ts";
import { compileMatcher, type Matcher, normaliseWord } from "./matcher.ts";

export const storageKey = "replacements";
export const maxEntries = 2000;
export const maxAlternatives = 20;
export const maxLength = 100;

export interface ReplacementList {
  entries(): { word: string; alternatives: string[] }[];
  has(word: string): boolean;
  matcher(): Matcher;
  /**
   * Each mutation saves the whole changed list, then rebuilds the matcher: a change storage refuses
   * (too large) is not applied, so the live list always equals the stored one.
   */
  put(word: string, alternatives: string[]): Promise<void>;
  remove(word: string): Promise<boolean>;
  reset(): Promise<void>;
}

/** Cleans a stored or submitted list, dropping what is not a word with string alternatives. */
export function cleanList(value: unknown): Map<string, string[]> {
  const map = new Map<string, string[]>();
  if (typeof value !== "object" || value === null || Array.isArray(value)) return map;
  for (const [word, alternatives] of Object.entries(value)) {
    const key = normaliseWord(word);
    if (!key || key.length > maxLength || !Array.isArray(alternatives)) continue;
    const clean = alternatives.filter(
      (item): item is string => typeof item === "string" && item.trim() !== "",
    );
    if (clean.length > 0) map.set(key, clean.slice(0, maxAlternatives));
  }
  return map;
}

const copyDefaults = () =>
  new Map(Object.entries(defaultReplacements).map(([word, alts]) => [word, [...alts]]));

/** Loads the list from storage, or seeds it with the defaults when none is stored. */
export async function loadList(storage: PluginStorage, logger: PluginLogger): Promise<ReplacementList> {
  const stored = await storage.get(storageKey);
  const usable = typeof stored === "object" && stored !== null && !Array.isArray(stored);
  let map = usable ? cleanList(stored) : copyDefaults();
  let matcher = compileMatcher(map);
  /** Stores `next`; only then does it become the live list. */
  const commit = async (next: Map<string, string[]>) => {
    await storage.set(storageKey, Object.fromEntries(next));
    map = next;
    matcher = compileMatcher(map);
  };
  if (!usable) {
    await commit(map);
    logger.info(`loaded the default list of ${map.size} words`);
  }
  return {
    entries: () =>
      [...map.entries()]
        .map(([word, alternatives]) => ({ word, alternatives: [...alternatives] }))
        .sort((a, b) => a.word.localeCompare(b.word)),
    has: (word) => map.has(normaliseWord(word)),
    matcher: () => matcher,
    async put(word, alternatives) {
      await commit(new Map(map).set(normaliseWord(word), alternatives));
    },
    async remove(word) {
      const next = new Map(map);
      const removed = next.delete(normaliseWord(word));
      if (removed) await commit(next);
      return removed;
    },
    async reset() {
      await commit(copyDefaults());
    },
  };
}
