// Debian packages the tests or a benchmark need: installed by apt-get when running as root,
// otherwise named with the command to run.
function installed(name: string): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template.
  const probe = Bun.spawnSync(["dpkg-query", "-W", "-f=${Status}", name], { stderr: "ignore" });
  return probe.exitCode === 0 && probe.stdout.toString().includes("install ok installed");
}

/** Installs the missing ones as root; otherwise prints how to and exits 1. */
export function ensureDebianPackages(names: string[], purpose: "tests" | "benchmarks"): void {
  if (names.length === 0) return;
  if (Bun.which("dpkg-query") === null) {
    console.warn(`Not a Debian system: make sure these are installed: ${names.join(" ")}`);
    return;
  }
  const missing = names.filter((name) => !installed(name));
  if (missing.length === 0) return;
  const command = ["apt-get", "install", "-y", "--no-install-recommends", ...missing];
  if (process.getuid?.() !== 0) {
    console.error(
      `The ${purpose} need these Debian packages: ${missing.join(" ")}\nInstall them with: sudo ${command.join(" ")}`,
    );
    process.exit(1);
  }
  console.log(`Installing ${purpose === "tests" ? "test" : "benchmark"} packages: ${missing.join(" ")}`);
  for (const step of [["apt-get", "update", "-qq"], command]) {
    const result = Bun.spawnSync(step, {
      stdout: "inherit",
      stderr: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.exitCode !== 0) process.exit(result.exitCode ?? 1);
  }
}
