/**
 * Case-folds text for case-insensitive identity (dictionary keys, vocabulary terms, format
 * patterns). NFC first so a composed and a decomposed "é" are the same key; upper-then-lower
 * approximates Unicode full case folding where plain toLowerCase does not ("Straße" = "STRASSE",
 * final sigma). Locale-independent on purpose: the same key must fold the same on every host.
 */
export function foldCase(text: string): string {
  return text.normalize("NFC").toUpperCase().toLowerCase();
}

/** Trims and collapses runs of whitespace (newlines included) to one space. */
export function squashSpaces(text: string): string {
  return text.trim().replace(/\s+/gu, " ");
}

/** The stored form of a dictionary key or vocabulary term: NFC, trimmed, inner whitespace squashed. */
export function normalizeTerm(text: string): string {
  return squashSpaces(text).normalize("NFC");
}
