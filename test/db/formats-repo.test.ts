import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/database.ts";
import { createFormatsRepo } from "../../src/db/formats-repo.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { builtinFormats } from "../../src/formats/builtins.ts";
import { defaultFormatStyle } from "../../src/formats/style.ts";
import type { FormatInput } from "../../src/formats/types.ts";

function fresh() {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  return { db, repo: createFormatsRepo(db) };
}

const mine: FormatInput = {
  label: "Mine",
  appPattern: "mine",
  instructions: "",
  enabled: true,
  priority: 0,
  style: defaultFormatStyle,
};

describe("formats repo: built-ins", () => {
  test("seedBuiltins is idempotent and never overwrites the user's edits", () => {
    const { repo } = fresh();
    expect(repo.seedBuiltins(builtinFormats)).toBe(builtinFormats.length);
    const email = repo.all().find((format) => format.builtinKey === "email");
    if (!email) throw new Error("email built-in missing");
    repo.update(email.id, { ...email, enabled: false, label: "My email" });
    const version = repo.version();
    expect(repo.seedBuiltins(builtinFormats)).toBe(0);
    expect(repo.version()).toBe(version);
    expect(repo.get(email.id)).toMatchObject({ enabled: false, label: "My email", isBuiltin: true });
  });

  test("seedBuiltins adds a built-in that a newer release ships", () => {
    const { repo } = fresh();
    repo.seedBuiltins(builtinFormats.slice(0, 3));
    expect(repo.seedBuiltins(builtinFormats)).toBe(builtinFormats.length - 3);
  });

  test("resetBuiltins restores shipped definitions, drops retired built-ins and keeps user formats", () => {
    const { db, repo } = fresh();
    repo.seedBuiltins(builtinFormats);
    db.run(
      "INSERT INTO formats (builtin_key, label, app_pattern, instructions, style, created_at, updated_at) VALUES ('retired', 'Old', 'old', '', '{}', '', '')",
    );
    const terminal = repo.all().find((format) => format.builtinKey === "terminal");
    if (!terminal) throw new Error("terminal built-in missing");
    repo.update(terminal.id, { ...terminal, enabled: false, appPattern: "nothing" });
    const user = repo.create(mine);
    expect(repo.resetBuiltins(builtinFormats)).toBe(builtinFormats.length);
    const shipped = builtinFormats.find((builtin) => builtin.key === "terminal");
    expect(repo.get(terminal.id)).toMatchObject({ enabled: true, appPattern: shipped?.appPattern });
    expect(repo.get(user.id)).toMatchObject({ label: "Mine" });
    expect(repo.all().some((format) => format.builtinKey === "retired")).toBe(false);
  });

  test("remove never deletes a built-in", () => {
    const { repo } = fresh();
    repo.seedBuiltins(builtinFormats);
    const first = repo.all()[0];
    expect(first && repo.remove(first.id)).toBe(false);
    expect(repo.all()).toHaveLength(builtinFormats.length);
  });
});

describe("formats repo: exportAll and importAll", () => {
  test("round-trips user formats and built-in edits into another database", () => {
    const source = fresh().repo;
    source.seedBuiltins(builtinFormats);
    source.create({ ...mine, style: { ...defaultFormatStyle, endPunctuation: "strip" }, priority: 5 });
    const chat = source.all().find((format) => format.builtinKey === "team-chat");
    if (!chat) throw new Error("team-chat built-in missing");
    source.update(chat.id, { ...chat, enabled: false });

    const target = fresh().repo;
    target.seedBuiltins(builtinFormats);
    const summary = target.importAll(source.exportAll());
    expect(summary.created).toBe(1);
    expect(target.exportAll()).toEqual(source.exportAll());
    expect(target.importAll(source.exportAll()).created).toBe(0);
  });

  test("merge updates a matching format in place, adds new ones and keeps the rest", () => {
    const { repo } = fresh();
    repo.seedBuiltins(builtinFormats);
    const kept = repo.create({ ...mine, label: "Kept", appPattern: "kept" });
    const edited = repo.create(mine);
    const email = repo.all().find((format) => format.builtinKey === "email");
    if (!email) throw new Error("email built-in missing");
    const before = repo.version();
    const summary = repo.importAll([
      {
        ...mine,
        label: "MINE",
        instructions: "Be brief.",
        priority: 3,
        style: { ...mine.style, capitalize: false },
      },
      { ...email, builtinKey: "email", enabled: false },
      { ...mine, label: "New", appPattern: "new" },
    ]);
    expect(summary).toEqual({ created: 1, updated: 2, unchanged: 0, deleted: 0 });
    expect(repo.get(edited.id)).toMatchObject({
      label: "MINE",
      instructions: "Be brief.",
      priority: 3,
      style: { capitalize: false },
    });
    expect(repo.get(email.id)?.enabled).toBe(false);
    expect(repo.get(kept.id)?.label).toBe("Kept");
    expect(repo.all().filter((format) => format.label === "New")).toHaveLength(1);
    expect(repo.version()).toBeGreaterThan(before);
  });

  test("importing the export again changes nothing, built-ins included", () => {
    const { repo } = fresh();
    repo.seedBuiltins(builtinFormats);
    repo.create(mine);
    const before = repo.version();
    const summary = repo.importAll(repo.exportAll(), { mode: "replace" });
    expect(summary).toEqual({ created: 0, updated: 0, unchanged: builtinFormats.length + 1, deleted: 0 });
    expect(repo.version()).toBe(before);
  });

  test("replace keeps the ids of the formats the items still name and deletes only the others", () => {
    const { repo } = fresh();
    repo.seedBuiltins(builtinFormats);
    const stays = repo.create(mine);
    const changes = repo.create({ ...mine, label: "Changes", appPattern: "changes" });
    repo.create({ ...mine, label: "Goes", appPattern: "goes" });
    const summary = repo.importAll(
      [mine, { ...mine, label: "Changes", appPattern: "changes", enabled: false }],
      { mode: "replace" },
    );
    expect(summary).toEqual({ created: 0, updated: 1, unchanged: 1, deleted: 1 });
    const users = repo.all().filter((format) => !format.isBuiltin);
    expect(users.map((format) => [format.id, format.label, format.enabled])).toEqual([
      [stays.id, "Mine", true],
      [changes.id, "Changes", false],
    ]);
    expect(repo.all().filter((format) => format.isBuiltin)).toHaveLength(builtinFormats.length);
  });

  test("replace deletes user formats the items do not name; unknown built-in keys are skipped", () => {
    const { repo } = fresh();
    repo.create(mine);
    const summary = repo.importAll(
      [
        { ...mine, label: "Other" },
        { ...mine, builtinKey: "from-the-future" },
      ],
      {
        mode: "replace",
      },
    );
    expect(summary).toEqual({ created: 1, updated: 0, unchanged: 1, deleted: 1 });
    expect(repo.all().map((format) => format.label)).toEqual(["Other"]);
  });
});
