import type { Database } from "bun:sqlite";
import { AppError, conflict } from "../errors.ts";
import type { Page } from "../http/list.ts";
import { likePattern } from "../http/list.ts";
import { foldCase, normalizeTerm } from "../text/fold.ts";
import type { ImportOptions, ImportSummary } from "./dictionary-repo.ts";
import { isUniqueViolation, type ListQuery, type ListSpec, selectPage } from "./list-sql.ts";

export interface VocabularyRow {
  id: number;
  term: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface VocabularyEntry {
  id: number;
  term: string;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `notes` absent keeps what is stored (on update and import); null or "" clears it. */
export interface VocabularyItem {
  term: string;
  notes?: string | null | undefined;
}

export const vocabularyOrderFields = ["term", "createdAt", "updatedAt"] as const;
export type VocabularyOrderField = (typeof vocabularyOrderFields)[number];

export interface VocabularyRepo {
  list(query: ListQuery<VocabularyOrderField>): Page<VocabularyEntry>;
  get(id: number): VocabularyEntry | null;
  count(): number;
  /** Throws 409 `conflict` when the term exists in any letter case. */
  create(item: VocabularyItem): VocabularyEntry;
  update(id: number, patch: Partial<VocabularyItem>): VocabularyEntry | null;
  remove(id: number): boolean;
  /** Every term, newest first, so a speech engine's prompt budget keeps the latest additions. */
  terms(): string[];
  exportAll(): { term: string; notes: string | null }[];
  /** Upserts by folded term inside a savepoint (atomic alone, nests in a caller's transaction). */
  importAll(items: readonly VocabularyItem[], options?: ImportOptions): ImportSummary;
  /** Increases on every change made through this repository. */
  version(): number;
}

const columns = "id, term, notes, created_at, updated_at";

const toEntry = (row: VocabularyRow): VocabularyEntry => ({
  id: row.id,
  term: row.term,
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const listSpec: ListSpec<VocabularyRow, VocabularyEntry, VocabularyOrderField> = {
  table: "vocabulary",
  columns,
  orderColumns: { term: "term_folded", createdAt: "created_at", updatedAt: "updated_at" },
  search: (term) => ({
    where: "(term_folded LIKE $folded ESCAPE '\\' OR notes LIKE $plain ESCAPE '\\')",
    params: { folded: likePattern(foldCase(term)), plain: likePattern(term) },
  }),
  toItem: toEntry,
};

const cleanNotes = (notes: string | null | undefined, fallback: string | null) =>
  notes === undefined ? fallback : notes?.trim() || null;

export function createVocabularyRepo(db: Database): VocabularyRepo {
  const byId = db.query<VocabularyRow, [number]>(`SELECT ${columns} FROM vocabulary WHERE id = ?`);
  const byFolded = db.query<{ id: number; term: string }, [string]>(
    "SELECT id, term FROM vocabulary WHERE term_folded = ?",
  );
  const countAll = db.query<{ n: number }, []>("SELECT count(*) AS n FROM vocabulary");
  const insert = db.query<VocabularyRow, [string, string, string | null, string, string]>(
    `INSERT INTO vocabulary (term, term_folded, notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     RETURNING ${columns}`,
  );
  const change = db.query<VocabularyRow, [string, string, string | null, string, number]>(
    `UPDATE vocabulary SET term = ?, term_folded = ?, notes = ?, updated_at = ? WHERE id = ? RETURNING ${columns}`,
  );
  const del = db.query<never, [number]>("DELETE FROM vocabulary WHERE id = ?");
  const allTerms = db.query<{ term: string }, []>(
    "SELECT term FROM vocabulary ORDER BY created_at DESC, id DESC",
  );
  const allItems = db.query<{ term: string; notes: string | null }, []>(
    "SELECT term, notes FROM vocabulary ORDER BY term_folded",
  );
  const folded = db.query<VocabularyRow & { term_folded: string }, []>(
    `SELECT ${columns}, term_folded FROM vocabulary`,
  );
  const deleteExcept = db.query<never, [string]>(
    "DELETE FROM vocabulary WHERE id NOT IN (SELECT value FROM json_each(?))",
  );
  let version = 0;

  const guardUnique = <T>(term: string, write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = byFolded.get(foldCase(term));
      throw conflict(
        `The term "${term}" is already in the vocabulary as "${existing?.term}" (id ${existing?.id}).`,
        {
          field: "term",
          existingId: existing?.id,
        },
      );
    }
  };

  const importAll = db.transaction(
    (items: readonly VocabularyItem[], options: ImportOptions): ImportSummary => {
      const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
      const known = new Map(folded.all().map((row) => [row.term_folded, row]));
      const touched: number[] = [];
      const now = new Date().toISOString();
      for (const item of items) {
        const term = normalizeTerm(item.term);
        const foldedTerm = foldCase(term);
        const prev = known.get(foldedTerm);
        const notes = cleanNotes(item.notes, prev?.notes ?? null);
        let row: VocabularyRow | null = null;
        if (!prev) row = insert.get(term, foldedTerm, notes, now, now);
        else if (prev.term !== term || prev.notes !== notes)
          row = change.get(term, foldedTerm, notes, now, prev.id);
        if (!prev) summary.created++;
        else if (row) summary.updated++;
        else summary.unchanged++;
        const current = row ?? prev;
        if (current) {
          touched.push(current.id);
          known.set(foldedTerm, { ...current, term_folded: foldedTerm });
        }
      }
      if (options.mode === "replace") summary.deleted = deleteExcept.run(JSON.stringify(touched)).changes;
      const total = countAll.get()?.n ?? 0;
      if (options.maxEntries !== undefined && total > options.maxEntries) {
        throw new AppError(
          413,
          "limit_exceeded",
          `The import would leave ${total} vocabulary terms; the limit is ${options.maxEntries}.`,
          {
            details: { total, limit: options.maxEntries },
          },
        );
      }
      return summary;
    },
  );

  return {
    list: (query) => selectPage(db, listSpec, query),
    get: (id) => {
      const row = byId.get(id);
      return row ? toEntry(row) : null;
    },
    count: () => countAll.get()?.n ?? 0,
    create(item) {
      const term = normalizeTerm(item.term);
      const now = new Date().toISOString();
      const notes = cleanNotes(item.notes, null);
      const row = guardUnique(term, () => insert.get(term, foldCase(term), notes, now, now));
      if (!row) throw new Error("INSERT … RETURNING gave no row");
      version++;
      return toEntry(row);
    },
    update(id, patch) {
      const current = byId.get(id);
      if (!current) return null;
      const term = normalizeTerm(patch.term ?? current.term);
      const notes = cleanNotes(patch.notes, current.notes);
      const now = new Date().toISOString();
      const row = guardUnique(term, () => change.get(term, foldCase(term), notes, now, id));
      version++;
      return row ? toEntry(row) : null;
    },
    remove(id) {
      const removed = del.run(id).changes > 0;
      if (removed) version++;
      return removed;
    },
    terms: () => allTerms.all().map((row) => row.term),
    exportAll: () => allItems.all(),
    importAll(items, options = {}) {
      const summary = importAll(items, options);
      if (summary.created + summary.updated + summary.deleted > 0) version++;
      return summary;
    },
    version: () => version,
  };
}
