import { isKnownSetting, settingsCatalog } from "../settings/catalog.ts";
import type { SettingsService } from "../settings/service.ts";
import type { PluginEntry, PluginSettingsStore } from "./types.ts";

/** The host's view of the `plugins` and `disabled_plugins` settings. */
export function pluginSettingsFrom(settings: SettingsService): PluginSettingsStore {
  return {
    entries: () => settings.get("plugins") as readonly PluginEntry[],
    disabled: () => settings.get("disabled_plugins"),
    setEntries(entries) {
      settings.set("plugins", entries);
    },
    setDisabled(names) {
      settings.set("disabled_plugins", names);
    },
    read(key) {
      // API keys never reach plugin code: a secret reads as unset.
      if (!isKnownSetting(key) || ("secret" in settingsCatalog[key] && settingsCatalog[key].secret))
        return undefined;
      const value: unknown = settings.get(key);
      if (value === null || value === undefined) return undefined;
      return typeof value === "string" ? value : JSON.stringify(value);
    },
    onChange(listener) {
      return settings.onChange((key) => {
        if (key === "plugins" || key === "disabled_plugins") listener();
      });
    },
  };
}
