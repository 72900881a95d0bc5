import { describe, expect, test } from "bun:test";
import { engineIds } from "../../src/dictation/engines/ids.ts";
import { engines } from "../../src/dictation/engines/registry.ts";
import { type SettingDef, settingKeys, settingsCatalog } from "../../src/settings/catalog.ts";

// Every setting has a group the console files it under (GET /api/settings/schema); an engine's own
// settings say `group: "engine"` and are filed under the engine whose definition lists them.

const groupOf = (key: (typeof settingKeys)[number]) => (settingsCatalog[key] as SettingDef).group;

describe("the settings catalog's groups", () => {
  test('a setting declared group "engine" is listed by exactly one engine', () => {
    const orphans = settingKeys
      .filter((key) => groupOf(key) === "engine")
      .filter((key) => engineIds.filter((id) => engines[id].settings.includes(key)).length !== 1);
    expect(orphans).toEqual([]);
  });

  test('an engine lists only settings declared group "engine"', () => {
    const misfiled = engineIds.flatMap((id) =>
      engines[id].settings.filter((key) => groupOf(key) !== "engine").map((key) => `${id}: ${key}`),
    );
    expect(misfiled).toEqual([]);
  });
});
