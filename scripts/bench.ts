// `bun run bench`: every benchmark, one after another, each printing figures measured side by side.
// Benchmarks never fail on a timing; they print ratios against their targets.
// `bun run bench http text` runs only the named ones; `bun run bench live wyoming --contended` runs
// the speech benches beside a busy loop on every core.
import { ensureDebianPackages } from "./debian.ts";

interface Suite {
  load: () => Promise<{ run(): Promise<void> }>;
  /** Debian packages the suite cannot run without: installed before any suite runs, as root. */
  debianPackages?: string[];
}

const suites: Record<string, Suite> = {
  // wrk: a C load generator that outruns one core of Bun (a Node one saturated first).
  http: { load: () => import("./bench/http.ts"), debianPackages: ["wrk"] },
  body: { load: () => import("./bench/body.ts") },
  history: { load: () => import("./bench/history.ts") },
  dictionary: { load: () => import("./bench/dictionary.ts") },
  text: { load: () => import("./bench/text.ts") },
  audio: { load: () => import("./bench/audio.ts") },
  engines: { load: () => import("./bench/engines.ts") },
  transcribe: { load: () => import("./bench/transcribe.ts") },
  builds: { load: () => import("./bench/builds.ts") },
  // The CPU build against each GPU device the GPU builds find, and whisper.cpp's own tool on each.
  devices: { load: () => import("./bench/devices.ts") },
  openai: { load: () => import("./bench/openai.ts") },
  vad: { load: () => import("./bench/vad.ts") },
  live: { load: () => import("./bench/live.ts") },
  wyoming: { load: () => import("./bench/wyoming.ts") },
  "wyoming-flood": { load: () => import("./bench/wyoming-flood.ts") },
  memory: { load: () => import("./bench/memory.ts") },
  // Debian's Chromium drives the console as a person's browser would.
  console: { load: () => import("./bench/console.ts"), debianPackages: ["chromium"] },
};

// Flags (`--contended`) are read by the suites themselves.
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const selected = Object.entries(suites).filter(([name]) => wanted.length === 0 || wanted.includes(name));
ensureDebianPackages([...new Set(selected.flatMap(([, suite]) => suite.debianPackages ?? []))], "benchmarks");
for (const [name, suite] of selected) {
  console.log(`\n=== ${name} ===`);
  await (await suite.load()).run();
}
