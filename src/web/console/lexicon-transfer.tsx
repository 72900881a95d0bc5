// Import (JSON or CSV, all or nothing) and export of the dictionary or vocabulary through
// `POST /api/<name>/import` and `GET /api/<name>/export`. A refused file lists the API's problems.
import { useState } from "preact/hooks";
import { type Answer, ApiError, api } from "./api.ts";
import { toast } from "./toast.tsx";
import { ErrorText, useAction } from "./ui.tsx";

interface RowProblem {
  line?: number;
  index?: number;
  field?: string;
  message: string;
}

type ImportSummary = Answer<"post", "/api/dictionary/import" | "/api/vocabulary/import">;

/** The body's Content-Type, by extension first (browsers often leave CSV untyped). */
export function importType(file: { name: string; type: string }): "application/json" | "text/csv" | null {
  const name = file.name.toLowerCase();
  if (name.endsWith(".json")) return "application/json";
  if (name.endsWith(".csv")) return "text/csv";
  if (file.type === "application/json" || file.type === "text/csv") return file.type;
  return null;
}

function problemsOf(error: unknown): RowProblem[] {
  if (!(error instanceof ApiError) || typeof error.details !== "object" || error.details === null) return [];
  const list = (error.details as { errors?: unknown }).errors;
  return Array.isArray(list) ? (list as RowProblem[]).filter((p) => typeof p?.message === "string") : [];
}

const where = (problem: RowProblem) =>
  problem.line !== undefined
    ? `Line ${problem.line}`
    : problem.index !== undefined
      ? `Item ${problem.index}`
      : "";

const summaryText = (s: ImportSummary) =>
  `Imported: ${s.created} added, ${s.updated} updated, ${s.unchanged} unchanged${s.deleted ? `, ${s.deleted} removed` : ""}.`;

export function LexiconTransfer(props: {
  name: "dictionary" | "vocabulary";
  columns: readonly string[];
  onImported: () => void;
}) {
  const { name, columns } = props;
  const [mode, setMode] = useState<"merge" | "replace">("merge");
  const action = useAction();
  const problems = problemsOf(action.error);

  const importFile = (file: File) =>
    action.run(async () => {
      const type = importType(file);
      if (!type) throw new Error(`“${file.name}” is neither a .json nor a .csv file; choose one of those.`);
      const summary = await api.post(`/api/${name}/import`, {
        query: { mode },
        headers: { "content-type": type },
        raw: file,
      });
      toast(summaryText(summary), "success");
      props.onImported();
    });

  return (
    <div class="transfer panel">
      <div class="row">
        <div>
          <label for={`${name}-import-mode`}>Import mode</label>
          <select
            id={`${name}-import-mode`}
            value={mode}
            onChange={(event) => setMode(event.currentTarget.value === "replace" ? "replace" : "merge")}
          >
            <option value="merge">Merge: add new, update existing</option>
            <option value="replace">Replace: the file becomes the list</option>
          </select>
        </div>
        <div>
          <label class="button file-button">
            {action.busy ? "Importing…" : "Import JSON or CSV…"}
            <input
              type="file"
              class="visually-hidden"
              accept=".json,.csv,application/json,text/csv"
              disabled={action.busy}
              onChange={(event) => {
                const input = event.currentTarget;
                const file = input.files?.[0];
                input.value = "";
                if (file) void importFile(file);
              }}
            />
          </label>
        </div>
        <div class="export-links">
          <a class="button" href={`/api/${name}/export?format=json`} download>
            Export JSON
          </a>{" "}
          <a class="button" href={`/api/${name}/export?format=csv`} download>
            Export CSV
          </a>
        </div>
      </div>
      <p class="hint small muted">
        JSON: an array of objects with {columns.map((column) => `"${column}"`).join(" and ")}. CSV: a header
        row <code>{columns.join(",")}</code>, then one per line. All or nothing: if any row is invalid,
        nothing is imported.
      </p>
      <ErrorText error={action.error} />
      {problems.length > 0 && (
        <ul class="problems" aria-label="Problems in the file">
          {problems.map((problem) => (
            <li key={`${problem.line ?? problem.index}-${problem.field ?? ""}-${problem.message}`}>
              {where(problem)}
              {problem.field ? ` (${problem.field})` : ""}: {problem.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
