// `bun run build` compiles svc into one executable: dist/svc for this machine, or
// `bun run build --target all` for every release platform (dist/svc-<platform>[.exe]).
// `bun run release` makes the downloadable archives from the same binaries (scripts/release.ts).
import { parseArgs } from "node:util";
import { buildConsole } from "./build-console.ts";
import { compileArgs, isPlatform, type Platform, platforms, prepareNative } from "./compile.ts";
import { hostPlatform } from "./whisper-addon.mjs";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string" } },
});

export async function compile(platform: Platform, outfile: string): Promise<void> {
  await prepareNative(platform);
  if (!platform.startsWith("linux-")) {
    console.warn(
      `note: the ${platform} binary has no whisper engine: remote (and sphinx where installed) only.`,
    );
  }
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, ...compileArgs(platform, outfile)], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await proc.exited) !== 0) throw new Error(`bun build failed for ${platform}`);
  console.log(`built ${outfile} in ${Math.round(performance.now() - started)} ms`);
}

if (import.meta.main) {
  await buildConsole();
  const requested = values.target ?? hostPlatform();
  const wanted = requested === "all" ? (Object.keys(platforms) as Platform[]) : [requested];
  for (const platform of wanted) {
    if (!isPlatform(platform)) {
      console.error(
        `svc has no binary for ${platform}; use one of ${Object.keys(platforms).join(", ")} or all`,
      );
      process.exit(2);
    }
    const outfile =
      requested === "all"
        ? `dist/svc-${platform}${platform.startsWith("windows") ? ".exe" : ""}`
        : (values.outfile ?? "dist/svc");
    await compile(platform, outfile);
  }
}
