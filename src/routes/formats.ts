import { Hono } from "hono";
import type { FormatsRepo } from "../db/formats-repo.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import { parseAppContext } from "../formats/app-context.ts";
import { builtinFormats } from "../formats/builtins.ts";
import type { FormatMatcher } from "../formats/matcher.ts";
import {
  formatCreateSchema,
  formatLimits,
  formatListQuerySchema,
  formatMatchQuerySchema,
  formatPatchSchema,
} from "../formats/schemas.ts";
import type { Format, FormatInput } from "../formats/types.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { readId } from "../http/params.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson, readQuery } from "../http/validate.ts";
import { documentFormats } from "./formats-docs.ts";

export interface FormatsRouteDeps {
  formats: FormatsRepo;
  formatMatcher: FormatMatcher;
  events: EventBus;
  docs: ApiDocs;
}

type FormatPatch = Partial<Omit<FormatInput, "style">> & {
  style?: Partial<FormatInput["style"]> | undefined;
};

/** PATCH semantics: fields left out stay, style options merge one by one. */
function applyPatch(current: Format, patch: FormatPatch): FormatInput {
  const { label, appPattern, instructions, enabled, priority } = { ...current, ...definedOnly(patch) };
  return { label, appPattern, instructions, enabled, priority, style: { ...current.style, ...patch.style } };
}

const definedOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;

/** `/api/formats`: output rules matched to the app being dictated into. Changes publish `formats.changed`. */
export function createFormatsRoutes(deps: FormatsRouteDeps) {
  const { formats, formatMatcher, events } = deps;
  documentFormats(deps.docs);
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish("formats.changed", { action, ...data });
  const found = (id: number) => formats.get(id) ?? missing(id);

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(formats.list(readQuery(c, formatListQuerySchema))))
    .get("/match", (c) => {
      const header = c.req.header("x-app-context");
      const context = parseAppContext(header ?? readQuery(c, formatMatchQuerySchema));
      return c.json({ format: formatMatcher.match(context), context });
    })
    .post("/reset", (c) => {
      const restored = formats.resetBuiltins(builtinFormats);
      changed("reset");
      return c.json({ restored });
    })
    .get("/:id", (c) => c.json(found(readId(c))))
    .post("/", async (c) => {
      const input = await readJson(c, formatCreateSchema);
      if (formats.count() >= formatLimits.maxFormats) {
        throw new AppError("limit_exceeded", `There are already ${formatLimits.maxFormats} formats.`);
      }
      const format = formats.create(input);
      changed("created", { id: format.id });
      return c.json(format, 201, { Location: `/api/formats/${format.id}` });
    })
    .patch("/:id", async (c) => {
      const id = readId(c);
      const patch = await readJson(c, formatPatchSchema);
      const format = formats.update(id, applyPatch(found(id), patch)) ?? missing(id);
      changed("updated", { id });
      return c.json(format);
    })
    .delete("/:id", (c) => {
      const id = readId(c);
      if (found(id).isBuiltin) {
        throw new AppError("builtin_format", `Format ${id} is built in and cannot be deleted.`, {
          details: {
            id,
            hint: 'Disable it with PATCH {"enabled": false}; POST /api/formats/reset restores it.',
          },
        });
      }
      formats.remove(id);
      changed("deleted", { id });
      return c.body(null, 204);
    });
}

function missing(id: number): never {
  throw notFound(`No format has id ${id}.`, { id });
}
