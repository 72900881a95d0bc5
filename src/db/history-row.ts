export interface HistoryRow {
  id: number;
  raw_text: string;
  cleaned_text: string | null;
  final_text: string;
  word_count: number;
  language: string | null;
  engine: string;
  model: string | null;
  audio_duration_ms: number;
  processing_ms: number;
  /** JSON `{app?, title?, url?}`. */
  app_context: string | null;
  format_id: number | null;
  format_label: string | null;
  /** Where the dictation came from: `api`, `openai`, `cli`. */
  source: string;
  /** The name of the key it was made with; null for a trusted client (no key). */
  key_name: string | null;
  created_at: string;
}

export type NewHistoryRow = Omit<HistoryRow, "id">;
