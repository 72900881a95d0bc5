// `npm test` / `bun run test`: makes sure the Debian packages the suite needs are present, then
// runs `bun test` with any extra arguments (`npm test -- test/app.test.ts`).
import { readFileSync } from "node:fs";
import { join } from "node:path";

const listed = readFileSync(join(import.meta.dir, "test-packages.txt"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter(Boolean);

function installed(name: string): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template.
  const probe = Bun.spawnSync(["dpkg-query", "-W", "-f=${Status}", name], { stderr: "ignore" });
  return probe.exitCode === 0 && probe.stdout.toString().includes("install ok installed");
}

const hasDpkg = Bun.which("dpkg-query") !== null;
const missing = hasDpkg ? listed.filter((name) => !installed(name)) : [];
if (missing.length > 0) {
  const command = ["apt-get", "install", "-y", "--no-install-recommends", ...missing];
  if (process.getuid?.() !== 0) {
    console.error(
      `The tests need these Debian packages: ${missing.join(" ")}\nInstall them with: sudo ${command.join(" ")}`,
    );
    process.exit(1);
  }
  console.log(`Installing test packages: ${missing.join(" ")}`);
  for (const step of [["apt-get", "update", "-qq"], command]) {
    const result = Bun.spawnSync(step, {
      stdout: "inherit",
      stderr: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.exitCode !== 0) process.exit(result.exitCode ?? 1);
  }
} else if (!hasDpkg) {
  console.warn(`Not a Debian system: make sure these are installed: ${listed.join(" ")}`);
}

const tests = Bun.spawn([process.execPath, "test", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(await tests.exited);
