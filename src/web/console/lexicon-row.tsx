// One row of the dictionary or vocabulary table in edit form: the add row at the top, or an
// entry being edited. Enter saves, Escape cancels; the API's messages appear at their fields.
import { useState } from "preact/hooks";
import { fieldErrors } from "./field-errors.ts";
import { fieldOf, type LexiconEntry, type LexiconField } from "./lexicon-spec.ts";
import { ErrorText, useAction, useEditedSince } from "./ui.tsx";

export type Draft = Record<string, string>;

const draftOf = (fields: readonly LexiconField[], entry?: LexiconEntry): Draft =>
  Object.fromEntries(
    fields.map((field) => [field.name, String((entry && fieldOf(entry, field.name)) ?? "")]),
  );

export function EditRow(props: {
  idPrefix: string;
  fields: readonly LexiconField[];
  /** The entry being edited; none for the add row. */
  entry?: LexiconEntry;
  /** Cells between the fields and the buttons (read-only columns). */
  spare: number;
  /** Saves the draft; true when done. */
  save: (draft: Draft) => Promise<unknown>;
  onCancel?: () => void;
  /** Names the inputs for screen readers: "new entry", or the entry's key. */
  subject: string;
}) {
  const { fields, entry } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(fields, entry));
  const action = useAction();
  const errors = fieldErrors(
    action.error,
    fields.map((field) => field.name),
  );
  const placed = Object.keys(errors).length > 0;
  // A message goes once its field is changed: it spoke of the value that was there.
  const since = useEditedSince(action.error);
  const adding = entry === undefined;

  const submit = async () => {
    const ok = await action.run(() => props.save(draft));
    if (ok && adding) {
      setDraft(draftOf(fields));
      document.getElementById(`${props.idPrefix}-${fields[0]?.name}`)?.focus();
    }
  };
  const cancel = () => {
    action.clear();
    if (adding) setDraft(draftOf(fields));
    else props.onCancel?.();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    // Enter in a field saves; on a button it presses that button.
    if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      void submit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      cancel();
    }
  };

  return (
    <tr class={adding ? "add-row" : "editing"} onKeyDown={onKeyDown}>
      {fields.map((field, index) => {
        const id = `${props.idPrefix}-${field.name}`;
        const error = since.edited(field.name) ? undefined : errors[field.name];
        return (
          <td key={field.name} data-label={field.label}>
            <input
              id={id}
              value={draft[field.name] ?? ""}
              placeholder={adding ? field.placeholder : undefined}
              aria-label={`${field.label} of ${props.subject}`}
              aria-invalid={error ? "true" : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              // biome-ignore lint/a11y/noAutofocus: Edit moves focus into the row it opened.
              autoFocus={!adding && index === 0}
              onInput={(event) => {
                setDraft({ ...draft, [field.name]: event.currentTarget.value });
                since.edit(field.name);
              }}
            />
            {error && (
              <p class="error small" id={`${id}-error`} role="alert">
                {error}
              </p>
            )}
            {index === 0 && !placed && !since.any && <ErrorText error={action.error} />}
          </td>
        );
      })}
      {Array.from({ length: props.spare }, (_, index) => (
        <td key={`spare-${index}`} class="spare" />
      ))}
      <td class="actions">
        <button type="button" class="primary" disabled={action.busy} onClick={() => void submit()}>
          {adding ? "Add" : "Save"}
        </button>
        {!adding && (
          <button type="button" onClick={cancel}>
            Cancel
          </button>
        )}
      </td>
    </tr>
  );
}
