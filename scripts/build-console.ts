// Bundles the web console (src/web/console, Preact TSX) into src/web/dist/, fixed file names that
// src/web/assets.ts embeds in the binary and serves under content-hashed URLs. `bun run start`,
// `bun run build`, the tests and `npm install` run it: about 150 ms, so no stale console is served.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const root = join(import.meta.dir, "..");
export const consoleOutDir = join(root, "src/web/dist");

/** Browser entries: the output file is named after the entry file (app.tsx → app.js, app.css). */
// frame.ts is the bridge script svc adds to plugin pages (served as bridge.js).
const entries = ["src/web/console/app.tsx", "src/web/console/audio/worklet.ts", "src/web/bridge/frame.ts"];

export async function buildConsole(options: { quiet?: boolean } = {}): Promise<void> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: entries.map((entry) => join(root, entry)),
    target: "browser",
    format: "esm",
    minify: true,
    naming: { entry: "[name].[ext]", asset: "[name].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("building the web console failed");
  }
  // Only changed files are written: `bun --watch` (bun run dev) restarts when an embedded file changes.
  mkdirSync(consoleOutDir, { recursive: true });
  const names = new Set<string>();
  for (const output of result.outputs) {
    // A script is written as `<name>.js.asset`: TypeScript then types its embedding import by the
    // `*.asset` declaration, whether or not the build has run yet.
    const name = basename(output.path).replace(/\.js$/, ".js.asset");
    names.add(name);
    const file = join(consoleOutDir, name);
    const bytes = new Uint8Array(await output.arrayBuffer());
    if (!existsSync(file) || !Buffer.from(bytes).equals(readFileSync(file))) writeFileSync(file, bytes);
  }
  for (const name of readdirSync(consoleOutDir)) if (!names.has(name)) rmSync(join(consoleOutDir, name));
  if (!options.quiet) {
    const sizes = result.outputs.map((out) => `${basename(out.path)} ${out.size} B`);
    console.log(
      `built the web console in ${Math.round(performance.now() - started)} ms: ${sizes.join(", ")}`,
    );
  }
}

if (import.meta.main) await buildConsole();
