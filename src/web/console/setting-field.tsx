// One setting as a small form of its own (the Models screen's engine settings): saved with PUT
// /api/settings/:key, reset with DELETE, and the API's sentence shown at the field. The Settings
// screen saves whole groups instead (settings-group.tsx).
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.ts";
import { fieldMessage } from "./error-words.ts";
import {
  type Draft,
  draftOf,
  kindOf,
  parseDraft,
  SettingControl,
  type SettingInfo,
} from "./setting-input.tsx";
import { toast } from "./toast.tsx";
import { useAction } from "./ui.tsx";

export type { SettingInfo } from "./setting-input.tsx";

/** A secret's stored state, which the API shows as `{"set": true|false}`. */
export const secretSet = (value: unknown): boolean => (value as { set?: unknown } | null)?.set === true;

/** The toast after a save that removed API keys bound to the old address, else null. */
export function clearedWarning(saved: string, cleared: readonly string[], labelOf: (key: string) => string) {
  if (cleared.length === 0) return null;
  // A key belongs to the server it was entered for: svc does not send it to another one.
  return `${saved} ${cleared.map((key) => `“${labelOf(key)}”`).join(" and ")} was removed: it belonged to the old address. Enter it again if you trust the new one.`;
}

export function SettingField(props: { info: SettingInfo; value: unknown }) {
  const { info } = props;
  const kind = kindOf(info);
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const save = useAction();
  const current = draft ?? draftOf(kind, props.value);
  const isDefault = info.secret
    ? !secretSet(props.value)
    : JSON.stringify(props.value) === JSON.stringify(info.default);
  const dirty =
    draft !== undefined && draft !== draftOf(kind, props.value) && !(kind === "secret" && draft === "");

  // What was just stored shows until settings.changed brings it back as props.value; a draft
  // typed since then is kept.
  const stored = useRef<Draft | undefined>(undefined);
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
      const saved = `Saved “${info.label}”.`;
      // What a save clears is the API key bound to this base URL: "LLM base URL" → "LLM API key".
      const keyLabel = info.label.replace(/ base URL$/, " API key");
      const warning = clearedWarning(saved, view.cleared ?? [], () => keyLabel);
      toast(warning ?? saved, warning ? "warning" : "success");
    });
  const reset = () =>
    save.run(async () => {
      await api.delete("/api/settings/{key}", { params: { key: info.key } });
      showStored(info.default);
      toast(info.secret ? `Removed “${info.label}”.` : `“${info.label}” is back to its default.`, "success");
    });

  return (
    <form
      class="setting-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void put();
      }}
    >
      <SettingControl
        info={info}
        kind={kind}
        draft={current}
        onDraft={setDraft}
        error={save.error ? fieldMessage(save.error) : undefined}
        stored={!isDefault}
      />
      <div class="row">
        <button
          type="submit"
          disabled={save.busy || (!dirty && kind !== "secret") || (kind === "secret" && current === "")}
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
