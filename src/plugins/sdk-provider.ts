import * as sdk from "../../plugins/sdk/index.js";

let provided = false;

/**
 * Makes `import … from "svc-sdk"` resolve, in every plugin, to the SDK compiled into svc: a Bun
 * virtual module, which works from source and inside a `bun build --compile` binary, so plugins
 * never ship or install their own copy. Idempotent.
 */
export function provideSdk(): void {
  if (provided) return;
  provided = true;
  const exports = { ...sdk };
  Bun.plugin({
    name: "svc-sdk",
    setup(build) {
      build.module("svc-sdk", () => ({ exports, loader: "object" }));
    },
  });
}
