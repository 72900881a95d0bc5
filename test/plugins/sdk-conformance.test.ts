import { expect, test } from "bun:test";
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type {
  AppContext as SdkAppContext,
  BeforeCleanupOutput as SdkBeforeCleanupOutput,
  BeforeTranscribeInput as SdkBeforeTranscribeInput,
  BeforeTranscribeOutput as SdkBeforeTranscribeOutput,
  DictationSource as SdkDictationSource,
  AfterCleanupHook as SdkHook,
  AfterCleanupInput as SdkInput,
  AfterCleanupOutput as SdkOutput,
  Plugin as SdkPlugin,
  AfterTranscribeOutput as SdkTranscribeOutput,
} from "../../plugins/sdk/index.js";
import { pluginSlug } from "../../plugins/sdk/index.js";
import type {
  AfterCleanupHook,
  AppContext,
  BeforeCleanupOutput,
  BeforeTranscribeInput,
  BeforeTranscribeOutput,
  DictationSource,
  HookInput,
  HookOutput,
  TranscriptHookOutput,
} from "../../src/plugins/hooks.ts";
import { pluginSlug as hostSlug } from "../../src/plugins/slug.ts";

// The SDK's hook types (what plugin authors compile against) and the host's (what the pipeline
// runs) are written apart: one is a published .d.ts. These equalities fail `tsc` the moment they
// drift, which `bun run check` runs.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const conforms: [
  Equal<SdkInput, HookInput>,
  Equal<SdkOutput, HookOutput>,
  Equal<SdkAppContext, AppContext>,
  Equal<SdkHook, AfterCleanupHook["run"]>,
  Equal<SdkTranscribeOutput, TranscriptHookOutput>,
  Equal<SdkBeforeCleanupOutput, BeforeCleanupOutput>,
  Equal<SdkBeforeTranscribeInput, BeforeTranscribeInput>,
  Equal<SdkBeforeTranscribeOutput, BeforeTranscribeOutput>,
  Equal<SdkDictationSource, DictationSource>,
] = [true, true, true, true, true, true, true, true, true];

test("the SDK's hook types are the host's (checked by tsc)", () => {
  expect(conforms).toEqual([true, true, true, true, true, true, true, true, true]);
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
