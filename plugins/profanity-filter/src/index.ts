import { type Plugin, type PluginFactory, transform } from "svc-sdk";
import { replacementRoutes } from "./routes.ts";
import { loadList, type ReplacementList } from "./store.ts";

export interface ProfanityFilterOptions {
  /** Mirror the matched word's casing onto its replacement (default true; only `false` turns it off). */
  preserveCase?: boolean;
}

/**
 * Replaces words from an editable list with milder alternatives, as the last text transform.
 * The list lives in plugin storage under `replacements` and is edited through the plugin's
 * routes or its page.
 */
const profanityFilter: PluginFactory<ProfanityFilterOptions> = (options = {}): Plugin => {
  const preserveCase = options.preserveCase !== false;
  let base = "";
  let replacements: ReplacementList | undefined;
  const list = () => {
    if (!replacements) throw new Error("the profanity filter has not been set up");
    return replacements;
  };
  return {
    name: "@svc/profanity-filter",
    async setup(ctx) {
      base = ctx.basePath;
      replacements = await loadList(ctx.storage, ctx.logger);
    },
    middleware: [replacementRoutes(() => base, list, preserveCase)],
    afterCleanup: transform((text) =>
      replacements ? replacements.matcher().apply(text, { preserveCase }) : text,
    ),
  };
};

export default profanityFilter;
