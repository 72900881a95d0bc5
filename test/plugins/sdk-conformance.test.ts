import { expect, test } from "bun:test";
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type {
  AfterTranscribeHook as SdkAfterTranscribeHook,
  AppContext as SdkAppContext,
  BeforeCleanupHook as SdkBeforeCleanupHook,
  BeforeCleanupInput as SdkBeforeCleanupInput,
  BeforeCleanupOutput as SdkBeforeCleanupOutput,
  BeforeOutputHook as SdkBeforeOutputHook,
  BeforeOutputOutput as SdkBeforeOutputOutput,
  BeforeTranscribeHook as SdkBeforeTranscribeHook,
  BeforeTranscribeInput as SdkBeforeTranscribeInput,
  BeforeTranscribeOutput as SdkBeforeTranscribeOutput,
  DictationSource as SdkDictationSource,
  AfterCleanupHook as SdkHook,
  HookApi as SdkHookApi,
  AfterCleanupInput as SdkInput,
  PluginLlm as SdkLlm,
  AfterCleanupOutput as SdkOutput,
  PipelineControl as SdkPipelineControl,
  Plugin as SdkPlugin,
  AfterTranscribeOutput as SdkTranscribeOutput,
} from "../../plugins/sdk/index.js";
import { pluginSlug } from "../../plugins/sdk/index.js";
import type { HookApi, PipelineControl, PluginLlm } from "../../src/plugins/hook-api.ts";
import type {
  AfterCleanupHook,
  AfterTranscribeHook,
  BeforeCleanupHook,
  BeforeCleanupInput,
  BeforeCleanupOutput,
  DictationSource,
  HookAppContext,
  HookInput,
  HookOutput,
  TranscriptHookOutput,
} from "../../src/plugins/hooks.ts";
import type {
  BeforeTranscribeHook,
  BeforeTranscribeInput,
  BeforeTranscribeOutput,
} from "../../src/plugins/hooks-audio.ts";
import type { BeforeOutputHook, BeforeOutputOutput } from "../../src/plugins/hooks-output.ts";
import { pluginSlug as hostSlug } from "../../src/plugins/slug.ts";

// The SDK's hook types (what plugin authors compile against) and the host's (what the pipeline
// runs) are written apart: one is a published .d.ts. These equalities fail `tsc` the moment they
// drift, which `bun run check` runs.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const conforms: [
  Equal<SdkInput, HookInput>,
  Equal<SdkOutput, HookOutput>,
  Equal<SdkAppContext, HookAppContext>,
  Equal<SdkHook, AfterCleanupHook["run"]>,
  Equal<SdkTranscribeOutput, TranscriptHookOutput>,
  Equal<SdkAfterTranscribeHook, AfterTranscribeHook["run"]>,
  Equal<SdkBeforeCleanupInput, BeforeCleanupInput>,
  Equal<SdkBeforeCleanupOutput, BeforeCleanupOutput>,
  Equal<SdkBeforeCleanupHook, BeforeCleanupHook["run"]>,
  Equal<SdkBeforeTranscribeInput, BeforeTranscribeInput>,
  Equal<SdkBeforeTranscribeOutput, BeforeTranscribeOutput>,
  Equal<SdkBeforeTranscribeHook, BeforeTranscribeHook["run"]>,
  Equal<SdkBeforeOutputOutput, BeforeOutputOutput>,
  Equal<SdkBeforeOutputHook, BeforeOutputHook["run"]>,
  Equal<SdkHookApi, HookApi>,
  Equal<SdkPipelineControl, PipelineControl>,
  Equal<SdkLlm, PluginLlm>,
  Equal<SdkDictationSource, DictationSource>,
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];

test("the SDK's hook types are the host's (checked by tsc)", () => {
  expect(conforms.every(Boolean)).toBe(true);
  expect(conforms).toHaveLength(18);
});

test("the SDK's pluginSlug gives the host's slug", () => {
  const names = [
    "@svc/profanity-filter",
    "plain",
    "@a/b_c",
    "a--b",
    "@Scope/Name.JS",
    "x__y__",
    "-a-",
    "@x/ü-name",
  ];
  for (const name of names) expect(pluginSlug(name)).toBe(hostSlug(name));
});

test("Hono's own middleware fits a plugin's middleware list (checked by tsc)", () => {
  const own: MiddlewareHandler = async (c, next) => {
    await next();
    c.header("X-Own", "1");
  };
  const plugin: SdkPlugin = { name: "@acme/hono", middleware: [secureHeaders(), own] };
  expect(plugin.middleware).toHaveLength(2);
});
