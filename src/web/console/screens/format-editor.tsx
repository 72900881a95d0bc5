// The form that creates a format (POST /api/formats) or changes one (PATCH /api/formats/:id),
// with the API's validation messages shown at the fields they concern.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Answer, ApiError, api } from "../api.ts";
import { toast } from "../toast.tsx";
import { ErrorText, useAction, useEditedSince } from "../ui.tsx";

export type Format = Answer<"get", "/api/formats/{id}">;
type FormatStyle = Format["style"];

type Draft = Pick<Format, "label" | "appPattern" | "instructions" | "enabled" | "style"> & {
  priority: string;
};

const blank: Draft = {
  label: "",
  appPattern: "",
  instructions: "",
  enabled: true,
  priority: "0",
  style: { capitalize: true, spokenPunctuation: true, removeFillers: true, endPunctuation: "keep" },
};

const styleChecks: { key: "capitalize" | "spokenPunctuation" | "removeFillers"; label: string }[] = [
  { key: "capitalize", label: "Capitalise sentences and “I”" },
  { key: "spokenPunctuation", label: "Turn spoken punctuation (“comma”, “new line”) into symbols" },
  { key: "removeFillers", label: "Remove filler words (um, uh)" },
];

const draftOf = (format: Format): Draft => ({
  label: format.label,
  appPattern: format.appPattern,
  instructions: format.instructions,
  enabled: format.enabled,
  priority: String(format.priority),
  style: { ...format.style },
});

/** The field each API issue is about (`style.capitalize` → style), so its message shows there. */
function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return {};
  const found: Record<string, string> = {};
  for (const issue of error.details as { path?: string; message?: string }[]) {
    const field = issue.path?.split(".")[0];
    if (field && issue.message)
      found[field] = found[field] ? `${found[field]}; ${issue.message}` : issue.message;
  }
  return found;
}

export function FormatEditor(props: { format: Format | null; onDone: () => void }) {
  const { format } = props;
  const [draft, setDraft] = useState<Draft>(format ? draftOf(format) : blank);
  const save = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  // A field's message goes once the field is changed: it spoke of the value that was there.
  const since = useEditedSince(save.error);
  const placed = fieldErrors(save.error);
  const errors = Object.fromEntries(Object.entries(placed).filter(([name]) => !since.edited(name)));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    since.edit(key);
    setDraft((old) => ({ ...old, [key]: value }));
  };
  const setStyle = <K extends keyof FormatStyle>(key: K, value: FormatStyle[K]) => {
    since.edit("style");
    setDraft((old) => ({ ...old, style: { ...old.style, [key]: value } }));
  };
  const text = (event: Event) => (event.currentTarget as HTMLInputElement).value;

  const submit = () =>
    save.run(async () => {
      const priority = draft.priority.trim() === "" ? 0 : Number(draft.priority);
      // A priority that is not a number is sent as typed: the API's sentence says what is wrong.
      const raw = JSON.stringify({
        ...draft,
        priority: Number.isFinite(priority) ? priority : draft.priority,
      });
      const headers = { "content-type": "application/json" };
      const saved = format
        ? await api.patch("/api/formats/{id}", { params: { id: format.id }, raw, headers })
        : await api.post("/api/formats", { raw, headers });
      toast(format ? `Saved “${saved.label}”.` : `Created “${saved.label}”.`, "success");
      props.onDone();
    });

  const field = (name: string) => ({
    id: `format-${name}`,
    "aria-invalid": errors[name] ? ("true" as const) : undefined,
    "aria-describedby": `format-${name}-hint${errors[name] ? ` format-${name}-error` : ""}`,
  });
  const problem = (name: string) =>
    errors[name] && (
      <p class="error" id={`format-${name}-error`}>
        {errors[name]}
      </p>
    );

  return (
    <form
      class="panel format-editor"
      noValidate
      aria-labelledby="format-editor-title"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      // Escape is Cancel, as in the other editors.
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        props.onDone();
      }}
    >
      <h2 id="format-editor-title" tabIndex={-1} ref={heading}>
        {format ? `Edit “${format.label}”` : "New format"}
      </h2>
      <div class="field">
        <label for="format-label">Name</label>
        <input {...field("label")} value={draft.label} onInput={(e) => set("label", text(e))} />
        <p class="hint" id="format-label-hint">
          Shown in the list and in the results of a dictation.
        </p>
        {problem("label")}
      </div>
      <div class="field">
        <label for="format-appPattern">Apps it applies to</label>
        <input
          {...field("appPattern")}
          spellcheck={false}
          value={draft.appPattern}
          onInput={(e) => set("appPattern", text(e))}
        />
        <p class="hint" id="format-appPattern-hint">
          Alternatives separated by <code>|</code>: an app name (<code>slack</code>), <code>title:gmail</code>{" "}
          for the window title, <code>url:github.com</code> for a page, or <code>*</code> for everything.
        </p>
        {problem("appPattern")}
      </div>
      <div class="field">
        <label for="format-instructions">Instructions for LLM cleanup</label>
        <textarea
          {...field("instructions")}
          rows={4}
          value={draft.instructions}
          onInput={(e) => set("instructions", text(e))}
        />
        <p class="hint" id="format-instructions-hint">
          Used when cleanup_mode is llm; basic cleanup applies the style below.
        </p>
        {problem("instructions")}
      </div>
      <fieldset class="field format-style">
        <legend>Style</legend>
        {styleChecks.map((check) => (
          <label class="check" key={check.key}>
            <input
              type="checkbox"
              checked={draft.style[check.key]}
              onChange={(e) => setStyle(check.key, e.currentTarget.checked)}
            />{" "}
            {check.label}
          </label>
        ))}
        <label for="format-end">End of the text</label>
        <select
          id="format-end"
          value={draft.style.endPunctuation}
          onChange={(e) => setStyle("endPunctuation", e.currentTarget.value as FormatStyle["endPunctuation"])}
        >
          <option value="keep">Keep it as dictated</option>
          <option value="add">Add a period when there is none</option>
          <option value="strip">Remove a final period (chat style)</option>
        </select>
        {problem("style")}
      </fieldset>
      <div class="row">
        <div class="field">
          <label for="format-priority">Priority</label>
          <input
            {...field("priority")}
            type="number"
            step={1}
            class="narrow"
            value={draft.priority}
            onInput={(e) => set("priority", text(e))}
          />
          <p class="hint" id="format-priority-hint">
            Higher wins when two match (−1000 to 1000).
          </p>
          {problem("priority")}
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(e) => set("enabled", e.currentTarget.checked)}
          />{" "}
          Enabled
        </label>
      </div>
      {Object.keys(placed).length === 0 && !since.any && <ErrorText error={save.error} />}
      <div class="row">
        <button type="submit" class="primary" disabled={save.busy}>
          {format ? "Save changes" : "Create format"}
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
