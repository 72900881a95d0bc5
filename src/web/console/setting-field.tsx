// One setting as a small form, its input chosen from the setting's JSON Schema (GET
// /api/settings/schema): saved with PUT /api/settings/:key, reset with DELETE, and the API's
// validation sentence shown at the field. Secrets are write-only: only "set" or "not set" shows.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Answer, api } from "./api.ts";
import { toast } from "./toast.tsx";
import { ErrorText, useAction } from "./ui.tsx";

/** One entry of GET /api/settings/schema. */
export type SettingInfo = Answer<"get", "/api/settings/schema">["items"][number];

type Kind =
  | "boolean"
  | "enum"
  | "number"
  | "text"
  | "url"
  | "long-text"
  | "secret"
  | "list"
  | "duration"
  | "json";

function kindOf(info: SettingInfo): Kind {
  const { schema } = info;
  if (info.secret) return "secret";
  if (schema.type === "boolean") return "boolean";
  if (schema.enum) return "enum";
  if (schema.type === "integer" || schema.type === "number") return "number";
  if (schema.type === "string" && schema.format === "uri") return "url";
  if (schema.type === "string") return (schema.maxLength ?? 0) > 500 ? "long-text" : "text";
  const items = (schema as { items?: { type?: unknown } }).items;
  if (schema.type === "array" && items?.type === "string") return "list";
  // A number or a string (keep_alive: "10m", "1h", 300, -1) is typed as text, never as JSON.
  const anyOf = (schema as { anyOf?: { type?: unknown }[] }).anyOf?.map((option) => option.type) ?? [];
  if (anyOf.length === 2 && anyOf.includes("number") && anyOf.includes("string")) return "duration";
  return "json";
}

const words: Record<string, string> = { llm: "LLM", stt: "speech", url: "URL", api: "API", ctx: "context" };

/** `remote_stt_base_url` → "Remote speech base URL", `llm_timeout_ms` → "LLM timeout (ms)". */
export function settingTitle(key: string): string {
  const parts = key.split("_").map((word) => words[word] ?? word);
  const unit = parts.at(-1) === "ms" ? parts.pop() : undefined;
  const text = parts.join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${unit ? ` (${unit})` : ""}`;
}

const show = (value: unknown): string =>
  value === null ? "none" : typeof value === "string" ? `"${value}"` : JSON.stringify(value);

/** The draft an input starts from: the stored value as the input shows it. */
function draftOf(kind: Kind, value: unknown): string | boolean {
  if (kind === "boolean") return value === true;
  if (kind === "secret") return "";
  if (kind === "json") return JSON.stringify(value, null, 2);
  if (kind === "list") return Array.isArray(value) ? value.join("\n") : "";
  return value === null || value === undefined ? "" : String(value);
}

/** The value the draft means; the API judges it (only JSON that does not parse stops here). */
function parseDraft(info: SettingInfo, kind: Kind, draft: string | boolean): unknown {
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
      // One entry per line; blank lines are not entries.
      return draft
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
    case "json":
      try {
        return JSON.parse(draft);
      } catch (error) {
        throw new Error(`This is not valid JSON (${(error as Error).message}); nothing was saved.`);
      }
    default:
      return empty && info.schema.nullable && kind !== "secret" ? null : draft;
  }
}

const fieldId = (key: string) => `setting-${key}`;

/** The settings with an edit not saved yet, for the screen's guard against leaving them behind. */
export const unsavedSettings = new Set<string>();

export function SettingField(props: { info: SettingInfo; value: unknown }) {
  const { info } = props;
  const kind = kindOf(info);
  const [draft, setDraft] = useState<string | boolean | undefined>(undefined);
  const save = useAction();
  const id = fieldId(info.key);
  const current = draft ?? draftOf(kind, props.value);
  const isDefault = JSON.stringify(props.value) === JSON.stringify(info.default);
  const dirty =
    draft !== undefined && draft !== draftOf(kind, props.value) && !(kind === "secret" && draft === "");
  useEffect(() => {
    if (dirty) unsavedSettings.add(info.key);
    else unsavedSettings.delete(info.key);
  }, [dirty, info.key]);
  useEffect(() => () => void unsavedSettings.delete(info.key), [info.key]);
  const describedBy = `${id}-hint${save.error ? ` ${id}-error` : ""}`;

  // What was just stored shows until settings.changed brings it back as props.value; a draft
  // typed since then is kept.
  const stored = useRef<string | boolean | undefined>(undefined);
  const serverValue = JSON.stringify(props.value);
  useEffect(() => {
    setDraft((old) => (old === stored.current ? undefined : old));
    stored.current = undefined;
  }, [serverValue]);
  const showStored = (value: unknown) => {
    stored.current = draftOf(kind, value);
    setDraft(stored.current);
  };

  const put = () =>
    save.run(async () => {
      const value = parseDraft(info, kind, current);
      const view = await api.put("/api/settings/{key}", { params: { key: info.key }, body: { value } });
      showStored(view.value);
      const cleared = view.cleared ?? [];
      const title = settingTitle(info.key);
      if (cleared.length === 0) toast(`Saved “${title}”.`, "success");
      // A key belongs to the server it was entered for: svc does not send it to another one.
      else
        toast(
          `Saved “${title}”. ${cleared.map((key) => `“${settingTitle(key)}”`).join(" and ")} was removed: it belonged to the old address. Enter it again if you trust the new one.`,
          "warning",
        );
    });
  const reset = () =>
    save.run(async () => {
      await api.delete("/api/settings/{key}", { params: { key: info.key } });
      showStored(info.default);
      const title = settingTitle(info.key);
      toast(info.secret ? `Removed “${title}”.` : `“${title}” is back to its default.`, "success");
    });

  const common = {
    id,
    "aria-describedby": describedBy,
    "aria-invalid": save.error ? ("true" as const) : undefined,
  };
  const text = typeof current === "string" ? current : "";
  const onText = (event: Event) => setDraft((event.currentTarget as HTMLInputElement).value);
  const input = (() => {
    switch (kind) {
      case "boolean":
        return (
          <input
            {...common}
            type="checkbox"
            checked={current === true}
            onChange={(event) => setDraft(event.currentTarget.checked)}
          />
        );
      case "enum":
        return (
          <select {...common} value={text} onChange={onText}>
            {info.schema.enum?.map((option) => (
              <option key={String(option)} value={String(option)}>
                {String(option)}
              </option>
            ))}
          </select>
        );
      case "number":
        return (
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
        );
      case "long-text":
      case "list":
      case "json":
        return (
          <textarea
            {...common}
            spellcheck={false}
            rows={kind === "json" ? 4 : 6}
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
            placeholder={isDefault ? "Type a key to store it" : "Type a new key to replace it"}
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
            placeholder={info.schema.nullable ? "none" : undefined}
            value={text}
            onInput={onText}
          />
        );
    }
  })();

  return (
    <form
      class={`field setting setting-${kind}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void put();
      }}
    >
      {kind === "boolean" ? (
        <label class="check" for={id}>
          {input} {settingTitle(info.key)}
        </label>
      ) : (
        <label for={id}>
          {settingTitle(info.key)}
          {info.secret && (
            <span class={`badge${isDefault ? "" : " ok"}`}>{isDefault ? "not set" : "set"}</span>
          )}
        </label>
      )}
      {kind !== "boolean" && input}
      <p class="hint" id={`${id}-hint`}>
        {info.description} <code>{info.key}</code>
        {!info.secret && <> · Default: {show(info.default)}</>}
        {kind === "list" && <> · One per line.</>}
        {info.schema.nullable && !info.secret && kind !== "json" && <> · Leave empty for none.</>}
      </p>
      <ErrorText id={`${id}-error`} error={save.error} />
      <div class="row">
        <button
          type="submit"
          disabled={save.busy || (!dirty && kind !== "secret") || (kind === "secret" && text === "")}
        >
          Save
        </button>
        <button type="button" class="link" disabled={save.busy || isDefault} onClick={() => void reset()}>
          {info.secret ? "Remove key" : "Reset to default"}
        </button>
      </div>
    </form>
  );
}
