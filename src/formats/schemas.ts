import * as v from "valibot";
import { listQuerySchema } from "../lists.ts";
import { appContextSchema } from "./app-context.ts";
import { compilePattern, maxPatternLength } from "./pattern.ts";
import { formatStyleSchema } from "./style.ts";

/** Limits on a format's fields; the route docs quote them. */
export const formatLimits = {
  maxLabelLength: 100,
  maxPatternLength,
  maxInstructionsLength: 4000,
  /** Formats in total, built-ins included; creating past it is 413 `limit_exceeded`. */
  maxFormats: 500,
  minPriority: -1000,
  maxPriority: 1000,
} as const;

const { maxLabelLength, maxInstructionsLength, minPriority, maxPriority } = formatLimits;

const label = v.pipe(
  v.string("label must be a string"),
  v.trim(),
  v.minLength(1, "label must not be blank"),
  v.maxLength(maxLabelLength, `label must be at most ${maxLabelLength} characters`),
);

const appPattern = v.pipe(
  v.string("appPattern must be a string"),
  v.trim(),
  v.maxLength(maxPatternLength, `appPattern must be at most ${maxPatternLength} characters`),
  v.check(
    (pattern) => compilePattern(pattern).problems.length === 0,
    (issue) => compilePattern(String(issue.input)).problems.join("; "),
  ),
);

const instructions = v.pipe(
  v.string("instructions must be a string"),
  v.trim(),
  v.maxLength(maxInstructionsLength, `instructions must be at most ${maxInstructionsLength} characters`),
);

const priority = v.pipe(
  v.number("priority must be a number"),
  v.integer("priority must be a whole number"),
  v.minValue(minPriority, `priority must be at least ${minPriority}`),
  v.maxValue(maxPriority, `priority must be at most ${maxPriority}`),
);

const enabled = v.boolean("enabled must be true or false");

export const formatCreateSchema = v.strictObject({
  label,
  appPattern,
  instructions: v.optional(instructions, ""),
  enabled: v.optional(enabled, true),
  priority: v.optional(priority, 0),
  style: v.optional(formatStyleSchema, {}),
});

/** Fields left out stay; `style` is merged option by option (send only the options to change). */
export const formatPatchSchema = v.pipe(
  v.strictObject({
    label: v.optional(label),
    appPattern: v.optional(appPattern),
    instructions: v.optional(instructions),
    enabled: v.optional(enabled),
    priority: v.optional(priority),
    style: v.optional(v.partial(formatStyleSchema)),
  }),
  v.check((patch) => Object.keys(patch).length > 0, "send at least one field to change"),
);

/** A format in an export document (built-ins carry their builtinKey). */
export const formatItemSchema = v.object({
  label,
  appPattern,
  instructions: v.optional(instructions, ""),
  enabled: v.optional(enabled, true),
  priority: v.optional(priority, 0),
  style: v.optional(v.object(formatStyleSchema.entries), {}),
  builtinKey: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
});

/** What a list of formats may be ordered by. */
export const formatOrderFields = ["label", "priority", "createdAt", "updatedAt"] as const;
export type FormatOrderField = (typeof formatOrderFields)[number];

export const formatListQuerySchema = listQuerySchema(formatOrderFields, "label");

/** `GET /api/formats/match` also takes the context as query parameters when the header is absent. */
export const formatMatchQuerySchema = appContextSchema;

export const formatSchema = v.object({
  id: v.number(),
  label: v.string(),
  appPattern: v.string(),
  instructions: v.string(),
  enabled: v.boolean(),
  priority: v.number(),
  style: formatStyleSchema,
  isBuiltin: v.boolean(),
  builtinKey: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
