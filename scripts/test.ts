// `npm test` / `bun run test`: makes sure the Debian packages the suite needs are present, then
// runs `bun test` with any extra arguments (`npm test -- test/app.test.ts`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDebianPackages } from "./debian.ts";
import { buildWhisperAddons } from "./whisper-addon.mjs";

const listed = readFileSync(join(import.meta.dir, "test-packages.txt"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter(Boolean);

ensureDebianPackages(listed, "tests");
// The packages may have arrived after `npm install`: the Vulkan build its tests run (made once; a
// no-op while its inputs are unchanged).
await buildWhisperAddons();

// 30 s a test: the end-to-end tests start servers and browsers. (bunfig.toml's [test] timeout is
// not read by this Bun; the flag is.)
const tests = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(await tests.exited);
