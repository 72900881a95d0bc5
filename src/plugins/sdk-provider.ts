// The SDK's source text, not its module: a plugin gets it evaluated as its own "svc-sdk", and
// `svc plugins new` writes the same text into a new project. One loader for the file keeps the
// two from meeting in a compiled binary, where the bundler holds one copy of each file.
import sdkSource from "../../plugins/sdk/index.js" with { type: "text" };

let provided = false;

/** The SDK's runtime code as shipped (plugins/sdk/index.js). */
export const sdkRuntimeSource: string = String(sdkSource);

/**
 * Makes `import … from "svc-sdk"` resolve, in every plugin, to the SDK compiled into svc: a Bun
 * virtual module, which works from source and inside a `bun build --compile` binary, so plugins
 * never ship or install their own copy. Idempotent.
 */
export function provideSdk(): void {
  if (provided) return;
  provided = true;
  Bun.plugin({
    name: "svc-sdk",
    setup(build) {
      build.module("svc-sdk", () => ({ contents: sdkRuntimeSource, loader: "js" }));
    },
  });
}
