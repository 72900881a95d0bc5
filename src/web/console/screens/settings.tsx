// Every known setting as a form generated from GET /api/settings/schema, one form per group the
// schema files them under, each saved with one Save; kept current by settings.changed and
// settings.deleted. Pick lists come from the server: engines from GET /api/engines, the chosen
// engine's languages from its active model, whisper's models from GET /api/models.

import { useCallback, useRef, useState } from "preact/hooks";
import type { Answer } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { languageName } from "../language-names.ts";
import { SearchBox } from "../list-controls.tsx";
import { useLeaveGuard } from "../router.ts";
import type { Choice, SettingInfo } from "../setting-input.tsx";
import { changes, type Edit, type Picks, SettingsGroup } from "../settings-group.tsx";
import { ErrorText, Screen, useResource } from "../ui.tsx";

/** Whether a setting answers a search: its label, key or description holds every word. */
function matches(info: SettingInfo, search: string): boolean {
  const text = `${info.label} ${info.key} ${info.description}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

/** The schema's groups in its order, each with all its settings and the ones the search shows. */
function grouped(catalog: Answer<"get", "/api/settings/schema"> | undefined, search: string) {
  return (catalog?.groups ?? [])
    .map((group) => {
      const items = catalog?.items.filter((item) => item.group === group.id) ?? [];
      const shown = new Set(items.filter((item) => !search || matches(item, search)).map((item) => item.key));
      return { ...group, items, shown };
    })
    .filter((group) => group.shown.size > 0);
}

/** In-page links: the console's router would otherwise treat them as navigation. */
const jumpTo = (id: string) => (event: MouseEvent) => {
  event.preventDefault();
  const heading = document.getElementById(`settings-${id}-title`);
  heading?.scrollIntoView({ block: "start" });
  heading?.focus({ preventScroll: true });
};

const cleanupNames: Record<string, string> = {
  off: "Off",
  basic: "Basic: fillers, spacing, capitals",
  llm: "Basic, then an LLM pass",
};

function languageChoices(codes: readonly string[]): Choice[] {
  const spoken = codes
    .filter((code) => code !== "auto")
    .map((code) => ({ value: code, label: `${languageName(code)} (${code})` }))
    .sort((a, b) => a.label.localeCompare(b.label));
  return [{ value: "auto", label: "Detect the language" }, ...spoken];
}

/**
 * The pick lists the server fills: engines by name, the engine's languages, and the models of the
 * engine `stt_model` is filed under (the schema says which; its store lists them).
 */
function usePicks(
  edits: Record<string, Edit | undefined>,
  values: Record<string, unknown> | undefined,
  modelEngine: string | undefined,
) {
  const engines = useResource("/api/engines");
  const models = useResource(modelEngine ? "/api/models" : null, { query: { engine: modelEngine } });
  useServerEvents(
    ["settings.changed", "settings.deleted", "models.installed", "models.deleted"],
    () => void Promise.all([engines.reload(), models.reload()]),
  );
  // The engine as the form has it: changing it changes the languages offered before it is saved.
  const engine = String(edits.stt_engine?.draft ?? values?.stt_engine ?? "");
  return (info: SettingInfo): Picks | undefined => {
    if (info.key === "stt_engine" && engines.data) {
      const choices = engines.data.items.map((item) => ({ value: item.id, label: item.title }));
      return { choices, offList: "not an engine svc has" };
    }
    if (info.key === "language") {
      const model = engines.data?.items
        .find((item) => item.id === engine)
        ?.models.find((item) => item.active);
      // A remote server's languages are not known: the field stays text.
      if (!model || model.languages.length === 0) return undefined;
      return { choices: languageChoices(model.languages), offList: "not one of this model's languages" };
    }
    if (info.key === "stt_model" && models.data) {
      const choices = models.data.models.map((model) => ({
        value: model.id,
        label: model.installed ? model.id : `${model.id} (not downloaded)`,
      }));
      return { choices, offList: "not one of the models svc knows" };
    }
    if (info.key === "cleanup_mode") {
      const choices = (info.schema.enum ?? []).map(String).map((value) => ({
        value,
        label: cleanupNames[value] ?? value,
      }));
      return { choices, offList: "not a cleanup mode" };
    }
    return undefined;
  };
}

const dependsOn = (key: string) => (key === "language" ? "stt_engine" : undefined);

export function SettingsScreen() {
  const schema = useResource("/api/settings/schema");
  const values = useResource("/api/settings");
  useServerEvents(["settings.changed", "settings.deleted", "data.imported"], () => void values.reload());
  const [search, setSearch] = useState("");
  const [edits, setEdits] = useState<Record<string, Edit | undefined>>({});
  const edit = useCallback(
    (key: string, next: Edit | undefined) => setEdits((old) => ({ ...old, [key]: next })),
    [],
  );
  // A field typed into again while its Save ran keeps the newer draft.
  const settle = useCallback(
    (key: string, saved: Edit) =>
      setEdits((old) => (old[key] === saved ? { ...old, [key]: undefined } : old)),
    [],
  );
  const modelEngine = schema.data?.items.find((item) => item.key === "stt_model")?.group;
  const picksOf = usePicks(edits, values.data, modelEngine);
  const sections = grouped(schema.data, search.trim());

  // An edit not saved yet is not lost to a click on the menu or a closed tab without a question.
  const unsaved = (schema.data?.items ?? []).filter((info) =>
    changes(info, values.data?.[info.key], edits[info.key]),
  );
  const latest = useRef(unsaved);
  latest.current = unsaved;
  useLeaveGuard(
    useCallback(() => {
      const names = latest.current.map((info) => `“${info.label}”`);
      return (
        names.length === 0 ||
        confirm(
          `${names.join(", ")} ${names.length === 1 ? "has" : "have"} changes that are not saved. Leave without saving?`,
        )
      );
    }, []),
  );

  return (
    <Screen title="Settings">
      <p class="muted">
        Each group has its own Save, which stores the group's changed fields together and applies them at
        once. API keys are write-only: svc says whether one is set, never what it is.
      </p>
      <ErrorText error={schema.error ?? values.error} />
      {(schema.loading || values.loading) && !values.data && <p class="muted">Loading…</p>}
      {values.data && (
        <>
          <SearchBox id="settings-search" label="Search settings" value={search} onInput={setSearch} />
          {sections.length === 0 && <p class="muted">No setting matches “{search.trim()}”.</p>}
          <nav class="settings-toc row small" aria-label="Setting groups">
            {sections.map((section) => (
              <a key={section.id} href={`#settings-${section.id}`} onClick={jumpTo(section.id)}>
                {section.title}
              </a>
            ))}
          </nav>
          {sections.map((section) => (
            <SettingsGroup
              key={section.id}
              id={section.id}
              title={section.title}
              items={section.items}
              shown={section.shown}
              searching={search.trim() !== ""}
              values={values.data ?? {}}
              edits={edits}
              edit={edit}
              settle={settle}
              picksOf={picksOf}
              dependsOn={dependsOn}
              reload={values.reload}
            />
          ))}
        </>
      )}
    </Screen>
  );
}
