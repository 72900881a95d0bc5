// `bun run docs`: rewrites the README's generated sections (between `<!-- generated:NAME -->` and
// `<!-- /generated:NAME -->`) from the code: the error-code table and the errors of
// POST /api/transcribe; and the console's API types (scripts/api-types.ts). test/docs.test.ts and
// test/web/console/api-paths.test.ts fail when they fall behind.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ErrorCode, errorCodes } from "../src/error-codes.ts";
import { routeErrors } from "../src/http/api-docs.ts";
import { transcribeDoc } from "../src/routes/transcribe.ts";
import { type SettingDef, settingKeys, settingsCatalog } from "../src/settings/catalog.ts";
import { apiTypes, apiTypesFile } from "./api-types.ts";

const readme = join(import.meta.dir, "..", "README.md");
const byStatus = (codes: ErrorCode[]) => {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes)
    groups.set(errorCodes[code].status, [...(groups.get(errorCodes[code].status) ?? []), code]);
  return [...groups].sort(([a], [b]) => a - b);
};

/** The generated sections, by name. */
export function generatedSections(): Record<string, string> {
  const all = Object.keys(errorCodes) as ErrorCode[];
  const codeTable = [
    "| Status | Code | Meaning |",
    "| --- | --- | --- |",
    ...byStatus(all).flatMap(([status, codes]) =>
      codes.map((code) => `| ${status} | \`${code}\` | ${errorCodes[code].summary} |`),
    ),
  ];
  const transcribeTable = [
    "| Status | Codes |",
    "| --- | --- |",
    ...byStatus(
      routeErrors({ ...transcribeDoc, method: "post", path: "/api/transcribe", tag: "Dictation" }),
    ).map(
      ([status, codes]) =>
        `| ${status} | ${codes.map((code) => `\`${code}\` (${errorCodes[code].summary})`).join(", ")} |`,
    ),
  ];
  // Every setting the catalog knows, and nothing else: a setting that became an environment
  // variable leaves this table as it leaves the catalog.
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  const settingsTable = [
    "| Key | Default | Meaning |",
    "| --- | --- | --- |",
    ...settingKeys.map((key) => {
      const def = settingsCatalog[key] as SettingDef;
      const secret = def.secret ? " Secret: never shown." : "";
      return `| \`${key}\` | \`${JSON.stringify(def.default)}\` | ${cell(def.description)}${secret} |`;
    }),
  ];
  return {
    "error-codes": codeTable.join("\n"),
    "transcribe-errors": transcribeTable.join("\n"),
    settings: settingsTable.join("\n"),
  };
}

const block = (name: string) =>
  new RegExp(`(<!-- generated:${name} -->\\n)[\\s\\S]*?(<!-- /generated:${name} -->)`);

/** `text` with every generated section replaced by its current content. */
export function withGeneratedSections(text: string): string {
  let out = text;
  for (const [name, content] of Object.entries(generatedSections())) {
    if (!block(name).test(out)) throw new Error(`README.md has no generated:${name} section`);
    out = out.replace(block(name), `$1\n${content}\n\n$2`);
  }
  return out;
}

if (import.meta.main) {
  writeFileSync(readme, withGeneratedSections(readFileSync(readme, "utf8")));
  writeFileSync(apiTypesFile, await apiTypes());
  // Biome aligns the tables as it formats the README.
  const format = Bun.spawnSync([process.execPath, "x", "biome", "format", "--write", readme], {
    stderr: "inherit",
  });
  process.exit(format.exitCode ?? 1);
}
