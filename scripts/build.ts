// `bun run build` compiles svc into one executable: dist/svc for this machine, or
// `bun run build --target all` for every release platform (dist/svc-<platform>[.exe]).
import { parseArgs } from "node:util";
import { workerEntries } from "../src/dictation/engines/registry.ts";
import { buildConsole } from "./build-console.ts";

const platforms = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
} as const;
type Platform = keyof typeof platforms;

const hostPlatform = () => `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

// Optional codecs that audio-decode imports only when present.
const externals = ["@audio/decode-ape"];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string" } },
});

async function compile(target: Platform | undefined, outfile: string): Promise<void> {
  const args = [
    "build",
    "src/main.ts",
    // Engines that run in a Worker (sphinx): their entries are compiled in at known paths (--root .).
    ...workerEntries,
    "--root",
    ".",
    "--compile",
    "--minify-syntax",
    "--minify-whitespace",
    // Lazily imported modules (the compressed-audio codecs: about 9 MB of inlined WASM) become
    // chunks that are read only when first used, instead of pages every process touches at start.
    "--splitting",
    // A binary must behave the same wherever it is started: no .env or bunfig.toml from the cwd.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...externals.map((name) => `--external=${name}`),
    `--outfile=${outfile}`,
  ];
  if (target) args.push(`--target=${platforms[target]}`);
  if (target && target !== hostPlatform()) {
    // The whisper.cpp addon in node_modules was built for this machine; it cannot run elsewhere.
    console.warn(
      `warning: ${outfile} embeds this machine's whisper.cpp addon (${hostPlatform()}); the whisper engine will ` +
        `report itself unavailable on ${target}. Build on ${target} after npm install for a working whisper engine.`,
    );
  }
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, ...args], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`bun build failed for ${target ?? "this machine"}`);
  console.log(`built ${outfile} in ${Math.round(performance.now() - started)} ms`);
}

await buildConsole();
const requested = values.target;
if (requested === "all") {
  for (const platform of Object.keys(platforms) as Platform[]) {
    await compile(platform, `dist/svc-${platform}${platform.startsWith("windows") ? ".exe" : ""}`);
  }
} else if (requested && !(requested in platforms)) {
  console.error(`unknown target ${requested}; use one of ${Object.keys(platforms).join(", ")} or all`);
  process.exit(2);
} else {
  await compile(requested as Platform | undefined, values.outfile ?? "dist/svc");
}
