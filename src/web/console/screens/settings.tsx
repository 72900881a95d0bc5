// Every known setting as a form generated from GET /api/settings/schema, grouped by what it
// tunes; kept current by settings.changed and settings.deleted.
import { useServerEvents } from "../events.ts";
import { SettingField, type SettingInfo } from "../setting-field.tsx";
import { ErrorText, Screen, useResource } from "../ui.tsx";

/** Groups in display order; a setting joins the first whose test it passes, else "Other". */
const groups: { title: string; id: string; test: (key: string) => boolean }[] = [
  { title: "Speech", id: "speech", test: (key) => /^(stt_|language$|whisper_|audio_|max_audio)/.test(key) },
  { title: "Remote speech engine", id: "remote", test: (key) => key.startsWith("remote_stt_") },
  { title: "Cleanup", id: "cleanup", test: (key) => key === "cleanup_mode" || key === "filler_words" },
  { title: "LLM cleanup", id: "llm", test: (key) => key.startsWith("llm_") },
  { title: "History", id: "history", test: (key) => key.startsWith("history_") },
  { title: "Queue and time limits", id: "limits", test: (key) => /^(transcribe_|hook_)/.test(key) },
  { title: "Plugins", id: "plugins", test: (key) => key.endsWith("plugins") },
];

function grouped(items: SettingInfo[]) {
  const sections = [...groups, { title: "Other", id: "other", test: () => true }].map((group) => ({
    ...group,
    items: [] as SettingInfo[],
  }));
  for (const item of items) sections.find((section) => section.test(item.key))?.items.push(item);
  return sections.filter((section) => section.items.length > 0);
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
  const sections = grouped(schema.data?.items ?? []);
  return (
    <Screen title="Settings">
      <p class="muted">
        Each setting is saved on its own (<code>PUT /api/settings/&lt;key&gt;</code>) and applies at once. API
        keys are write-only: svc says whether one is set, never what it is.
      </p>
      <ErrorText error={schema.error ?? values.error} />
      {(schema.loading || values.loading) && !values.data && <p class="muted">Loading…</p>}
      {values.data && (
        <>
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
              {section.items.map((info) => (
                <SettingField key={info.key} info={info} value={values.data?.[info.key]} />
              ))}
            </section>
          ))}
        </>
      )}
    </Screen>
  );
}
