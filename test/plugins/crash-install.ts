// Run by crash.test.ts in a child process: installs a package and SIGKILLs itself at the named
// step, as a power cut or OOM kill would, so the test can check what a restart finds.
import { silentLogger } from "../../src/logger.ts";
import { createInstaller } from "../../src/plugins/installer.ts";
import { createRegistryClient } from "../../src/plugins/registry-client.ts";

const [pluginsDir = "", registryUrl = "", name = "", version = "", step = ""] = process.argv.slice(2);
const die = () => {
  process.kill(process.pid, "SIGKILL");
};
const installer = createInstaller({
  pluginsDir,
  registry: createRegistryClient({ url: registryUrl }),
  logger: silentLogger,
  faults: step === "afterStage" ? { afterStage: die } : { afterMoveAside: die },
});
await installer.install(name, version);
process.stdout.write("installed without crashing\n");
