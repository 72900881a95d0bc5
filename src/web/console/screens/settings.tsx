// Every known setting as a form generated from GET /api/settings/schema, in the groups the
// schema files them under; kept current by settings.changed and settings.deleted.
import { useCallback, useState } from "preact/hooks";
import type { Answer } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { SearchBox } from "../list-controls.tsx";
import { useLeaveGuard } from "../router.ts";
import { SettingField, type SettingInfo, settingTitle, unsavedSettings } from "../setting-field.tsx";
import { ErrorText, Screen, useResource } from "../ui.tsx";

/** Whether a setting answers a search: its label, key or description holds every word. */
function matches(info: SettingInfo, search: string): boolean {
  const text = `${settingTitle(info.key)} ${info.key} ${info.description}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

/** The schema's groups in its order, each with its settings: the everyday ones, then the advanced. */
function grouped(catalog: Answer<"get", "/api/settings/schema"> | undefined, search: string) {
  return (catalog?.groups ?? [])
    .map((group) => {
      const items =
        catalog?.items.filter((item) => item.group === group.id && (!search || matches(item, search))) ?? [];
      return {
        ...group,
        everyday: items.filter((item) => !item.advanced),
        advanced: items.filter((item) => item.advanced),
      };
    })
    .filter((group) => group.everyday.length + group.advanced.length > 0);
}

/** In-page links: the console's router would otherwise treat them as navigation. */
const jumpTo = (id: string) => (event: MouseEvent) => {
  event.preventDefault();
  const heading = document.getElementById(`settings-${id}-title`);
  heading?.scrollIntoView({ block: "start" });
  heading?.focus({ preventScroll: true });
};

export function SettingsScreen() {
  const schema = useResource("/api/settings/schema");
  const values = useResource("/api/settings");
  useServerEvents(["settings.changed", "settings.deleted", "data.imported"], () => void values.reload());
  const [search, setSearch] = useState("");
  const sections = grouped(schema.data, search.trim());
  // An edit not saved yet is not lost to a click on the menu or a closed tab without a question.
  useLeaveGuard(
    useCallback(
      () =>
        unsavedSettings.size === 0 ||
        confirm(
          `${[...unsavedSettings].map((key) => `“${settingTitle(key)}”`).join(", ")} ${unsavedSettings.size === 1 ? "has" : "have"} changes that are not saved. Leave without saving?`,
        ),
      [],
    ),
  );
  const field = (info: SettingInfo) => (
    <SettingField key={info.key} info={info} value={values.data?.[info.key]} />
  );
  return (
    <Screen title="Settings">
      <p class="muted">
        Each setting is saved on its own and applies at once. API keys are write-only: svc says whether one is
        set, never what it is.
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
            <section
              key={section.id}
              class="panel settings-group"
              id={`settings-${section.id}`}
              aria-labelledby={`settings-${section.id}-title`}
            >
              <h2 id={`settings-${section.id}-title`} tabIndex={-1}>
                {section.title}
              </h2>
              {section.everyday.map(field)}
              {section.advanced.length > 0 && (
                <>
                  <h3 class="settings-advanced">Advanced</h3>
                  {section.advanced.map(field)}
                </>
              )}
            </section>
          ))}
        </>
      )}
    </Screen>
  );
}
