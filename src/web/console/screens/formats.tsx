// Output formats per app: the user's own and the built-ins, with create, edit, enable/disable,
// delete, reset of the built-ins and a tester; kept current by formats.changed and data.imported.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { toast } from "../toast.tsx";
import {
  ConfirmButton,
  ErrorText,
  focusAfterRemoval,
  focusHeading,
  Screen,
  useAction,
  useResource,
} from "../ui.tsx";
import { type Format, FormatEditor } from "./format-editor.tsx";
import { FormatTester } from "./format-tester.tsx";

const endText = { keep: "", add: "adds a final period", strip: "drops a final period" } as const;

function styleSummary(format: Format): string {
  const { style } = format;
  const parts = [
    style.capitalize ? "capitalises" : "no capitals",
    style.spokenPunctuation ? "spoken punctuation" : "punctuation words kept",
    style.removeFillers ? "drops fillers" : "keeps fillers",
    endText[style.endPunctuation],
  ];
  return parts.filter(Boolean).join(" · ");
}

function FormatItem(props: { format: Format; onEdit: (format: Format) => void }) {
  const { format } = props;
  const action = useAction();
  const titleId = `format-${format.id}-title`;
  // The box follows the click at once; the list catches up on formats.changed (or it flips back).
  const [enabled, setEnabled] = useState(format.enabled);
  useEffect(() => setEnabled(format.enabled), [format.enabled]);
  const toggle = async (next: boolean) => {
    setEnabled(next);
    const saved = await action.run(() =>
      api.patch("/api/formats/{id}", { params: { id: format.id }, body: { enabled: next } }),
    );
    if (!saved) setEnabled(format.enabled);
  };
  const remove = () => {
    const refocus = focusAfterRemoval(
      document.getElementById(titleId)?.closest("li"),
      "formats-your-formats",
    );
    return action.run(async () => {
      await api.delete("/api/formats/{id}", { params: { id: format.id } });
      toast(`Deleted “${format.label}”.`, "success");
      refocus();
    });
  };
  return (
    <li class={`panel format-item${format.enabled ? "" : " format-off"}`} aria-labelledby={titleId}>
      <div class="format-head">
        <div class="format-title">
          <h3 id={titleId}>{format.label}</h3>
          {format.isBuiltin && <span class="badge">built-in</span>}
          {!format.enabled && <span class="badge error">off</span>}
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={enabled}
            disabled={action.busy}
            aria-label={`${format.label} enabled`}
            onChange={(event) => void toggle(event.currentTarget.checked)}
          />{" "}
          Enabled
        </label>
      </div>
      <p class="format-pattern">
        <code>{format.appPattern || "(no apps)"}</code>
      </p>
      <p class="small muted">
        {styleSummary(format)}
        {format.priority !== 0 && ` · priority ${format.priority}`}
      </p>
      <div class="row">
        <button type="button" onClick={() => props.onEdit(format)} aria-describedby={titleId}>
          Edit
        </button>
        {format.isBuiltin ? (
          // svc refuses to delete a built-in format: offer what it does instead.
          <span class="small muted">Built-in: switch it off with Enabled; Reset built-ins restores it.</span>
        ) : (
          <ConfirmButton
            label="Delete"
            confirm={`Click again to delete “${format.label}”`}
            disabled={action.busy}
            onConfirm={() => void remove()}
          />
        )}
      </div>
      <ErrorText error={action.error} />
    </li>
  );
}

function FormatList(props: {
  title: string;
  formats: Format[];
  onEdit: (format: Format) => void;
  empty: string;
}) {
  const id = `formats-${props.title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id} tabIndex={-1}>
        {props.title}
      </h2>
      {props.formats.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <ul class="format-list">
          {props.formats.map((format) => (
            <FormatItem key={format.id} format={format} onEdit={props.onEdit} />
          ))}
        </ul>
      )}
    </section>
  );
}

export function FormatsScreen() {
  const list = useResource("/api/formats", { query: { limit: 500 } });
  const [editing, setEditing] = useState<Format | "new" | null>(null);
  // The button that opened the editor gets the focus back when it closes (Cancel, Escape, saved).
  const opener = useRef<Element | null>(null);
  const edit = (format: Format | "new") => {
    opener.current = document.activeElement;
    setEditing(format);
  };
  const closeEditor = () => {
    setEditing(null);
    const back = opener.current;
    setTimeout(() => (back instanceof HTMLElement && back.isConnected ? back.focus() : focusHeading()));
  };
  const [version, setVersion] = useState(0);
  const reset = useAction();
  useServerEvents(["formats.changed", "data.imported"], () => {
    void list.reload();
    setVersion((old) => old + 1);
  });
  const formats = list.data?.items ?? [];
  const resetBuiltins = () =>
    reset.run(async () => {
      const { restored } = await api.post("/api/formats/reset");
      toast(`Restored ${restored} built-in formats.`, "success");
    });

  return (
    <Screen
      title="Formats"
      actions={
        <>
          <button type="button" class="primary" onClick={() => edit("new")}>
            New format
          </button>
          <ConfirmButton
            label="Reset built-ins"
            confirm="Click again to restore every built-in"
            disabled={reset.busy}
            onConfirm={() => void resetBuiltins()}
          />
        </>
      }
    >
      <p class="muted">
        A format adapts the text to the app you dictate into: the first enabled format whose pattern matches
        applies, your own before the built-ins.
      </p>
      <ErrorText error={list.error ?? reset.error} />
      {editing && (
        <FormatEditor
          key={editing === "new" ? "new" : editing.id}
          format={editing === "new" ? null : editing}
          onDone={closeEditor}
        />
      )}
      <FormatTester version={version} />
      {list.data && (
        <>
          <FormatList
            title="Your formats"
            formats={formats.filter((format) => !format.isBuiltin)}
            onEdit={edit}
            empty="None yet: New format adds one."
          />
          <FormatList
            title="Built-in formats"
            formats={formats.filter((format) => format.isBuiltin)}
            onEdit={edit}
            empty="None."
          />
        </>
      )}
    </Screen>
  );
}
