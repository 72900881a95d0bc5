// `bun run build`: bundles src/ into dist/index.js (svc-sdk stays external: svc provides it)
// and copies the page into dist/ui/. `--outdir DIR` builds elsewhere (the freshness test).
import { cpSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ args: process.argv.slice(2), options: { outdir: { type: "string" } } });
const root = import.meta.dir;
const outdir = resolve(values.outdir ?? join(root, "dist"));
// Bun names each module in the bundle relative to the working directory: keep it stable.
process.chdir(root);

const result = await Bun.build({
  entrypoints: [join(root, "src", "index.ts")],
  outdir,
  naming: "index.js",
  target: "bun",
  format: "esm",
  external: ["svc-sdk"],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
mkdirSync(join(outdir, "ui"), { recursive: true });
cpSync(join(root, "ui", "index.html"), join(outdir, "ui", "index.html"));
console.log(`built ${outdir}`);
