import type { Database } from "bun:sqlite";
import { createKeyedRepo, type KeyedRepo } from "./keyed-repo.ts";

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

export interface VocabularyRepo
  extends KeyedRepo<
    VocabularyEntry,
    VocabularyItem,
    VocabularyOrderField,
    { term: string; notes: string | null }
  > {
  /** Every term, newest first, so a speech engine's prompt budget keeps the latest additions. */
  terms(): string[];
}

const toEntry = (row: VocabularyRow): VocabularyEntry => ({
  id: row.id,
  term: row.term,
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createVocabularyRepo(db: Database): VocabularyRepo {
  const keyed = createKeyedRepo<
    VocabularyRow,
    VocabularyEntry,
    VocabularyItem,
    VocabularyOrderField,
    { term: string; notes: string | null },
    string | null
  >(db, {
    table: "vocabulary",
    columns: "id, term, notes, created_at, updated_at",
    keyColumn: "term",
    valueColumn: "notes",
    orderColumns: { term: "term_folded", createdAt: "created_at", updatedAt: "updated_at" },
    entriesNoun: "vocabulary terms",
    toEntry,
    keyOf: (item) => item.term,
    valueOf: ({ notes }, stored) => (notes === undefined ? (stored ?? null) : notes?.trim() || null),
  });
  const allTerms = db.query<{ term: string }, []>(
    "SELECT term FROM vocabulary ORDER BY created_at DESC, id DESC",
  );

  return { ...keyed, terms: () => allTerms.all().map((row) => row.term) };
}
