// `bun run bench`: every benchmark, one after another, each printing figures measured side by side.
// Benchmarks never fail on a timing; they print ratios against their targets.
// `bun run bench http text` runs only the named ones.
const suites: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  http: () => import("./bench/http.ts"),
  body: () => import("./bench/body.ts"),
  history: () => import("./bench/history.ts"),
  dictionary: () => import("./bench/dictionary.ts"),
  text: () => import("./bench/text.ts"),
  audio: () => import("./bench/audio.ts"),
  engines: () => import("./bench/engines.ts"),
  transcribe: () => import("./bench/transcribe.ts"),
  memory: () => import("./bench/memory.ts"),
};

const wanted = process.argv.slice(2);
for (const [name, load] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  await (await load()).run();
}

export {};
