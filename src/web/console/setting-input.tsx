// One setting's labelled control, chosen from its entry in GET /api/settings/schema: a switch, a
// pick list, a number with its unit and bounds, a duration, a list one entry per line, or text.
// Stateless: the Settings screen's group forms and the Models screen's single fields own the draft.
import type { ComponentChildren } from "preact";
import type { Answer } from "./api.ts";

/** One entry of GET /api/settings/schema. */
export type SettingInfo = Answer<"get", "/api/settings/schema">["items"][number];

export type Kind =
  | "boolean"
  | "enum"
  | "number"
  | "text"
  | "url"
  | "long-text"
  | "secret"
  | "list"
  | "plugins"
  | "duration"
  | "json";

/** What an input holds: text, or a switch's state. */
export type Draft = string | boolean;

/** A pick list's entry: the value stored, and what a person reads. */
export interface Choice {
  value: string;
  label: string;
}

export function kindOf(info: SettingInfo): Kind {
  const { schema } = info;
  if (info.secret) return "secret";
  if (schema.type === "boolean") return "boolean";
  if (schema.enum) return "enum";
  if (schema.type === "integer" || schema.type === "number") return "number";
  if (schema.type === "string" && schema.format === "uri") return "url";
  if (schema.type === "string") return (schema.maxLength ?? 0) > 500 ? "long-text" : "text";
  const items = (schema as { items?: { type?: unknown; anyOf?: unknown } }).items;
  if (schema.type === "array" && items?.type === "string") return "list";
  // Package names, each maybe with options: one per line, the options as JSON after the name.
  if (schema.type === "array" && items?.anyOf) return "plugins";
  // A number or a string (keep_alive: "10m", "1h", 300, -1) is typed as text, never as JSON.
  const anyOf = (schema as { anyOf?: { type?: unknown }[] }).anyOf?.map((option) => option.type) ?? [];
  if (anyOf.length === 2 && anyOf.includes("number") && anyOf.includes("string")) return "duration";
  return "json";
}

/** A plugins entry as one line: `name`, or `name {"options": …}`. */
function pluginLine(entry: unknown): string {
  if (!Array.isArray(entry)) return String(entry);
  const [name, options] = entry as [unknown, unknown];
  const empty = options === null || options === undefined || Object.keys(options as object).length === 0;
  return empty ? String(name) : `${String(name)} ${JSON.stringify(options)}`;
}

/** The draft an input starts from: the stored value as the input shows it. */
export function draftOf(kind: Kind, value: unknown): Draft {
  if (kind === "boolean") return value === true;
  if (kind === "secret") return "";
  if (kind === "json") return JSON.stringify(value, null, 2);
  if (kind === "list") return Array.isArray(value) ? value.join("\n") : "";
  if (kind === "plugins") return Array.isArray(value) ? value.map(pluginLine).join("\n") : "";
  return value === null || value === undefined ? "" : String(value);
}

const lines = (draft: string) =>
  draft
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

function parsePlugins(info: SettingInfo, draft: string): unknown[] {
  return lines(draft).map((line, index) => {
    const [, name = line, options] = /^(\S+)\s+(.+)$/.exec(line) ?? [];
    if (options === undefined) return name;
    try {
      return [name, JSON.parse(options)];
    } catch {
      throw new Error(
        `${info.label}: the options on line ${index + 1} are not valid JSON; write them after the name as {"option": value}.`,
      );
    }
  });
}

/**
 * The value the draft means; the API judges it. Only what cannot be sent at all (JSON that does
 * not parse) is refused here, in a sentence that starts with the setting's label.
 */
export function parseDraft(info: SettingInfo, kind: Kind, draft: Draft): unknown {
  if (typeof draft === "boolean") return draft;
  const empty = draft.trim() === "";
  switch (kind) {
    case "enum":
      return info.schema.enum?.find((option) => String(option) === draft) ?? draft;
    case "number": {
      if (empty) return info.schema.nullable ? null : draft;
      const number = Number(draft);
      return Number.isFinite(number) ? number : draft;
    }
    case "duration": {
      // A bare number is a number of seconds (0, -1, 300); anything else goes as written ("10m").
      const trimmed = draft.trim();
      return /^-?\d+(?:\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
    }
    case "list":
      return lines(draft);
    case "plugins":
      return parsePlugins(info, draft);
    case "json":
      try {
        return JSON.parse(draft);
      } catch {
        throw new Error(`${info.label} is not valid JSON; nothing was saved.`);
      }
    default:
      return empty && info.schema.nullable && kind !== "secret" ? null : draft;
  }
}

const show = (value: unknown): string =>
  value === null ? "none" : typeof value === "string" ? `“${value}”` : JSON.stringify(value);

/** "500 to 120000 ms", "at least 1 day": a number's bounds in words. */
function range(info: SettingInfo): string | undefined {
  const { minimum, maximum } = info.schema;
  const unit = info.unit ? ` ${info.unit}` : "";
  if (minimum !== undefined && maximum !== undefined) return `${minimum} to ${maximum}${unit}`;
  if (minimum !== undefined) return `at least ${minimum}${unit}`;
  if (maximum !== undefined) return `at most ${maximum}${unit}`;
  return undefined;
}

/** What a field's hint adds after the description: its default, range and format. */
function facts(info: SettingInfo, kind: Kind): string[] {
  const unit = info.unit && typeof info.default === "number" ? ` ${info.unit}` : "";
  const out = info.secret ? [] : [`Default: ${show(info.default)}${unit}`];
  const bounds = kind === "number" ? range(info) : undefined;
  if (bounds) out.push(bounds);
  if (kind === "list") out.push("One per line");
  if (kind === "plugins")
    out.push('One per line: a package name, then its options as JSON if any, e.g. svc-x {"mode": "fast"}');
  if (kind === "duration") out.push("e.g. 30s, 10m, 1h; 0 gives back after each dictation, -1 never");
  if (info.schema.nullable && !info.secret && kind !== "json") out.push("Leave empty for none");
  return out;
}

export const settingFieldId = (key: string) => `setting-${key}`;

export function SettingControl(props: {
  info: SettingInfo;
  kind: Kind;
  draft: Draft;
  onDraft: (draft: Draft) => void;
  /** The message at the field: the API's, or why it was not sent. */
  error?: string | undefined;
  /** A pick list (languages, models, engines) instead of the schema's own input. */
  choices?: readonly Choice[] | undefined;
  /** Why the current value, kept in the list, is not one of its choices. */
  offList?: string | undefined;
  /** Whether a secret is stored now. */
  stored?: boolean;
  /** Beside the label: a reset button, a state. */
  aside?: ComponentChildren;
}) {
  const { info, kind, draft } = props;
  const id = settingFieldId(info.key);
  const common = {
    id,
    "aria-describedby": `${id}-hint${props.error ? ` ${id}-error` : ""}`,
    "aria-invalid": props.error ? ("true" as const) : undefined,
  };
  const text = typeof draft === "string" ? draft : "";
  const onText = (event: Event) => props.onDraft((event.currentTarget as HTMLInputElement).value);
  const options =
    props.choices ?? info.schema.enum?.map((option) => ({ value: String(option), label: String(option) }));
  const input = (() => {
    if (kind === "boolean")
      return (
        <input
          {...common}
          type="checkbox"
          role="switch"
          aria-checked={draft === true}
          checked={draft === true}
          onChange={(event) => props.onDraft(event.currentTarget.checked)}
        />
      );
    if (options && kind !== "secret") {
      const known = options.some((option) => option.value === text);
      return (
        <select {...common} value={text} onChange={onText}>
          {!known && (
            <option value={text}>{`${text || "none"} (${props.offList ?? "not in the list"})`}</option>
          )}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    }
    switch (kind) {
      case "number":
        return (
          <span class="setting-amount">
            <input
              {...common}
              type="number"
              inputMode="numeric"
              min={info.schema.minimum}
              max={info.schema.maximum}
              step={info.schema.type === "integer" ? 1 : "any"}
              placeholder={info.schema.nullable ? "none" : undefined}
              value={text}
              onInput={onText}
            />
            {info.unit && <span class="unit">{info.unit}</span>}
          </span>
        );
      case "long-text":
      case "list":
      case "plugins":
      case "json":
        return (
          <textarea
            {...common}
            spellcheck={false}
            rows={Math.min(6, Math.max(2, text.split("\n").length + 1))}
            value={text}
            onInput={onText}
          />
        );
      case "secret":
        return (
          <input
            {...common}
            type="password"
            autoComplete="new-password"
            placeholder={props.stored ? "Type a new key to replace it" : "Type a key to store it"}
            value={text}
            onInput={onText}
          />
        );
      default:
        return (
          <input
            {...common}
            {...(kind === "url"
              ? { type: "url" as const, inputMode: "url" as const }
              : { type: "text" as const })}
            spellcheck={false}
            placeholder={info.schema.nullable ? "none" : kind === "duration" ? "e.g. 10m" : undefined}
            value={text}
            onInput={onText}
          />
        );
    }
  })();
  const wide = kind === "list" || kind === "plugins" || kind === "json" || kind === "long-text";
  return (
    <div class={`field setting setting-${kind}${wide ? " setting-wide" : ""}`}>
      <div class="setting-head">
        {kind === "boolean" ? (
          <label class="check" for={id}>
            {input} {info.label}
          </label>
        ) : (
          <label for={id}>{info.label}</label>
        )}
        {info.secret && (
          <span class={`badge${props.stored ? " ok" : ""}`}>{props.stored ? "set" : "not set"}</span>
        )}
        {props.aside}
      </div>
      {kind !== "boolean" && input}
      <p class="hint" id={`${id}-hint`}>
        {info.description} {facts(info, kind).join(" · ")}
        {facts(info, kind).length > 0 && "."} <code>{info.key}</code>
      </p>
      {props.error && (
        <p class="error" role="alert" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
