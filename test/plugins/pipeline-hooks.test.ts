import { describe, expect, test } from "bun:test";
import { createTextPipeline } from "../../src/dictation/text/pipeline.ts";
import { harness } from "../helpers/pipeline.ts";
import { type PluginApp, startPluginApp } from "../helpers/plugins.ts";

function pipelineOf(app: PluginApp, warnings: string[] = []) {
  const h = harness({ dictionary: [{ id: 1, key: "svc", value: "SVC" }], hooks: () => app.plugins.hooks() });
  h.deps.logger = { warn: (message) => warnings.push(message) };
  return createTextPipeline(h.deps);
}

describe("plugin afterCleanup hooks in the text pipeline", () => {
  test("run after cleanup and the dictionary, in plugins order", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform", "fx-mutate"],
      entries: [["@fx/transform", { suffix: " teh end" }], "@fx/mutate"],
    });
    const result = await pipelineOf(app).run({ text: "um I like svc", appContext: { app: "Notes" } });
    expect(result.stages.dictionary.text).toBe("I like SVC");
    expect(result.text).toBe("I like SVC the end (in Notes)");
  });

  test("a hook that hangs is cut off by the guarded runner; the chain goes on with the last good text", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-hangs", "fx-transform"],
      entries: ["@fx/hangs", ["@fx/transform", { suffix: "!" }]],
    });
    const warnings: string[] = [];
    const started = performance.now();
    const result = await pipelineOf(app, warnings).run({ text: "hello there" });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.text).toBe("Hello there!");
    expect(result.stages.plugins.errors).toEqual([
      {
        plugin: "@fx/hangs",
        hook: "afterCleanup",
        message: 'plugin "@fx/hangs" failed in afterCleanup: timed out after 200 ms',
      },
    ]);
    expect(warnings).toContain('plugin "@fx/hangs" failed in afterCleanup: timed out after 200 ms');
  });

  test("a plugin whose setup failed contributes no hook", async () => {
    const app = await startPluginApp({ fixtures: ["fx-throws-setup"], entries: ["@fx/throws-setup"] });
    expect((await pipelineOf(app).run({ text: "fine" })).text).toBe("Fine");
  });
});
