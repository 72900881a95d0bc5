// npm install's last step: builds the whisper.cpp engine (every CPU level of this platform, see
// scripts/whisper-addon.mjs) and bundles the web console. Runs under plain node: npm runs it before
// anything else of ours is usable. package.json denies smart-whisper's own install script (allowScripts):
// it would compile a second, slower build that svc does not use.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { buildWhisperAddons } from "./whisper-addon.mjs";

async function buildWhisper() {
  try {
    await buildWhisperAddons();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    console.error(
      "svc: building whisper.cpp failed: it needs a C and C++ compiler (Debian and Ubuntu: apt install g++).",
    );
    process.exit(1);
  }
}

/** Bundles the web console with the Bun that npm just installed (src/web/dist, ~150 ms). */
function buildConsole() {
  const bun = path.join(process.cwd(), "node_modules/.bin/bun");
  if (!existsSync(bun) || !existsSync("scripts/build-console.ts")) return; // an install from a packed tarball
  const result = spawnSync(bun, ["scripts/build-console.ts"], { stdio: "inherit" });
  if (result.status !== 0) {
    console.error("svc: building the web console failed.");
    process.exit(1);
  }
}

await buildWhisper();
buildConsole();
