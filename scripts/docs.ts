// `bun run docs`: rewrites the generated sections of the docs/ pages (between `<!-- generated:NAME -->`
// and `<!-- /generated:NAME -->`) from the code: the error-code table and the errors of
// POST /api/transcribe (docs/api.md), the settings table (docs/configuration.md); and the console's
// API types (scripts/api-types.ts). test/docs.test.ts and test/web/console/api-paths.test.ts fail
// when they fall behind.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ErrorCode, errorCodes } from "../src/error-codes.ts";
import { routeErrors } from "../src/http/api-docs.ts";
import { transcribeDoc } from "../src/routes/transcribe.ts";
import { type SettingDef, settingKeys, settingsCatalog } from "../src/settings/catalog.ts";
import { apiTypes, apiTypesFile } from "./api-types.ts";

const repo = join(import.meta.dir, "..");

/** The files that hold generated sections, relative to the repository, and the sections each holds. */
export const generatedFiles: Record<string, SectionName[]> = {
  "docs/api.md": ["error-codes", "transcribe-errors"],
  "docs/configuration.md": ["settings"],
};
const byStatus = (codes: ErrorCode[]) => {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes)
    groups.set(errorCodes[code].status, [...(groups.get(errorCodes[code].status) ?? []), code]);
  return [...groups].sort(([a], [b]) => a - b);
};

type SectionName = "error-codes" | "transcribe-errors" | "settings";

/** The generated sections, by name. */
export function generatedSections(): Record<SectionName, string> {
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

/** `text`, the content of `file` (a key of `generatedFiles`), with its generated sections replaced. */
export function withGeneratedSections(file: string, text: string): string {
  const sections = generatedSections();
  let out = text;
  for (const name of generatedFiles[file] ?? []) {
    if (!block(name).test(out)) throw new Error(`${file} has no generated:${name} section`);
    out = out.replace(block(name), `$1\n${sections[name]}\n\n$2`);
  }
  return out;
}

if (import.meta.main) {
  const paths = Object.keys(generatedFiles).map((file) => {
    const path = join(repo, file);
    writeFileSync(path, withGeneratedSections(file, readFileSync(path, "utf8")));
    return path;
  });
  writeFileSync(apiTypesFile, await apiTypes());
  // Biome aligns the tables as it formats the pages.
  const format = Bun.spawnSync([process.execPath, "x", "biome", "format", "--write", ...paths], {
    stderr: "inherit",
  });
  process.exit(format.exitCode ?? 1);
}
