// The SDK's source text, not its module: a plugin gets it evaluated as its own "svc-sdk", and
// `svc plugins new` writes the same text into a new project. One loader for the file keeps the
// two from meeting in a compiled binary, where the bundler holds one copy of each file.
import sdkSource from "../../plugins/sdk/index.js" with { type: "text" };

let provided = false;

/**
 * The module names svc answers with its SDK: its own, and Freestyle's (`freestyle-voice`), so a
 * Freestyle plugin's import resolves as published. Neither is installed as a dependency.
 */
export const providedModules: readonly string[] = ["svc-sdk", "freestyle-voice"];

/** The SDK's runtime code as shipped (plugins/sdk/index.js). */
export const sdkRuntimeSource: string = String(sdkSource);

/**
 * Makes `import … from "svc-sdk"` (and "freestyle-voice") resolve, in every plugin, to the SDK compiled into svc: a Bun
 * virtual module, which works from source and inside a `bun build --compile` binary, so plugins
 * never ship or install their own copy. Idempotent.
 */
export function provideSdk(): void {
  if (provided) return;
  provided = true;
  Bun.plugin({
    name: "svc-sdk",
    setup(build) {
      for (const name of providedModules)
        build.module(name, () => ({ contents: sdkRuntimeSource, loader: "js" }));
    },
  });
}
