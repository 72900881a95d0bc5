// `bun scripts/release-packages.ts [--publish]`: the packages svc can publish on the npm registry,
// svc-sdk and the first-party plugins, built and packed with npm. Without --publish it only packs
// them (npm pack --dry-run lists what would be published); with it, the maintainers publish.
// Nothing is published today: svc carries these packages (docs/plugins.md).
import { join } from "node:path";
import { parseArgs } from "node:util";

const packages = ["plugins/sdk", "plugins/profanity-filter"];
const { values } = parseArgs({ args: process.argv.slice(2), options: { publish: { type: "boolean" } } });
const root = join(import.meta.dir, "..");

function run(command: string[], cwd: string): void {
  const result = Bun.spawnSync(command, { cwd, stdout: "inherit", stderr: "inherit" });
  if (result.exitCode !== 0) {
    console.error(`${command.join(" ")} failed in ${cwd}`);
    process.exit(result.exitCode ?? 1);
  }
}

for (const path of packages) {
  const dir = join(root, path);
  const pkg = (await Bun.file(join(dir, "package.json")).json()) as {
    name: string;
    scripts?: Record<string, string>;
  };
  console.log(`\n${pkg.name} (${path})`);
  if (pkg.scripts?.build) run([process.execPath, "run", "build"], dir);
  run(values.publish ? ["npm", "publish", "--access", "public"] : ["npm", "pack", "--dry-run"], dir);
}
