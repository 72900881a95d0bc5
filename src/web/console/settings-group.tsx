// One group of the Settings screen as one form: its fields typed from the schema, one Save that
// sends only the changed fields in one PATCH /api/settings (all stored or none), Cancel, and how
// many changes are not saved yet. The drafts live in the screen, so a search keeps them.
import { useState } from "preact/hooks";
import { ApiError, api } from "./api.ts";
import { fieldMessage } from "./error-words.ts";
import { clearedWarning, secretSet } from "./setting-field.tsx";
import {
  type Choice,
  type Draft,
  draftOf,
  kindOf,
  parseDraft,
  SettingControl,
  type SettingInfo,
} from "./setting-input.tsx";
import { toast } from "./toast.tsx";
import { ErrorText } from "./ui.tsx";

/** An edit not saved yet: the input's text, or a reset to the default (a removed key). */
export interface Edit {
  draft: Draft;
  reset?: boolean;
}

/** A pick list for a field, and what to say of a value that is not on it. */
export interface Picks {
  choices: readonly Choice[];
  offList: string;
}

/** Whether a stored value is its default (a secret: whether none is stored). */
export const atDefault = (info: SettingInfo, value: unknown) =>
  info.secret ? !secretSet(value) : JSON.stringify(value) === JSON.stringify(info.default);

/** Whether `edit` would change what is stored. */
export function changes(info: SettingInfo, value: unknown, edit: Edit | undefined): boolean {
  if (!edit) return false;
  if (edit.reset) return !atDefault(info, value);
  const kind = kindOf(info);
  return kind === "secret" ? edit.draft !== "" : edit.draft !== draftOf(kind, value);
}

interface Plan {
  values: Record<string, unknown>;
  reset: string[];
  problems: Record<string, string>;
}

/** What Save sends for the changed fields, or the sentences that keep it from being sent. */
function plan(props: GroupProps, changed: SettingInfo[]): Plan {
  const out: Plan = { values: {}, reset: [], problems: {} };
  for (const info of changed) {
    const edit = props.edits[info.key];
    if (!edit) continue;
    if (edit.reset) {
      out.reset.push(info.key);
      continue;
    }
    try {
      out.values[info.key] = parseDraft(info, kindOf(info), edit.draft);
    } catch (error) {
      out.problems[info.key] = fieldMessage(error);
    }
  }
  // A value off its pick list (a language the chosen model does not speak) is not saved by mistake.
  for (const info of props.items) {
    const picks = props.picksOf(info);
    const text = String(props.edits[info.key]?.draft ?? draftOf(kindOf(info), props.values[info.key]));
    const touched = changed.some((other) => other === info || props.dependsOn(info.key) === other.key);
    if (picks && touched && !picks.choices.some((choice) => choice.value === text))
      out.problems[info.key] = `${info.label}: “${text}” is ${picks.offList}.`;
  }
  return out;
}

/** The sentence of each refused field in a 400 invalid_setting, by key. */
function refusals(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.code !== "invalid_setting") return {};
  const details = error.details as
    | { key?: string; settings?: { key: string; message: string }[] }
    | undefined;
  if (details?.settings) return Object.fromEntries(details.settings.map((item) => [item.key, item.message]));
  return details?.key ? { [details.key]: error.message } : {};
}

export interface GroupProps {
  id: string;
  title: string;
  /** Every setting of the group, whether the search shows it or not: Save sends all changed ones. */
  items: SettingInfo[];
  /** The ones the search shows. */
  shown: ReadonlySet<string>;
  searching: boolean;
  values: Record<string, unknown>;
  edits: Record<string, Edit | undefined>;
  edit: (key: string, edit: Edit | undefined) => void;
  /** Drops a saved draft, unless the field was edited again while Save ran. */
  settle: (key: string, saved: Edit) => void;
  picksOf: (info: SettingInfo) => Picks | undefined;
  /** The setting whose change can put this one off its pick list (language: the engine). */
  dependsOn: (key: string) => string | undefined;
  /** Loads the stored values again; Save waits for it before it lets the drafts go. */
  reload: () => Promise<void>;
}

export function SettingsGroup(props: GroupProps) {
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const changed = props.items.filter((info) => changes(info, props.values[info.key], props.edits[info.key]));
  const titleId = `settings-${props.id}-title`;

  const clear = () => {
    for (const info of props.items) props.edit(info.key, undefined);
    setProblems({});
    setError(undefined);
  };
  const save = async () => {
    const request = plan(props, changed);
    const sent = changed.flatMap((info) => {
      const edit = props.edits[info.key];
      return edit ? [[info.key, edit] as const] : [];
    });
    setProblems(request.problems);
    setError(undefined);
    if (Object.keys(request.problems).length > 0) return;
    setBusy(true);
    try {
      const answer = await api.patch("/api/settings", {
        body: { values: request.values, reset: request.reset },
      });
      await props.reload();
      for (const [key, edit] of sent) props.settle(key, edit);
      const saved = `Saved ${changed.map((info) => `“${info.label}”`).join(", ")}.`;
      const labelOf = (key: string) => props.items.find((info) => info.key === key)?.label ?? key;
      const warning = clearedWarning(saved, answer.cleared, labelOf);
      toast(warning ?? saved, warning ? "warning" : "success");
    } catch (caught) {
      const byField = refusals(caught);
      setProblems(byField);
      setError(
        Object.keys(byField).length > 0
          ? new Error("Nothing was saved: see the messages at the fields.")
          : caught,
      );
    } finally {
      setBusy(false);
    }
  };

  const field = (info: SettingInfo) => {
    const kind = kindOf(info);
    const value = props.values[info.key];
    const edit = props.edits[info.key];
    const draft = edit?.draft ?? draftOf(kind, value);
    const picks = props.picksOf(info);
    const canReset = edit
      ? !edit.reset && (edit.draft !== draftOf(kind, info.default) || !atDefault(info, value))
      : !atDefault(info, value);
    return (
      <SettingControl
        key={info.key}
        info={info}
        kind={kind}
        draft={draft}
        onDraft={(next) => props.edit(info.key, { draft: next })}
        error={problems[info.key]}
        choices={picks?.choices}
        offList={picks?.offList}
        stored={info.secret ? secretSet(value) : undefined}
        aside={
          <>
            {edit?.reset && info.secret && changes(info, value, edit) && (
              <span class="badge muted-badge">removed on Save</span>
            )}
            {canReset && (
              <button
                type="button"
                class="link small"
                onClick={() =>
                  props.edit(info.key, { draft: draftOf(kind, info.secret ? "" : info.default), reset: true })
                }
              >
                {info.secret ? "Remove key" : "Reset to default"}
              </button>
            )}
          </>
        }
      />
    );
  };
  const shown = props.items.filter((info) => props.shown.has(info.key));
  const everyday = shown.filter((info) => !info.advanced);
  const advanced = shown.filter((info) => info.advanced);
  const advancedChanged = changed.some((info) => info.advanced);

  return (
    <section class="panel settings-group" id={`settings-${props.id}`} aria-labelledby={titleId}>
      <form
        noValidate
        aria-labelledby={titleId}
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <div class="settings-group-head">
          <h2 id={titleId} tabIndex={-1}>
            {props.title}
          </h2>
          {changed.length > 0 && (
            <span class="badge unsaved" role="status">
              {changed.length === 1 ? "1 unsaved change" : `${changed.length} unsaved changes`}
            </span>
          )}
        </div>
        <div class="settings-fields">{everyday.map(field)}</div>
        {advanced.length > 0 && (
          <details class="settings-advanced" open={props.searching || advancedChanged || undefined}>
            <summary>Advanced ({advanced.length})</summary>
            <div class="settings-fields">{advanced.map(field)}</div>
          </details>
        )}
        <ErrorText error={error} />
        <div class="row settings-actions">
          <button type="submit" class="primary" disabled={busy || changed.length === 0}>
            Save
          </button>
          <button type="button" disabled={busy || changed.length === 0} onClick={clear}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
