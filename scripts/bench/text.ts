// Text-pipeline benchmark: a 200-word dictation through deterministic cleanup and a 10k-key
// dictionary, beside the common alternative (one case-insensitive regex per key, applied
// sequentially, longest key first) on the same input; and the matcher's build time for 10k keys.
// Targets: ours p50 ≤ 1 ms, the alternative ≥ 20× slower. Printed, never enforced.
import { type CleanupOptions, cleanTranscript } from "../../src/dictation/text/cleanup/cleanup.ts";
import { compileDictionary, type DictionaryEntry } from "../../src/dictation/text/dictionary-matcher.ts";
import { defaultFormatStyle } from "../../src/formats/style.ts";
import { fmt, percentile, table } from "./util.ts";

const DICTATION = [
  "Um, so I I wanted to give you a quick update on the kubernetes migration period we moved the billing",
  "service over to the new cluster on Tuesday comma and uh the github actions pipeline is green again",
  "period th-th-the only thing left is the post gres failover comma which we're testing with acme corp",
  "this week period new paragraph on the front end side comma the type script upgrade landed and",
  "the design team shipped the new onboarding flow period Sarah from product asked whether we can",
  "move the launch to the fifteenth question mark I think we can comma but um we need the load tests",
  "from the sre team first period also comma please remember to update the jira tickets before Friday",
  "so that the weekly report is accurate period I'll send the notes from the retro later today comma",
  "and if anything is unclear just ping me on slack or send an email to the team alias period new",
  "paragraph one more thing colon the security review for the payments api is scheduled for next",
  "Monday at ten comma and we still need someone from the platform team to join period could you",
  "check who is available question mark thanks comma and have a great weekend exclamation mark",
].join(" ");

/** Deterministic PRNG (mulberry32), so every run benchmarks the same dictionary. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 10k entries: 12 that occur in the dictation, the rest plausible names and jargon that do not. */
function makeDictionary(): DictionaryEntry[] {
  const real: Array<[string, string]> = [
    ["kubernetes", "Kubernetes"],
    ["github actions", "GitHub Actions"],
    ["post gres", "Postgres"],
    ["acme corp", "ACME Corp."],
    ["type script", "TypeScript"],
    ["jira", "Jira"],
    ["sre", "SRE"],
    ["slack", "Slack"],
    ["api", "API"],
    ["retro", "retrospective"],
    ["sarah", "Sarah Lee"],
    ["onboarding flow", "onboarding flow (v2)"],
  ];
  const next = random(42);
  const syllables = "ka lo mi ne su ta ri vo ze an el or ix um pa de fo gu hy ja".split(" ");
  const word = () =>
    Array.from({ length: 2 + Math.floor(next() * 3) }, () => syllables[Math.floor(next() * 20)]).join("");
  const entries = real.map(([key, value], index) => ({ id: index + 1, key, value }));
  const seen = new Set(real.map(([key]) => key));
  while (entries.length < 10_000) {
    const key = next() < 0.3 ? `${word()} ${word()}` : word();
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push({ id: entries.length + 1, key, value: key.toUpperCase() });
  }
  return entries;
}

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/gu, "\\$&");

/** The common alternative, compiled once up front (the best case for it): one regex per key. */
function naiveDictionary(entries: readonly DictionaryEntry[]): (text: string) => string {
  const rules = [...entries]
    .sort((a, b) => b.key.length - a.key.length)
    .map((entry) => ({
      pattern: new RegExp(
        `(?<![\\p{L}\\p{N}\\p{M}_])${escapeRegExp(entry.key)}(?![\\p{L}\\p{N}\\p{M}_])`,
        "giu",
      ),
      value: entry.value,
    }));
  return (text) => {
    let out = text;
    for (const rule of rules) out = out.replace(rule.pattern, () => rule.value);
    return out;
  };
}

function measure(iterations: number, warmup: number, fn: () => unknown): number[] {
  for (let index = 0; index < warmup; index += 1) fn();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}

export async function run(): Promise<void> {
  const options: CleanupOptions = { ...defaultFormatStyle, extraFillers: [], language: "en" };
  const entries = makeDictionary();
  const words = DICTATION.split(/\s+/u).length;

  const builds = measure(20, 3, () => compileDictionary(entries));
  const matcher = compileDictionary(entries);
  const naive = naiveDictionary(entries);

  const ours = measure(5000, 500, () => matcher.apply(cleanTranscript(DICTATION, options)).text);
  const cleanupOnly = measure(5000, 500, () => cleanTranscript(DICTATION, options));
  const cleaned = cleanTranscript(DICTATION, options);
  const dictionaryOnly = measure(5000, 500, () => matcher.apply(cleaned));
  const alternative = measure(100, 5, () => naive(cleanTranscript(DICTATION, options)));

  const ourText = matcher.apply(cleaned).text;
  const sameOutput = ourText === naive(cleaned);
  const p50 = percentile(ours, 50);
  const ratio = percentile(alternative, 50) / p50;

  console.log(`input: ${words} words, ${DICTATION.length} chars; dictionary: ${entries.length} keys`);
  table([
    ["pipeline", "p50 ms", "p95 ms", "p50 vs ours"],
    ["cleanup + trie matcher (ours)", fmt(p50, 3), fmt(percentile(ours, 95), 3), "1.0×"],
    ["  cleanup alone", fmt(percentile(cleanupOnly, 50), 3), fmt(percentile(cleanupOnly, 95), 3), ""],
    [
      "  trie matcher alone",
      fmt(percentile(dictionaryOnly, 50), 3),
      fmt(percentile(dictionaryOnly, 95), 3),
      "",
    ],
    [
      "cleanup + regex per key (naive)",
      fmt(percentile(alternative, 50), 3),
      fmt(percentile(alternative, 95), 3),
      `${fmt(ratio, 0)}×`,
    ],
  ]);
  console.log(
    `matcher build, 10k keys: p50 ${fmt(percentile(builds, 50), 1)} ms, p95 ${fmt(percentile(builds, 95), 1)} ms`,
  );
  console.log(
    `targets: ours p50 ≤ 1 ms (${p50 <= 1 ? "met" : "missed"}), naive ≥ 20× (${ratio >= 20 ? "met" : "missed"})`,
  );
  console.log(`same output as the naive pass: ${sameOutput ? "yes" : "no"}`);
}

if (import.meta.main) await run();
